using System;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;

namespace Tikron.Client.Timing
{
    /// <summary>
    /// Remote entities of a binary room, smoothed for drawing (packages/client interpolatedView.ts):
    /// each state frame's view goes into a <see cref="SnapshotBuffer"/>, and each render frame reads
    /// it back a little in the past. The buffer follows the connection: the room's send interval
    /// from each welcome and CADENCE, and a room restart (a new epoch) carried over without a gap.
    /// </summary>
    public sealed class InterpolatedView : IDisposable
    {
        readonly RoomConnection _room;
        readonly Func<ViewEntity, double[], bool> _collect;
        readonly double[] _values;
        double _epoch = double.NaN;

        /// <summary>The buffer behind the view (delay, starvations).</summary>
        public SnapshotBuffer Buffer { get; }

        /// <summary>
        /// Interpolates the entities of <paramref name="room"/>'s <see cref="RoomConnection.View"/>:
        /// <paramref name="collect"/> writes an entity's fields into the array (in <paramref name="fields"/>
        /// order) and returns true to interpolate it, false to leave it out (e.g. the own avatar).
        /// </summary>
        public InterpolatedView(RoomConnection room, Interp[] fields, Func<ViewEntity, double[], bool> collect, PlayoutOptions? options = null)
        {
            _room = room;
            _collect = collect;
            _values = new double[fields.Length];
            Buffer = new SnapshotBuffer(fields, options);
            if (room.Welcome != null) Follow(room.Welcome);
            room.Welcomed += OnWelcome;
            room.Cadence += OnCadence;
            room.State += OnState;
        }

        void Follow(WelcomeMessage w)
        {
            _epoch = w.RoomEpoch;
            if (w.SyncIntervalMs > 0) Buffer.SetSendInterval(w.SyncIntervalMs);
        }

        void OnWelcome(WelcomeMessage w)
        {
            if (!double.IsNaN(_epoch) && w.RoomEpoch != _epoch) Buffer.Rebase(w.RoomEpoch - _epoch);
            Follow(w);
        }

        void OnCadence(CadenceMessage c) => Buffer.SetSendInterval(c.SyncIntervalMs);

        void OnState(StateEvent f)
        {
            var view = _room.View;
            if (view == null || !Buffer.BeginSnapshot(f.Time, f.ReceivedAt, f.Changed)) return;
            foreach (var e in view.Entities) if (_collect(e, _values)) Buffer.SetEntity(e.Id, _values);
            Buffer.EndSnapshot();
        }

        /// <summary>Advances the render clock (once per render frame, before reading); returns render time (room ms).</summary>
        public double Update() => Buffer.Update();

        /// <summary>Advances the render clock to local time <paramref name="localNow"/> (ms).</summary>
        public double Update(double localNow) => Buffer.Update(localNow);

        /// <summary>Calls <paramref name="fn"/> for every entity with a value at the render time (values: a reused scratch array).</summary>
        public void ForEach(Action<int, double[], SampleKind> fn) => Buffer.ForEach(Buffer.RenderTime, fn);

        /// <summary>One entity's fields at the render time into <paramref name="output"/>.</summary>
        public SampleKind Sample(int id, double[] output) => Buffer.Sample(id, Buffer.RenderTime, output);

        /// <summary>Stops following the connection.</summary>
        public void Dispose()
        {
            _room.Welcomed -= OnWelcome;
            _room.Cadence -= OnCadence;
            _room.State -= OnState;
        }
    }
}
