using System;
using System.Collections.Generic;
using System.Text;
using Tikron.Client.Protocol;

namespace Tikron.Client.Schema
{
    /// <summary>One declared event kind.</summary>
    public sealed class EventKind : FieldSet
    {
        /// <summary>Event kind <paramref name="name"/> with its fields (no maps; no field called <c>kind</c>).</summary>
        public EventKind(string name, int index, IReadOnlyList<(string Name, Field Field)> fields) : base(name, index, fields)
        {
            foreach (var f in fields)
            {
                if (f.Name == "kind") throw new ArgumentException($"event {name}: a field may not be called kind");
                if (f.Field.Code == FieldCode.Map) throw new ArgumentException($"event {name}.{f.Name}: events carry scalars and strings, not maps");
            }
        }
    }

    /// <summary>One decoded declared event: its kind and its fields.</summary>
    public sealed class DeclaredEvent : FieldRecord
    {
        internal DeclaredEvent(EventKind kind) : base(kind) { }

        /// <summary>The event's kind.</summary>
        public EventKind Kind => (EventKind)Type;
    }

    /// <summary>
    /// A room's declared events (TypeScript <c>defineEvents</c>): a body is <c>u8 kind index</c> then the
    /// kind's fields in declaration order.
    /// </summary>
    public sealed class EventSchema
    {
        /// <summary>The kinds, in declaration order (wire tags 0, 1, …).</summary>
        public IReadOnlyList<EventKind> Kinds { get; }
        /// <summary>Canonical text of the declaration, part of the schema hash.</summary>
        public string Descriptor { get; }

        /// <summary>Events of <paramref name="kinds"/> (name and fields, in order).</summary>
        public EventSchema(IReadOnlyList<(string Name, (string Name, Field Field)[] Fields)> kinds)
        {
            if (kinds.Count < 1 || kinds.Count > 256) throw new ArgumentOutOfRangeException(nameof(kinds), "1..256 event kinds");
            var list = new EventKind[kinds.Count];
            var d = new StringBuilder();
            for (int i = 0; i < kinds.Count; i++)
            {
                list[i] = new EventKind(kinds[i].Name, i, kinds[i].Fields);
                if (i > 0) d.Append('|');
                d.Append(list[i].Text());
            }
            Kinds = list;
            Descriptor = d.ToString();
        }

        /// <summary>
        /// Decodes one event body. Throws a <see cref="DecodeException"/> for a body that is truncated,
        /// names no declared kind, holds a value its field cannot, or has bytes left over.
        /// </summary>
        public DeclaredEvent Decode(byte[] buffer, int offset, int length)
        {
            var r = new WireReader(buffer, offset, offset + length);
            int tag = r.U8();
            if (tag >= Kinds.Count) throw new DecodeException("unknown_kind", $"event_kind {tag}");
            var kind = Kinds[tag];
            var e = new DeclaredEvent(kind);
            foreach (var fi in kind.Fields)
            {
                if (fi.Field.Code == FieldCode.String) e.S![fi.Index] = FieldWire.ReadString(ref r, fi.Field);
                else e.Q[fi.Index] = FieldWire.ReadEventScalar(ref r, fi.Field);
            }
            r.ExpectEnd();
            return e;
        }

        /// <summary>Decodes one event body held whole in <paramref name="body"/>.</summary>
        public DeclaredEvent Decode(byte[] body) => Decode(body, 0, body.Length);
    }
}
