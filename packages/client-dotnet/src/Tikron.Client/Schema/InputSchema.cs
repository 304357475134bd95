using System;
using System.Collections.Generic;
using System.Text;
using Tikron.Client.Protocol;

namespace Tikron.Client.Schema
{
    /// <summary>One declared input kind; an untagged declaration has one, named "".</summary>
    public sealed class InputKind : FieldSet
    {
        /// <summary>Input kind <paramref name="name"/> with its fields (numbers and booleans).</summary>
        public InputKind(string name, int index, IReadOnlyList<(string Name, Field Field)> fields) : base(name, index, fields)
        {
            foreach (var f in fields)
            {
                var c = f.Field.Code;
                if (c == FieldCode.String || c == FieldCode.Map) throw new ArgumentException($"input {Label(name, f.Name)}: inputs carry numbers and booleans, not strings or maps");
            }
        }

        /// <summary><c>dx</c>, or <c>move.dx</c> with kinds: how errors name a field, as the room's refusals do.</summary>
        public static string Label(string kind, string field) => kind.Length == 0 ? field : kind + "." + field;
    }

    /// <summary>
    /// A room's declared inputs (TypeScript <c>defineInput</c> / <c>defineInputs</c>): what a client
    /// sends, written as the TypeScript SDK writes it (docs/protocol.md, "Declared inputs"). With kinds
    /// a payload starts with <c>u8 kind index</c>; then every field whole, in declaration order.
    /// Generated game types build one and give their input classes an <c>Encode</c> that calls
    /// <see cref="Encode"/>.
    /// </summary>
    public sealed class InputSchema
    {
        /// <summary>The kinds, in declaration order (wire tags 0, 1, …); one named "" when untagged.</summary>
        public IReadOnlyList<InputKind> Kinds { get; }
        /// <summary>True when a payload starts with its kind's tag (<c>defineInputs</c>).</summary>
        public bool Tagged { get; }
        /// <summary>Canonical text of the declaration, part of the schema hash.</summary>
        public string Descriptor { get; }

        /// <summary>
        /// Inputs of <paramref name="kinds"/> (name and fields, in order): tagged (<c>defineInputs</c>), or
        /// one set of fields named "" (<c>defineInput</c>).
        /// </summary>
        public InputSchema(IReadOnlyList<(string Name, (string Name, Field Field)[] Fields)> kinds, bool tagged)
        {
            if (kinds.Count < 1 || kinds.Count > 256 || (!tagged && kinds.Count != 1)) throw new ArgumentOutOfRangeException(nameof(kinds), "1..256 input kinds; one set of fields when untagged");
            var list = new InputKind[kinds.Count];
            var d = new StringBuilder();
            for (int i = 0; i < kinds.Count; i++)
            {
                if (tagged && kinds[i].Name.Length == 0) throw new ArgumentException("input kinds need names");
                list[i] = new InputKind(kinds[i].Name, i, kinds[i].Fields);
                if (tagged && list[i].FieldIndex("kind") >= 0) throw new ArgumentException($"input {kinds[i].Name}: a field may not be called kind");
                if (i > 0) d.Append('|');
                d.Append(list[i].Text());
            }
            Kinds = list;
            Tagged = tagged;
            Descriptor = d.ToString();
        }

        /// <summary>
        /// Writes one input of kind <paramref name="kind"/> (its index; 0 when untagged) with its fields'
        /// <paramref name="values"/> in declaration order (a boolean as 1 or 0), on <paramref name="w"/>
        /// (reset first), and returns the bytes. Finite values out of a field's range are clamped, and
        /// rounded to its step as the room quantizes them.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">A number that is not finite (the field named), or an undeclared kind.</exception>
        /// <exception cref="ArgumentException">Not one value per field.</exception>
        public byte[] Encode(WireWriter w, int kind, params double[] values)
        {
            if (kind < 0 || kind >= Kinds.Count) throw new ArgumentOutOfRangeException(nameof(kind), $"input kind {kind} is not declared");
            var k = Kinds[kind];
            if (values.Length != k.Fields.Count) throw new ArgumentException($"input {k.Name}: {k.Fields.Count} values, got {values.Length}", nameof(values));
            w.Reset();
            if (Tagged) w.U8(k.Index);
            foreach (var fi in k.Fields)
            {
                var f = fi.Field;
                double v = values[fi.Index];
                if (f.Code != FieldCode.Bool && (double.IsNaN(v) || double.IsInfinity(v)))
                    throw new ArgumentOutOfRangeException(nameof(values), $"input {InputKind.Label(k.Name, fi.Name)}: {(double.IsNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity")} is not a finite number");
                switch (f.Code)
                {
                    case FieldCode.F32: w.F32((float)Clamp(v, f)); break;
                    case FieldCode.F64: w.F64(Clamp(v, f)); break;
                    case FieldCode.Quant:
                    {
                        int q = f.Quantize(v);
                        if (f.Levels <= 256) w.U8(q);
                        else if (f.Levels > 16384 && f.Levels <= 65536) w.U16(q);
                        else w.VarUint((uint)q);
                        break;
                    }
                    case FieldCode.Angle:
                        if (f.Levels <= 256) w.U8(f.Quantize(v));
                        else w.U16(f.Quantize(v));
                        break;
                    case FieldCode.U8:
                    case FieldCode.Bool: w.U8(f.Quantize(v)); break;
                    case FieldCode.U16: w.U16(f.Quantize(v)); break;
                    case FieldCode.VarInt: w.VarInt(f.Quantize(v)); break;
                    default: w.VarUint(unchecked((uint)f.Quantize(v))); break;
                }
            }
            return w.ToArray();
        }

        /// <summary>Within range a float goes as it is; outside, the nearer bound.</summary>
        static double Clamp(double v, Field f) => v < f.Min ? f.Min : v > f.Max ? f.Max : v;
    }
}
