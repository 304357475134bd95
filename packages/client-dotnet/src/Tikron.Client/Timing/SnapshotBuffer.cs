using System;
using System.Collections.Generic;

namespace Tikron.Client.Timing
{
    /// <summary>How a field blends between snapshots.</summary>
    public enum Interp
    {
        /// <summary>Straight-line interpolation, velocity extrapolation.</summary>
        Linear,
        /// <summary>Like linear, the short way round a circle of 2π.</summary>
        Angle,
        /// <summary>No blending: the older snapshot's value.</summary>
        Step,
    }

    /// <summary>What a sample did to produce its value.</summary>
    public enum SampleKind
    {
        /// <summary>No value (unknown, not yet spawned, or gone).</summary>
        None = 0,
        /// <summary>Blended between two snapshots, or exactly at one.</summary>
        Interpolated = 1,
        /// <summary>Past the newest snapshot, along the last velocity.</summary>
        Extrapolated = 2,
        /// <summary>Past the extrapolation cap: frozen.</summary>
        Held = 3,
    }

    /// <summary>
    /// Snapshot interpolation for remote entities (packages/client snapshotBuffer.ts and
    /// entityTrack.ts): feed every state frame (<see cref="BeginSnapshot"/>, <see cref="SetEntity"/>
    /// per entity, <see cref="EndSnapshot"/>), then once per render frame <see cref="PlayoutClock.Update()"/>
    /// and <see cref="Sample"/> or <see cref="ForEach"/> at the render time. Nothing on the render
    /// path allocates. <see cref="InterpolatedView"/> does the feeding from a connection.
    /// </summary>
    public sealed class SnapshotBuffer : PlayoutClock
    {
        /// <summary>Snapshots kept per entity.</summary>
        public const int History = 32;
        readonly Interp[] _interp;
        readonly double _maxExtrapolation;
        readonly Dictionary<int, Track> _tracks = new Dictionary<int, Track>();
        readonly Stack<Track> _pool = new Stack<Track>();
        readonly List<int> _gone = new List<int>();
        readonly double[] _scratch;
        bool _accepting;

        /// <summary>A buffer of entities with <paramref name="fields"/> (their blend rules, in value order).</summary>
        public SnapshotBuffer(Interp[] fields, PlayoutOptions? options = null, double maxExtrapolationMs = 50) : base(options ?? new PlayoutOptions())
        {
            _interp = fields;
            _maxExtrapolation = maxExtrapolationMs;
            _scratch = new double[fields.Length];
        }

        /// <summary>Entities tracked.</summary>
        public int Count => _tracks.Count;

        /// <summary>Starts the snapshot of server time <paramref name="serverTime"/> (room ms); false (and the entities ignored) for one not newer than the newest.</summary>
        public bool BeginSnapshot(double serverTime, double? receivedAt = null, bool changed = true)
        {
            if (RebasePending && !(serverTime > LatestTime)) Clear();
            return _accepting = RecordArrival(serverTime, receivedAt, changed);
        }

        /// <summary>Records one entity of the current snapshot (values copied).</summary>
        public void SetEntity(int id, double[] values)
        {
            if (!_accepting) return;
            if (!_tracks.TryGetValue(id, out var t))
            {
                t = _pool.Count > 0 ? _pool.Pop() : new Track(_interp, _maxExtrapolation);
                _tracks[id] = t;
            }
            else if (t.GoneAt < double.PositiveInfinity) t.Clear();
            t.Push(LatestTime, values);
        }

        /// <summary>Ends the snapshot: entities not set in it are gone from its time on.</summary>
        public void EndSnapshot()
        {
            if (!_accepting) return;
            _accepting = false;
            double latest = LatestTime, passed = PassedTime;
            _gone.Clear();
            foreach (var kv in _tracks)
            {
                var t = kv.Value;
                if (double.IsPositiveInfinity(t.GoneAt) && t.LastTime < latest) t.GoneAt = latest;
                if (t.GoneAt <= passed) _gone.Add(kv.Key);
            }
            foreach (int id in _gone) Release(id);
        }

        /// <summary>The entity's fields at <paramref name="renderTime"/> into <paramref name="output"/>; what it did.</summary>
        public SampleKind Sample(int id, double renderTime, double[] output) =>
            _tracks.TryGetValue(id, out var t) ? t.Sample(renderTime, output) : SampleKind.None;

