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

        /// <summary>An event of kind <paramref name="kind"/> with every field at its minimum, to fill with the setters and <see cref="Encode"/>.</summary>
        public DeclaredEvent Create(string kind)
        {
            foreach (var k in Kinds) if (k.Name == kind) return new DeclaredEvent(k);
            throw new ArgumentException($"event kind {kind} is not declared");
        }

        /// <summary>
        /// Writes one event body as the room writes it (TypeScript <c>writeEvent</c>): the kind's tag, then
        /// every field whole, quant fields in one byte up to 256 levels, two from 16,385 to 65,536, else
        /// a varuint. Returns the bytes.
        /// </summary>
        public byte[] Encode(WireWriter w, DeclaredEvent e)
        {
            w.Reset().U8(e.Kind.Index);
            foreach (var fi in e.Kind.Fields)
            {
                var f = fi.Field;
                int q = e.Q[fi.Index];
                switch (f.Code)
                {
                    case FieldCode.String: w.String(e.S![fi.Index] ?? ""); break;
                    case FieldCode.Quant:
                        if (f.Levels <= 256) w.U8(q);
                        else if (f.Levels > 16384 && f.Levels <= 65536) w.U16(q);
                        else w.VarUint((uint)q);
                        break;
                    case FieldCode.U8:
                    case FieldCode.Bool: w.U8(q); break;
                    case FieldCode.U16: w.U16(q); break;
                    case FieldCode.Angle:
                        if (f.Levels <= 256) w.U8(q);
                        else w.U16(q);
                        break;
                    case FieldCode.VarInt: w.VarInt(q); break;
                    default: w.VarUint(unchecked((uint)q)); break;
                }
            }
            return w.ToArray();
        }

        /// <summary>Decodes one event body held whole in <paramref name="body"/>.</summary>
        public DeclaredEvent Decode(byte[] body) => Decode(body, 0, body.Length);
    }
}
