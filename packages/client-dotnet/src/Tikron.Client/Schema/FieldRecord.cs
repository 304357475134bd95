using System;
using System.Collections.Generic;
using Tikron.Client.Protocol;

namespace Tikron.Client.Schema
{
    /// <summary>
    /// The decoded fields of one entity or event: scalars as their quantized integers (read back
    /// dequantized through the getters), strings, and maps. Generated game types wrap it in typed
    /// properties.
    /// </summary>
    public class FieldRecord
    {
        /// <summary>The type (entity type or event kind) the record is of.</summary>
        public FieldSet Type { get; }
        /// <summary>Quantized scalars by field index (the base the next update's differences apply to).</summary>
        internal readonly int[] Q;
        internal readonly string?[]? S;
        internal readonly Dictionary<int, int>?[]? M;

        /// <summary>An empty record of <paramref name="type"/>.</summary>
        protected FieldRecord(FieldSet type)
        {
            Type = type;
            Q = new int[type.Fields.Count];
            if (type.HasStrings) S = new string?[type.Fields.Count];
            if (type.HasMaps) M = new Dictionary<int, int>?[type.Fields.Count];
        }

        /// <summary>The type's name.</summary>
        public string TypeName => Type.Name;

        /// <summary>A scalar field's value (a boolean as 1 or 0).</summary>
        public double GetNumber(int field) => Type.Fields[field].Field.Dequantize(Q[field]);
        /// <summary>A boolean field's value.</summary>
        public bool GetBool(int field) => Q[field] != 0;
        /// <summary>A varuint field's value.</summary>
        public uint GetUInt(int field) => (uint)Q[field];
        /// <summary>An integer field's value (u8, u16, varint).</summary>
        public int GetInt(int field) => Q[field];
        /// <summary>A string field's value.</summary>
        public string GetString(int field) => S?[field] ?? "";
        /// <summary>A map field: its keys and dequantized values (live; do not keep across frames if you need a snapshot).</summary>
        public MapView GetMap(int field) => new MapView(Type.Fields[field].Field.Value!, M?[field]);

        /// <summary>Field <paramref name="name"/>'s index, or an exception naming it.</summary>
        public int IndexOf(string name)
        {
            int i = Type.FieldIndex(name);
            return i >= 0 ? i : throw new KeyNotFoundException($"{Type.Name} has no field {name}");
        }

        /// <summary>A scalar field's value by name.</summary>
        public double this[string name] => GetNumber(IndexOf(name));

        /// <summary>Sets a scalar field to <paramref name="value"/> quantized as the room quantizes it (clamped; NaN to the minimum).</summary>
        public void SetNumber(int field, double value) => Q[field] = Type.Fields[field].Field.Quantize(value);

        /// <summary>Sets a boolean field.</summary>
        public void SetBool(int field, bool value) => Q[field] = value ? 1 : 0;

        /// <summary>Sets a string field, cut to its length (never inside a surrogate pair), lone surrogates as U+FFFD.</summary>
        public void SetString(int field, string value)
        {
            int max = Type.Fields[field].Field.MaxLen;
            if (value.Length > max) value = value.Substring(0, char.IsHighSurrogate(value[max - 1]) ? max - 1 : max);
            var sb = new System.Text.StringBuilder(value.Length);
            for (int i = 0; i < value.Length; i++)
            {
                char c = value[i];
                if (char.IsHighSurrogate(c) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1])) sb.Append(c).Append(value[++i]);
                else sb.Append(char.IsSurrogate(c) ? '\ufffd' : c);
            }
            S![field] = sb.ToString();
        }
    }

    /// <summary>A map field's current keys and values (dequantized), read-only.</summary>
    public readonly struct MapView
    {
        readonly Field _value;
        readonly Dictionary<int, int>? _map;

        internal MapView(Field value, Dictionary<int, int>? map)
        {
            _value = value;
            _map = map;
        }

        /// <summary>Number of keys.</summary>
        public int Count => _map?.Count ?? 0;

        /// <summary>The keys.</summary>
        public IEnumerable<int> Keys => _map?.Keys ?? (IEnumerable<int>)Array.Empty<int>();

        /// <summary>The value at <paramref name="key"/>, if present.</summary>
        public bool TryGet(int key, out double value)
        {
            if (_map != null && _map.TryGetValue(key, out int q))
            {
                value = _value.Dequantize(q);
                return true;
            }
            value = 0;
            return false;
        }

        /// <summary>The value at <paramref name="key"/>, or 0 when absent.</summary>
        public double this[int key] => TryGet(key, out double v) ? v : 0;
    }
}
