using System;
using System.Diagnostics;

namespace Tikron.Client.Timing
{
    /// <summary>
    /// Time-keeping pieces shared by <see cref="ClockSync"/> and the playout clock (packages/client
    /// timing.ts): a sliding-window minimum, a rate-limited approach, the default local clock.
    /// </summary>
    public static class LocalClock
    {
        static readonly Stopwatch Watch = Stopwatch.StartNew();

        /// <summary>A monotonic local clock in ms (the SDK's default "now").</summary>
        public static double Now() => Watch.Elapsed.TotalMilliseconds;

        /// <summary><paramref name="from"/> moved toward <paramref name="to"/> by at most <paramref name="maxStep"/>.</summary>
        public static double Approach(double from, double to, double maxStep) =>
            to > from + maxStep ? from + maxStep : to < from - maxStep ? from - maxStep : to;
    }

    /// <summary>The lowest key over a sliding window of samples, and when it was seen (newest wins ties).</summary>
    public sealed class WindowMin
    {
        /// <summary>Lowest key in the window; +∞ when empty.</summary>
        public double Min = double.PositiveInfinity;
        /// <summary>The <c>at</c> of the sample holding <see cref="Min"/>.</summary>
        public double MinAt;
        readonly double _span;
        readonly double[] _at;
        readonly double[] _key;
        long _added;

        /// <summary>A window of at most <paramref name="capacity"/> samples spanning <paramref name="span"/>.</summary>
        public WindowMin(int capacity, double span)
        {
            _span = span;
            _at = new double[capacity];
            _key = new double[capacity];
        }

        /// <summary>Adds a sample at <paramref name="at"/> (not before the previous) and recomputes the minimum.</summary>
        public void Add(double at, double key)
        {
            int capacity = _at.Length;
            long held = Math.Min(++_added, capacity);
            int slot = (int)((_added - 1) % capacity);
            _at[slot] = at;
            _key[slot] = key;
            Min = double.PositiveInfinity;
            for (long k = 0; k < held && at - _at[slot] <= _span; k++)
            {
                if (_key[slot] < Min)
                {
                    Min = _key[slot];
                    MinAt = _at[slot];
                }
                slot = (slot + capacity - 1) % capacity;
            }
        }

        /// <summary>Moves every sample by <paramref name="dAt"/> and its key by <paramref name="dKey"/>.</summary>
        public void Shift(double dAt, double dKey)
        {
            long held = Math.Min(_added, _at.Length);
            for (int i = 0; i < held; i++)
            {
                _at[i] += dAt;
                _key[i] += dKey;
            }
            if (held > 0)
            {
                Min += dKey;
                MinAt += dAt;
            }
        }

        /// <summary>Empties the window.</summary>
        public void Clear()
        {
            _added = 0;
            MinAt = 0;
            Min = double.PositiveInfinity;
        }
    }

    /// <summary>
    /// NTP-style offset estimation against the room's clock (packages/client clockSync.ts): the
    /// lowest-RTT sample of the last 8 gives the target offset, and the applied offset slews toward
    /// it at 10 ms per second (stepping at once past 1 s, or during the first 4 samples), so
    /// <c>ServerNow</c> never jumps or runs backwards. <c>RoomTime</c> counts the room
    /// time frames are stamped with. A connection given one (<c>ConnectOptions.Clock</c>) pings in a
    /// burst after each welcome and feeds it every round trip.
    /// </summary>
    public sealed class ClockSync
    {
        /// <summary>Samples kept for best-sample selection.</summary>
        public const int Window = 8;
        /// <summary>Fastest slew (ms per ms).</summary>
        public const double SlewMsPerMs = 0.01;
        /// <summary>A gap this large (ms) is stepped, not slewed.</summary>
        public const double StepMs = 1000;
        /// <summary>Clock pings right after each welcome.</summary>
        public const int PingBurst = 3;

        readonly int _warmup;
        readonly Func<double> _now;
        readonly WindowMin _best = new WindowMin(Window, Window - 1);
        readonly double[] _offsets = new double[Window];
        double _target, _from, _since, _srtt, _epoch;
        int _samples;

        /// <summary>A clock; <paramref name="now"/> is the local monotonic clock in ms (default <see cref="LocalClock.Now"/>).</summary>
        public ClockSync(int warmupSamples = 1 + PingBurst, Func<double>? now = null)
        {
            _warmup = Math.Max(1, warmupSamples);
            _now = now ?? LocalClock.Now;
        }

        /// <summary>True once a sample arrived.</summary>
        public bool Synced => _samples > 0;
        /// <summary>Samples since construction or <see cref="Reset"/>.</summary>
        public int SampleCount => _samples;
        /// <summary>Smoothed round trip (ms).</summary>
        public double RttMs => _srtt;
        /// <summary>Lowest round trip in the window (ms).</summary>
        public double MinRttMs => Synced ? _best.Min : 0;

        /// <summary>Applied offset (server − local, ms) at local time <paramref name="localNow"/>.</summary>
        public double OffsetAt(double localNow) => LocalClock.Approach(_from, _target, Math.Max(0, localNow - _since) * SlewMsPerMs);

        /// <summary>Estimated server clock (epoch ms) now.</summary>
        public double ServerNow() => ServerNow(_now());
        /// <summary>Estimated server clock at local time <paramref name="localNow"/>.</summary>
        public double ServerNow(double localNow) => localNow + OffsetAt(localNow);
        /// <summary>Estimated room time (ms since the room epoch) now.</summary>
        public double RoomTime() => ServerNow() - _epoch;
        /// <summary>Estimated room time at local time <paramref name="localNow"/>.</summary>
        public double RoomTime(double localNow) => ServerNow(localNow) - _epoch;

        /// <summary>Adds a ping sample: sent at local <paramref name="t0"/>, answered with <paramref name="serverTime"/>, received at <paramref name="t1"/>.</summary>
        public bool AddSample(double t0, double serverTime, double t1)
        {
            double rtt = t1 - t0;
            if (double.IsNaN(rtt) || double.IsInfinity(rtt) || double.IsNaN(serverTime) || double.IsInfinity(serverTime) || rtt < 0) return false;
            double at = Math.Max(t1, _since);
            _from = OffsetAt(at);
            _since = at;
            int n = _samples++;
            _offsets[n % Window] = serverTime - (t0 + rtt / 2);
            _best.Add(n, rtt);
            _srtt = n == 0 ? rtt : _srtt + (rtt - _srtt) / 8;
            _target = _offsets[(int)_best.MinAt % Window];
            if (_samples <= _warmup || Math.Abs(_target - _from) > StepMs)
            {
                _from = _target;
                _since = t1;
            }
            return true;
        }

        /// <summary>Forgets every sample and counts room time from <paramref name="roomEpoch"/>.</summary>
        public void Reset(double roomEpoch = 0)
        {
            _best.Clear();
            _samples = 0;
            _from = _since = _srtt = _target = 0;
            _epoch = roomEpoch;
        }
    }
}
