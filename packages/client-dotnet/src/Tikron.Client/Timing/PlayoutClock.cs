using System;

namespace Tikron.Client.Timing
{
    /// <summary>Tunables of a <see cref="SnapshotBuffer"/>'s render clock.</summary>
    public class PlayoutOptions
    {
        /// <summary>Server send interval (ms); a starvation grows the delay by this. Default 50.</summary>
        public double SendIntervalMs = 50;
        /// <summary>Lower edge of the delay band (ms). Default 60.</summary>
        public double MinDelayMs = 60;
        /// <summary>Upper edge of the delay band (ms). Default 200.</summary>
        public double MaxDelayMs = 200;
        /// <summary>Delay before any feedback (ms); default two send intervals.</summary>
        public double? InitialDelayMs;
        /// <summary>Local monotonic clock (ms). Default <see cref="LocalClock.Now"/>.</summary>
        public Func<double>? Now;
    }

    /// <summary>
    /// The render clock of snapshot interpolation (packages/client playoutClock.ts): render time
    /// is <c>localNow − baseline − delay</c>, the baseline the earliest arrival offset in a 10 s
    /// window; each starvation grows the delay by one send interval, a stable link shrinks it slowly
    /// but never below the worst recent need.
    /// </summary>
    public abstract class PlayoutClock
    {
        /// <summary>Render time may run this far past a "nothing changed" snapshot before it starves (ms).</summary>
        public const double QuietHoldMs = 1000;
        const double StableMs = 3000, ShrinkMsPerMs = 0.005, JitterWindowMs = 10_000, HeadroomMs = 5;
        const double GrowMsPerMs = 0.5, BaseSlewMsPerMs = 0.05, TimelineResetMs = 1000;
        const int ArrivalCapacity = 1024;

        readonly double _minDelay, _maxDelay;
        readonly double? _initialDelayOption;
        readonly Func<double> _now;
        readonly WindowMin _earliest = new WindowMin(ArrivalCapacity, JitterWindowMs);
        readonly WindowMin _worst = new WindowMin(ArrivalCapacity, JitterWindowMs);
        double _sendInterval = 50, _latest = double.NegativeInfinity, _base, _delay, _delayTarget;
        double _lastUpdate = double.NaN, _lastRender = double.NegativeInfinity, _lastStarveAt = double.NegativeInfinity;
        bool _quiet, _rebased, _starved;
        int _starvations;

        /// <summary>A clock with <paramref name="o"/>'s tunables.</summary>
        protected PlayoutClock(PlayoutOptions o)
        {
            _minDelay = o.MinDelayMs;
            _maxDelay = Math.Max(_minDelay, o.MaxDelayMs);
            _initialDelayOption = o.InitialDelayMs;
            _now = o.Now ?? LocalClock.Now;
            SetSendInterval(o.SendIntervalMs);
        }

        /// <summary>Current interpolation delay (ms).</summary>
        public double DelayMs => _delay;
        /// <summary>Starvations so far.</summary>
        public int Starvations => _starvations;
        /// <summary>True while render time is past the newest snapshot.</summary>
        public bool Starved => _starved;
        /// <summary>Server time of the newest snapshot (-∞ before the first).</summary>
        public double LatestTime => _latest;
        /// <summary>Render time of the last <see cref="Update()"/> (-∞ before any snapshot).</summary>
        public double RenderTime => _lastRender;
        /// <summary>Lowest delay the clock would shrink to now (ms).</summary>
        public double FloorDelayMs => Clamp(HeadroomMs - _worst.Min - _earliest.Min);
        /// <summary>Server time render time passes by the next update: entities gone before it can be let go.</summary>
        protected double PassedTime => Math.Max(_lastRender, _latest - _maxDelay - TimelineResetMs);
        /// <summary>True from a rebase until the next snapshot.</summary>
        protected bool RebasePending => _rebased;
        /// <summary>The send interval (ms).</summary>
        public double SendIntervalMs => _sendInterval;

