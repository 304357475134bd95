using System;
using System.Globalization;
using System.Text;

namespace Tikron.Client.Json
{
    /// <summary>Strict JSON text to <see cref="JsonValue"/> (what <c>JSON.parse</c> accepts, nesting bounded).</summary>
    static class JsonParser
    {
        /// <summary>Deepest nesting accepted: a hostile text cannot exhaust the stack.</summary>
        const int MaxDepth = 128;

        public static JsonValue Parse(string text)
        {
            int i = 0;
            var v = Value(text, ref i, 0);
            SkipSpace(text, ref i);
            if (i != text.Length) throw Fail(i, "trailing text");
            return v;
        }

        static FormatException Fail(int at, string what) => new FormatException($"bad JSON at {at}: {what}");

        static void SkipSpace(string s, ref int i)
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
        }

        static JsonValue Value(string s, ref int i, int depth)
        {
            if (depth > MaxDepth) throw Fail(i, "too deep");
            SkipSpace(s, ref i);
            if (i >= s.Length) throw Fail(i, "unexpected end");
            char c = s[i];
            switch (c)
            {
                case '{':
                {
                    i++;
                    var o = JsonValue.NewObject();
                    SkipSpace(s, ref i);
                    if (i < s.Length && s[i] == '}')
                    {
                        i++;
                        return o;
                    }
                    while (true)
                    {
                        SkipSpace(s, ref i);
                        if (i >= s.Length || s[i] != '"') throw Fail(i, "expected a key");
                        string key = Str(s, ref i);
                        SkipSpace(s, ref i);
                        if (i >= s.Length || s[i] != ':') throw Fail(i, "expected :");
                        i++;
                        o.Set(key, Value(s, ref i, depth + 1));
                        SkipSpace(s, ref i);
                        if (i < s.Length && s[i] == ',') { i++; continue; }
                        if (i < s.Length && s[i] == '}') { i++; return o; }
                        throw Fail(i, "expected , or }");
                    }
                }
                case '[':
                {
                    i++;
                    var a = JsonValue.NewArray();
                    SkipSpace(s, ref i);
                    if (i < s.Length && s[i] == ']')
                    {
                        i++;
                        return a;
                    }
                    while (true)
                    {
                        a.Add(Value(s, ref i, depth + 1));
                        SkipSpace(s, ref i);
                        if (i < s.Length && s[i] == ',') { i++; continue; }
                        if (i < s.Length && s[i] == ']') { i++; return a; }
                        throw Fail(i, "expected , or ]");
                    }
                }
                case '"':
                    return JsonValue.From(Str(s, ref i));
                case 't':
                    Word(s, ref i, "true");
                    return JsonValue.True;
                case 'f':
                    Word(s, ref i, "false");
                    return JsonValue.False;
                case 'n':
                    Word(s, ref i, "null");
                    return JsonValue.Null;
                default:
                    return JsonValue.From(Number(s, ref i));
            }
        }

        static void Word(string s, ref int i, string word)
        {
            if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) throw Fail(i, "unknown word");
            i += word.Length;
        }

        static double Number(string s, ref int i)
        {
            int start = i;
            if (i < s.Length && s[i] == '-') i++;
            if (i < s.Length && s[i] == '0') i++;
            else if (i < s.Length && s[i] >= '1' && s[i] <= '9') while (i < s.Length && char.IsDigit(s[i])) i++;
            else throw Fail(i, "bad number");
            if (i < s.Length && s[i] == '.')
            {
                i++;
                if (i >= s.Length || !char.IsDigit(s[i])) throw Fail(i, "bad fraction");
                while (i < s.Length && char.IsDigit(s[i])) i++;
            }
            if (i < s.Length && (s[i] == 'e' || s[i] == 'E'))
            {
                i++;
                if (i < s.Length && (s[i] == '+' || s[i] == '-')) i++;
                if (i >= s.Length || !char.IsDigit(s[i])) throw Fail(i, "bad exponent");
                while (i < s.Length && char.IsDigit(s[i])) i++;
            }
            return double.Parse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture);
        }

        static string Str(string s, ref int i)
        {
            i++; // the opening quote
            StringBuilder? sb = null;
            int runStart = i;
            while (true)
            {
                if (i >= s.Length) throw Fail(i, "unterminated string");
                char c = s[i];
                if (c == '"')
                {
                    string tail = s.Substring(runStart, i - runStart);
                    i++;
                    return sb == null ? tail : sb.Append(tail).ToString();
                }
                if (c < 0x20) throw Fail(i, "control character in string");
                if (c != '\\')
                {
                    i++;
                    continue;
                }
                sb ??= new StringBuilder();
                sb.Append(s, runStart, i - runStart);
                if (i + 1 >= s.Length) throw Fail(i, "bad escape");
                char e = s[i + 1];
                i += 2;
                switch (e)
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        if (i + 4 > s.Length || !ushort.TryParse(s.Substring(i, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ushort u)) throw Fail(i, "bad \\u escape");
                        sb.Append((char)u);
                        i += 4;
                        break;
                    default: throw Fail(i, "bad escape");
                }
                runStart = i;
            }
        }
    }

    /// <summary>JSON text as <c>JSON.stringify</c> writes it (compact; lone surrogates escaped).</summary>
    public static class JsonWriter
    {
        /// <summary>Appends <paramref name="v"/> as JSON text.</summary>
        public static void Write(StringBuilder sb, JsonValue v)
        {
            switch (v.Kind)
            {
                case JsonKind.Null: sb.Append("null"); break;
                case JsonKind.Bool: sb.Append(v.AsBool ? "true" : "false"); break;
                case JsonKind.Number: sb.Append(JsonValue.FormatNumber(v.AsNumber)); break;
                case JsonKind.String: Quote(sb, v.AsString); break;
                case JsonKind.Array:
                    sb.Append('[');
                    for (int i = 0; i < v.Count; i++)
                    {
                        if (i > 0) sb.Append(',');
                        Write(sb, v[i]);
                    }
                    sb.Append(']');
                    break;
                default:
                    sb.Append('{');
                    bool first = true;
                    foreach (var m in v.Members)
                    {
                        if (!first) sb.Append(',');
                        first = false;
                        Quote(sb, m.Key);
                        sb.Append(':');
                        Write(sb, m.Value);
                    }
                    sb.Append('}');
                    break;
            }
        }

        /// <summary>Appends <paramref name="s"/> as a JSON string literal.</summary>
        public static void Quote(StringBuilder sb, string s)
        {
            sb.Append('"');
            for (int i = 0; i < s.Length; i++)
            {
                char c = s[i];
                switch (c)
                {
                    case '"': sb.Append("\\\""); continue;
                    case '\\': sb.Append("\\\\"); continue;
                    case '\b': sb.Append("\\b"); continue;
                    case '\f': sb.Append("\\f"); continue;
                    case '\n': sb.Append("\\n"); continue;
                    case '\r': sb.Append("\\r"); continue;
                    case '\t': sb.Append("\\t"); continue;
                }
                bool lone = char.IsSurrogate(c) && !(char.IsHighSurrogate(c) && i + 1 < s.Length && char.IsLowSurrogate(s[i + 1])) && !(char.IsLowSurrogate(c) && i > 0 && char.IsHighSurrogate(s[i - 1]));
                if (c < 0x20 || lone) sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                else sb.Append(c);
            }
            sb.Append('"');
        }
    }
}
