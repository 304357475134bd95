using System;
using System.Collections.Generic;
using Tikron.Client.Protocol;

namespace Tikron.Client.Schema
{
    /// <summary>One entity in view: its wire id, its type and its decoded fields (updated in place).</summary>
    public sealed class ViewEntity : FieldRecord
    {
        internal readonly int Body;

        internal ViewEntity(int id, EntityType type, int body) : base(type)
        {
            Id = id;
            Body = body;
        }

        /// <summary>The entity's wire id (reused after a leave).</summary>
        public int Id { get; }

        /// <summary>Its entity type.</summary>
        public EntityType EntityType => (EntityType)Type;
    }

    /// <summary>
    /// The client half of state sync (packages/protocol delta/clientView.ts): applies the stream of
    /// delta bodies one client receives and holds the entities it can see. A body is
    /// <c>[u8 sections][leaves][enters][updates]</c>, each present section a varuint count then items
    /// that start with an entity id (docs/protocol.md, "Delta body"). A body that fails to decode
    /// throws; the view then refuses further bodies until <see cref="Clear"/> (a fresh join). Change
    /// callbacks run once a body applied whole: removes, then adds, then field changes, in wire order.
    /// </summary>
    public sealed class ClientView
    {
        readonly Dictionary<int, ViewEntity> _entities = new Dictionary<int, ViewEntity>();
        readonly List<ViewEntity> _left = new List<ViewEntity>();
        readonly List<ViewEntity> _entered = new List<ViewEntity>();
        readonly List<(ViewEntity Entity, FieldInfo Field)> _changes = new List<(ViewEntity, FieldInfo)>();
        DecodeException? _failure;
        int _body;

        /// <summary>A view of <paramref name="schema"/>'s entities.</summary>
        public ClientView(EntitySchema schema) { Schema = schema; }

        /// <summary>The schema bodies are decoded with.</summary>
        public EntitySchema Schema { get; }

        /// <summary>An entity entered the view (spawned, came into range, or back after a reconnect).</summary>
        public event Action<ViewEntity>? Added;
        /// <summary>An entity left the view (and every entity on <see cref="Clear"/>).</summary>
        public event Action<ViewEntity>? Removed;
        /// <summary>A field of an entity in view changed (not on enter; see <see cref="Added"/>).</summary>
        public event Action<ViewEntity, FieldInfo>? Changed;

        /// <summary>Entities in view.</summary>
        public int Count => _entities.Count;

        /// <summary>Every entity in view.</summary>
        public IEnumerable<ViewEntity> Entities => _entities.Values;

        /// <summary>The entity with wire id <paramref name="id"/>, or null.</summary>
        public ViewEntity? Get(int id) => _entities.TryGetValue(id, out var e) ? e : null;

        /// <summary>Forgets everything (a new connection) and accepts bodies again after a failure.</summary>
        public void Clear()
        {
            var removed = Removed;
            if (removed != null) foreach (var e in _entities.Values) removed(e);
            _entities.Clear();
            _failure = null;
        }

        /// <summary>Applies the delta body in <paramref name="buffer"/>[offset, offset+length).</summary>
        /// <exception cref="DecodeException">The body is malformed, or an earlier one was.</exception>
        public void Apply(byte[] buffer, int offset, int length)
        {
            if (_failure != null) throw _failure;
            _left.Clear();
            _entered.Clear();
            _changes.Clear();
            _body++;
            try
            {
                var r = new WireReader(buffer, offset, offset + length);
                Decode(ref r);
            }
            catch (Exception e)
            {
                _changes.Clear();
                foreach (var x in _entered) _entities.Remove(x.Id);
                foreach (var x in _left) _entities[x.Id] = x;
                _failure = e as DecodeException ?? new DecodeException("bad_value", "unexpected " + e.Message);
                throw _failure;
            }
            var removed = Removed;
            if (removed != null) foreach (var e in _left) removed(e);
            var added = Added;
            if (added != null) foreach (var e in _entered) added(e);
            var changed = Changed;
            if (changed != null) foreach (var c in _changes) changed(c.Entity, c.Field);
            _changes.Clear();
        }

