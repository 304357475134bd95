using System;
using System.Collections.Generic;

namespace Tikron.Client.Json
{
    /// <summary>
    /// Conversions between <see cref="JsonValue"/> and C# values, as generated game types use them
    /// (<c>FromJson</c>, <c>ToJson</c>): lenient reads (a missing or mistyped value reads as its
    /// default, as a JavaScript page would read <c>undefined</c>), exact writes.
    /// </summary>
    public static class JsonConvert
    {
        /// <summary>True for a missing value or the JSON null.</summary>
        public static bool IsNull(JsonValue? v) => v == null || v.Kind == JsonKind.Null;
        /// <summary>A number, or 0.</summary>
        public static double Num(JsonValue? v) => v != null && v.Kind == JsonKind.Number ? v.AsNumber : 0;
        /// <summary>A string, or "".</summary>
        public static string Str(JsonValue? v) => v != null && v.Kind == JsonKind.String ? v.AsString : "";
        /// <summary>A boolean, or false.</summary>
        public static bool Bool(JsonValue? v) => v != null && v.Kind == JsonKind.Bool && v.AsBool;
        /// <summary>Any value (the JSON null when missing).</summary>
        public static JsonValue Any(JsonValue? v) => v ?? JsonValue.Null;

        /// <summary>An array's items converted by <paramref name="item"/> (empty when not an array).</summary>
        public static List<T> List<T>(JsonValue? v, Func<JsonValue, T> item)
        {
            var list = new List<T>();
            if (v != null && v.Kind == JsonKind.Array) foreach (var x in v.Items) list.Add(item(x));
            return list;
        }

        /// <summary>An object's members converted by <paramref name="item"/> (empty when not an object).</summary>
        public static Dictionary<string, T> Dict<T>(JsonValue? v, Func<JsonValue, T> item)
        {
            var dict = new Dictionary<string, T>();
            if (v != null && v.Kind == JsonKind.Object) foreach (var m in v.Members) dict[m.Key] = item(m.Value);
            return dict;
        }

        /// <summary>A JSON array of <paramref name="items"/>.</summary>
        public static JsonValue FromList<T>(IEnumerable<T>? items, Func<T, JsonValue> item)
        {
            var a = JsonValue.NewArray();
            if (items != null) foreach (var x in items) a.Add(item(x));
            return a;
        }

        /// <summary>A JSON object of <paramref name="dict"/>'s entries.</summary>
        public static JsonValue FromDict<T>(IDictionary<string, T>? dict, Func<T, JsonValue> item)
        {
            var o = JsonValue.NewObject();
            if (dict != null) foreach (var kv in dict) o.Set(kv.Key, item(kv.Value));
            return o;
        }
    }
}