        /// <summary>Calls <paramref name="fn"/> for each entity with a value at <paramref name="renderTime"/> (values: a reused scratch array).</summary>
        public void ForEach(double renderTime, Action<int, double[], SampleKind> fn)
        {
            foreach (var kv in _tracks)
            {
                var kind = kv.Value.Sample(renderTime, _scratch);
                if (kind != SampleKind.None) fn(kv.Key, _scratch, kind);
            }
        }

        /// <summary>Drops every entity and the timeline.</summary>
        public void Clear()
        {
            foreach (var t in _tracks.Values)
            {
                t.Clear();
                _pool.Push(t);
            }
            _tracks.Clear();
            ResetTimeline();
            _accepting = false;
        }

        /// <summary>Carries the buffer across a room restart whose epoch is <paramref name="deltaMs"/> after the old one.</summary>
        public void Rebase(double deltaMs)
        {
            if (!(deltaMs >= 0 && deltaMs < double.PositiveInfinity))
            {
                Clear();
                return;
            }
            RebaseTimeline(deltaMs);
            foreach (var t in _tracks.Values) t.Rebase(-deltaMs);
        }

        void Release(int id)
        {
            var t = _tracks[id];
            t.Clear();
            _pool.Push(t);
            _tracks.Remove(id);
        }

        sealed class Track
        {
            public double LastTime, GoneAt = double.PositiveInfinity;
            readonly double[] _times = new double[History];
            readonly double[] _values;
            readonly Interp[] _interp;
            readonly double _maxExtrapolation;
            int _pushes, _break;

            public Track(Interp[] interp, double maxExtrapolation)
            {
                _interp = interp;
                _maxExtrapolation = maxExtrapolation;
                _values = new double[History * interp.Length];
            }

            public void Clear()
            {
                _pushes = _break = 0;
                GoneAt = double.PositiveInfinity;
            }

            public void Rebase(double dt)
            {
                for (int i = Math.Min(_pushes, History) - 1; i >= 0; i--) _times[i] += dt;
                LastTime += dt;
                GoneAt += dt;
                _break = _pushes;
            }

            public void Push(double time, double[] values)
            {
                int n = _interp.Length, slot = _pushes++ % History;
                _times[slot] = LastTime = time;
                Array.Copy(values, 0, _values, slot * n, n);
            }

            public SampleKind Sample(double t, double[] output)
            {
                int newest = _pushes - 1, oldest = Math.Max(0, _pushes - History);
                if (newest < 0 || !(t > double.NegativeInfinity) || t >= GoneAt) return SampleKind.None;
                int k = newest;
                while (k > oldest && _times[k % History] > t) k--;
                double tk = _times[k % History];
                if (t < tk)
                {
                    if (oldest == 0) return SampleKind.None;
                    Blend(output, k, k, 0);
                    return SampleKind.Held;
                }
                if (k < newest)
                {
                    if (k + 1 == _break)
                    {
                        Blend(output, k, k, 0);
                        return SampleKind.Held;
                    }
                    Blend(output, k, k, (t - tk) / (_times[(k + 1) % History] - tk));
                    return SampleKind.Interpolated;
                }
                double dt = t - tk;
                bool moving = dt > 0 && k > oldest && double.IsPositiveInfinity(GoneAt) && k != _break;
                double span = moving ? tk - _times[(k - 1) % History] : 0;
                Blend(output, k, k - 1, span > 0 ? Math.Min(dt, _maxExtrapolation) / span : 0);
                return dt == 0 ? SampleKind.Interpolated : moving && dt <= _maxExtrapolation ? SampleKind.Extrapolated : SampleKind.Held;
            }

            void Blend(double[] output, int baseIndex, int from, double alpha)
            {
                int n = _interp.Length;
                int at = (baseIndex % History) * n, a = (((from % History) + History) % History) * n, b = ((from + 1) % History) * n;
                for (int f = 0; f < n; f++)
                {
                    if (alpha == 0)
                    {
                        output[f] = _values[at + f];
                        continue;
                    }
                    double va = _values[a + f], vb = _values[b + f], d;
                    switch (_interp[f])
                    {
                        case Interp.Step: d = 0; break;
                        case Interp.Angle:
                        {
                            const double period = 2 * Math.PI;
                            double x = (vb - va) % period;
                            d = x - period * Math.Floor(x / period + 0.5); // JavaScript's Math.round
                            break;
                        }
                        default: d = vb - va; break;
                    }
                    output[f] = _values[at + f] + d * alpha;
                }
            }
        }
    }
}