        /// <summary>Sets the room's send interval (from a welcome or a CADENCE).</summary>
        public void SetSendInterval(double ms)
        {
            bool longer = ms > _sendInterval;
            if (ms > 0) _sendInterval = ms;
            if (double.IsNegativeInfinity(_latest) && _starvations == 0) _delay = _delayTarget = Clamp(_initialDelayOption ?? 2 * _sendInterval);
            else if (longer) _delayTarget = Clamp(Math.Max(_delayTarget, 2 * ms));
        }

        /// <summary>Advances the render clock to now; returns render time (room ms).</summary>
        public double Update() => Update(_now());

        /// <summary>Advances the render clock to local time <paramref name="localNow"/> (once per render frame); returns render time.</summary>
        public double Update(double localNow)
        {
            if (double.IsNaN(localNow) || double.IsInfinity(localNow)) return _lastRender;
            double dt = Math.Max(0, localNow - _lastUpdate);
            if (double.IsNaN(dt)) dt = 0;
            _lastUpdate = localNow;
            if (double.IsNegativeInfinity(_latest)) return _lastRender;
            _base = LocalClock.Approach(_base, _earliest.Min, dt * BaseSlewMsPerMs);
            if (!_starved && localNow - _lastStarveAt >= StableMs) _delayTarget = Math.Min(_delayTarget, FloorDelayMs);
            _delay = LocalClock.Approach(_delay, _delayTarget, dt * (_delay < _delayTarget ? GrowMsPerMs : ShrinkMsPerMs));
            double renderTime = _lastRender = Math.Max(_lastRender, localNow - _base - _delay);
            bool starving = renderTime > _latest + (_quiet ? QuietHoldMs : 0);
            if (starving && !_starved)
            {
                _starvations++;
                _delayTarget = Clamp(Math.Max(_delayTarget, _delay) + _sendInterval);
            }
            if (starving || _starved) _lastStarveAt = localNow;
            _starved = starving;
            return renderTime;
        }

        /// <summary>Re-expresses the timeline in a clock <paramref name="deltaMs"/> later (a room restart).</summary>
        protected void RebaseTimeline(double deltaMs)
        {
            _rebased = !double.IsNegativeInfinity(_latest);
            _latest -= deltaMs;
            _lastRender -= deltaMs;
            _base += deltaMs;
            _earliest.Shift(-deltaMs, deltaMs);
            _worst.Shift(-deltaMs, -deltaMs);
        }

        /// <summary>Forgets the timeline (the delay and starvations stay).</summary>
        protected void ResetTimeline()
        {
            _latest = double.NegativeInfinity;
            _quiet = _rebased = _starved = false;
            _lastRender = double.NegativeInfinity;
            _lastUpdate = double.NaN;
        }

        /// <summary>Records a snapshot's arrival; false for one not newer than the newest.</summary>
        protected bool RecordArrival(double serverTime, double? receivedAtOrNull, bool changed)
        {
            double receivedAt = receivedAtOrNull ?? _now();
            if (!(serverTime > _latest && Math.Abs(receivedAt - serverTime) < double.PositiveInfinity)) return false;
            double offset = receivedAt - serverTime;
            bool restart = double.IsNegativeInfinity(_latest) || _rebased || offset < _base - TimelineResetMs;
            _rebased = false;
            if (restart)
            {
                _earliest.Clear();
                _worst.Clear();
                _base = offset;
                _lastStarveAt = receivedAt;
            }
            double need = (restart ? _sendInterval : serverTime - _latest) + offset;
            _latest = serverTime;
            _quiet = !changed;
            _earliest.Add(serverTime, offset);
            _worst.Add(serverTime, need - _earliest.Min > 2 * _maxDelay ? double.PositiveInfinity : -need);
            return true;
        }

        double Clamp(double delay) => Math.Min(_maxDelay, Math.Max(_minDelay, delay));
    }
}