        void Decode(ref WireReader r)
        {
            int sections = r.U8();
            if (sections == 0 || sections > 7) throw new DecodeException("bad_value", $"sections {sections}");
            for (int section = DeltaSection.Leaves; section <= DeltaSection.Updates; section <<= 1)
            {
                if ((sections & section) == 0) continue;
                uint n = r.VarUint();
                if (n == 0) throw new DecodeException("bad_value", "empty_section");
                for (uint i = 0; i < n; i++)
                {
                    uint id = r.VarUint();
                    if (id > Wire.MaxEntityId) throw new DecodeException("bad_value", $"entity_id {id}");
                    if (section == DeltaSection.Enters)
                    {
                        Enter(ref r, (int)id);
                        continue;
                    }
                    if (!_entities.TryGetValue((int)id, out var e) || e.Body == _body) throw new DecodeException("bad_value", $"no_entity {id}");
                    if (section == DeltaSection.Updates) Update(ref r, e);
                    else
                    {
                        _entities.Remove((int)id);
                        _left.Add(e);
                    }
                }
            }
            r.ExpectEnd();
        }

        void Enter(ref WireReader r, int id)
        {
            uint typeIndex = r.VarUint();
            if (typeIndex >= Schema.Types.Count) throw new DecodeException("bad_value", $"entity_type {typeIndex}");
            var e = new ViewEntity(id, Schema.Types[(int)typeIndex], _body);
            foreach (var fi in e.Type.Fields) ReadField(ref r, e, fi, true);
            if (_entities.TryGetValue(id, out var prev))
            {
                if (prev.Body == _body) throw new DecodeException("bad_value", $"entered_twice {id}");
                _left.Add(prev);
            }
            _entities[id] = e;
            _entered.Add(e);
        }

        void Update(ref WireReader r, ViewEntity e)
        {
            var type = e.EntityType;
            int mask = unchecked((int)r.VarUint());
            if (mask == 0 || (mask & ~type.AllMask) != 0) throw new DecodeException("bad_value", $"mask {(uint)mask}");
            bool report = Changed != null;
            foreach (var fi in type.Fields)
            {
                if ((mask & (1 << fi.Index)) == 0) continue;
                ReadField(ref r, e, fi, false);
                if (report) _changes.Add((e, fi));
            }
        }

        static void ReadField(ref WireReader r, ViewEntity e, FieldInfo fi, bool whole)
        {
            var f = fi.Field;
            if (f.Code == FieldCode.String) e.S![fi.Index] = FieldWire.ReadString(ref r, f);
            else if (f.Code == FieldCode.Map)
            {
                if (whole) e.M![fi.Index] = new Dictionary<int, int>();
                ReadMap(ref r, f, e.M![fi.Index]!, whole);
            }
            else e.Q[fi.Index] = whole ? FieldWire.ReadScalarFull(ref r, f) : FieldWire.ReadScalarDelta(ref r, f, e.Q[fi.Index]);
        }

        static void ReadMap(ref WireReader r, Field f, Dictionary<int, int> m, bool whole)
        {
            if (!whole)
            {
                uint header = r.VarUint();
                uint removed = header >> 1;
                if ((header & 1) != 0)
                {
                    if (removed != 0) throw new DecodeException("bad_value", "map_reset");
                    m.Clear();
                }
                for (uint i = 0; i < removed; i++) m.Remove(FieldWire.ReadMapKey(ref r));
            }
            uint n = r.VarUint();
            var value = f.Value!;
            for (uint i = 0; i < n; i++)
            {
                int key = FieldWire.ReadMapKey(ref r);
                m[key] = FieldWire.ReadScalarFull(ref r, value);
            }
            if (whole && n != m.Count) throw new DecodeException("bad_value", "map_key_twice");
            if (m.Count > f.MaxLen) throw new DecodeException("too_large", $"long_map {m.Count}>{f.MaxLen}");
        }
    }
}
