using System;
using System.Collections.Generic;
using System.Globalization;

namespace Tikron.Client.Json
{
    /// <summary>The kind of a <see cref="JsonValue"/>.</summary>
    public enum JsonKind
    {
        /// <summary>null</summary>
        Null,
        /// <summary>true or false</summary>
        Bool,
        /// <summary>a number (a double, as JavaScript holds it)</summary>
        Number,
        /// <summary>a string</summary>
        String,
        /// <summary>an array</summary>
        Array,
        /// <summary>an object (keys kept in insertion order)</summary>
        Object,
    }

    /// <summary>
    /// One JSON value: what the JSON dialect, room messages, notices and the matchmaker carry. The
    /// SDK's own small JSON (parse: <see cref="JsonValue.Parse"/>, write: <see cref="ToString"/>), so the
    /// library needs no package the engines do not ship. Numbers are doubles and print as
    /// JavaScript's <c>JSON.stringify</c> prints them.
    /// </summary>
    public sealed class JsonValue
    {
        /// <summary>The JSON null.</summary>
        public static readonly JsonValue Null = new JsonValue(JsonKind.Null, 0, null, null, null);
        /// <summary>The JSON true.</summary>
        public static readonly JsonValue True = new JsonValue(JsonKind.Bool, 1, null, null, null);
        /// <summary>The JSON false.</summary>
        public static readonly JsonValue False = new JsonValue(JsonKind.Bool, 0, null, null, null);

        readonly double _number;
        readonly string? _string;
        readonly List<JsonValue>? _items;
        readonly List<KeyValuePair<string, JsonValue>>? _members;
        Dictionary<string, int>? _index;

        JsonValue(JsonKind kind, double number, string? s, List<JsonValue>? items, List<KeyValuePair<string, JsonValue>>? members)
        {
            Kind = kind;
            _number = number;
            _string = s;
            _items = items;
            _members = members;
        }

        /// <summary>What this value is.</summary>
        public JsonKind Kind { get; }

        /// <summary>A number.</summary>
        public static JsonValue From(double v) => new JsonValue(JsonKind.Number, v, null, null, null);
        /// <summary>A string (null gives the JSON null).</summary>
        public static JsonValue From(string? v) => v == null ? Null : new JsonValue(JsonKind.String, 0, v, null, null);
        /// <summary>A boolean.</summary>
        public static JsonValue From(bool v) => v ? True : False;
        /// <summary>A new empty array.</summary>
        public static JsonValue NewArray() => new JsonValue(JsonKind.Array, 0, null, new List<JsonValue>(), null);
        /// <summary>A new empty object.</summary>
        public static JsonValue NewObject() => new JsonValue(JsonKind.Object, 0, null, null, new List<KeyValuePair<string, JsonValue>>());

        /// <summary>Implicit conversion from a number.</summary>
        public static implicit operator JsonValue(double v) => From(v);
        /// <summary>Implicit conversion from a string.</summary>
        public static implicit operator JsonValue(string? v) => From(v);
        /// <summary>Implicit conversion from a boolean.</summary>
        public static implicit operator JsonValue(bool v) => From(v);

        /// <summary>True for the JSON null.</summary>
        public bool IsNull => Kind == JsonKind.Null;

        /// <summary>The number (throws unless a number).</summary>
        public double AsNumber => Kind == JsonKind.Number ? _number : throw new InvalidOperationException($"JSON {Kind} is not a number");
        /// <summary>The boolean (throws unless true or false).</summary>
        public bool AsBool => Kind == JsonKind.Bool ? _number != 0 : throw new InvalidOperationException($"JSON {Kind} is not a boolean");
        /// <summary>The string (throws unless a string).</summary>
        public string AsString => Kind == JsonKind.String ? _string! : throw new InvalidOperationException($"JSON {Kind} is not a string");
        /// <summary>The items of an array (throws unless an array).</summary>
        public IReadOnlyList<JsonValue> Items => _items ?? throw new InvalidOperationException($"JSON {Kind} is not an array");
        /// <summary>The members of an object in insertion order (throws unless an object).</summary>
        public IReadOnlyList<KeyValuePair<string, JsonValue>> Members => _members ?? throw new InvalidOperationException($"JSON {Kind} is not an object");

        /// <summary>Number of items (array) or members (object); 0 otherwise.</summary>
        public int Count => _items?.Count ?? _members?.Count ?? 0;

        /// <summary>Item <paramref name="i"/> of an array.</summary>
        public JsonValue this[int i] => Items[i];

        /// <summary>Member <paramref name="key"/> of an object, or null (C#) when absent or not an object.</summary>
        public JsonValue? this[string key] => Get(key);

        /// <summary>Member <paramref name="key"/> of an object, or null (C#) when absent or not an object.</summary>
        public JsonValue? Get(string key)
        {
            if (_members == null) return null;
            if (_index == null)
            {
                _index = new Dictionary<string, int>(_members.Count);
                for (int i = 0; i < _members.Count; i++) _index[_members[i].Key] = i;
            }
            return _index.TryGetValue(key, out int at) ? _members[at].Value : null;
        }

        /// <summary>Appends an item to an array; returns this array.</summary>
        public JsonValue Add(JsonValue item)
        {
            (_items ?? throw new InvalidOperationException("not an array")).Add(item);
            return this;
        }

        /// <summary>Sets member <paramref name="key"/> of an object (replacing an earlier value in place); returns this object.</summary>
        public JsonValue Set(string key, JsonValue value)
        {
            var members = _members ?? throw new InvalidOperationException("not an object");
            var existing = Get(key);
            if (existing != null)
            {
                members[_index![key]] = new KeyValuePair<string, JsonValue>(key, value);
                return this;
            }
            members.Add(new KeyValuePair<string, JsonValue>(key, value));
            _index![key] = members.Count - 1;
            return this;
        }

        /// <summary>Parses JSON text (strict, as <c>JSON.parse</c>); throws <see cref="FormatException"/> on bad text.</summary>
        public static JsonValue Parse(string text) => JsonParser.Parse(text);

        /// <summary>The value as compact JSON text, as <c>JSON.stringify</c> writes it.</summary>
        public override string ToString()
        {
            var sb = new System.Text.StringBuilder();
            JsonWriter.Write(sb, this);
            return sb.ToString();
        }

        /// <summary>Deep equality (numbers by value; object members by key, in any order).</summary>
        public bool DeepEquals(JsonValue other)
        {
            if (Kind != other.Kind) return false;
            switch (Kind)
            {
                case JsonKind.Null: return true;
                case JsonKind.Bool:
                case JsonKind.Number: return _number.Equals(other._number);
                case JsonKind.String: return _string == other._string;
                case JsonKind.Array:
                    if (_items!.Count != other._items!.Count) return false;
                    for (int i = 0; i < _items.Count; i++) if (!_items[i].DeepEquals(other._items[i])) return false;
                    return true;
                default:
                    if (_members!.Count != other._members!.Count) return false;
                    foreach (var m in _members)
                    {
                        var o = other.Get(m.Key);
                        if (o == null || !m.Value.DeepEquals(o)) return false;
                    }
                    return true;
            }
        }

        /// <summary>A double as JavaScript prints it (shortest round trip; exponent past 1e21 and below 1e-6).</summary>
        public static string FormatNumber(double v)
        {
            if (double.IsNaN(v) || double.IsInfinity(v)) return "null";
            if (v == 0) return "0";
            string r = v.ToString("R", CultureInfo.InvariantCulture);
            bool negative = r[0] == '-';
            if (negative) r = r.Substring(1);
            // Split .NET's form (digits, optional point, optional E±exp) into digits and exponent n:
            // value = 0.d1d2...dk × 10^n.
            int e = r.IndexOfAny(new[] { 'E', 'e' });
            int exp = e < 0 ? 0 : int.Parse(r.Substring(e + 1), CultureInfo.InvariantCulture);
            string mantissa = e < 0 ? r : r.Substring(0, e);
            int dot = mantissa.IndexOf('.');
            string digits = dot < 0 ? mantissa : mantissa.Remove(dot, 1);
            int intLen = dot < 0 ? mantissa.Length : dot;
            int lead = 0;
            while (lead < digits.Length - 1 && digits[lead] == '0') lead++;
            digits = digits.Substring(lead);
            int n = intLen - lead + exp;
            digits = digits.TrimEnd('0');
            if (digits.Length == 0) return "0";
            int k = digits.Length;
            string s;
            if (k <= n && n <= 21) s = digits + new string('0', n - k);
            else if (0 < n && n <= 21) s = digits.Substring(0, n) + "." + digits.Substring(n);
            else if (-6 < n && n <= 0) s = "0." + new string('0', -n) + digits;
            else
            {
                int e10 = n - 1;
                string sign = e10 < 0 ? "-" : "+";
                s = (k == 1 ? digits : digits.Substring(0, 1) + "." + digits.Substring(1)) + "e" + sign + Math.Abs(e10).ToString(CultureInfo.InvariantCulture);
            }
            return negative ? "-" + s : s;
        }
    }
}
