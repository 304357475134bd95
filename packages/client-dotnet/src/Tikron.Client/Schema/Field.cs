using System;
using Tikron.Client.Json;

namespace Tikron.Client.Schema
{
    /// <summary>Field kinds, numbered as on the wire (numeric scalars first).</summary>
    public enum FieldCode
    {
        /// <summary>A number quantized to a step within [min, max].</summary>
        Quant = 0,
        /// <summary>An angle in 2^bits steps per turn.</summary>
        Angle = 1,
        /// <summary>An unsigned byte.</summary>
        U8 = 2,
        /// <summary>An unsigned 16-bit integer.</summary>
        U16 = 3,
        /// <summary>An unsigned 32-bit integer, LEB128.</summary>
        VarUint = 4,
        /// <summary>A signed 32-bit integer, zigzag LEB128.</summary>
        VarInt = 5,
        /// <summary>A boolean (one byte).</summary>
        Bool = 6,
        /// <summary>A string of bounded length (UTF-16 units).</summary>
        String = 7,
        /// <summary>A map from integer keys to a scalar.</summary>
        Map = 8,
        /// <summary>A 32-bit float within [min, max], sent whole: declared inputs only.</summary>
        F32 = 9,
        /// <summary>A 64-bit float within [min, max], sent whole: declared inputs only.</summary>
        F64 = 10,
    }

    /// <summary>
    /// One declared field, as packages/protocol's <c>Field</c>: its kind, parameters and the canonical
    /// text the schema hash is built from. Build with the static factories, which mirror the
    /// TypeScript DSL (<c>quant</c>, <c>quantAngle</c>, <c>u8</c>, <c>u16</c>, <c>varuint</c>, <c>varint</c>,
    /// <c>bool</c>, <c>string</c>, <c>map</c>, and for declared inputs <c>f32</c>, <c>f64</c>).
    /// </summary>
    public sealed class Field
    {
        /// <summary>The field kind.</summary>
        public FieldCode Code { get; }
        /// <summary>Canonical declaration text, e.g. <c>quant(0,8192,0.0625)</c>.</summary>
        public string Descriptor { get; }
        /// <summary>quant, f32, f64: lower bound.</summary>
        public double Min { get; }
        /// <summary>quant, f32, f64: upper bound (inclusive).</summary>
        public double Max { get; }
        /// <summary>quant: step; angle: radians per level; integers: 1.</summary>
        public double Step { get; }
        /// <summary>Levels of quant, angle, u8, u16, bool (0: unbounded 32-bit).</summary>
        public long Levels { get; }
        /// <summary>string: max length in UTF-16 units; map: max keys.</summary>
        public int MaxLen { get; }
        /// <summary>map: the value field.</summary>
        public Field? Value { get; }

        Field(FieldCode code, string descriptor, double min, double max, double step, long levels, int maxLen = 0, Field? value = null)
        {
            Code = code;
            Descriptor = descriptor;
            Min = min;
            Max = max;
            Step = step;
            Levels = levels;
            MaxLen = maxLen;
            Value = value;
        }

        /// <summary>True for fields held as one quantized integer (all but string, map and the input-only floats).</summary>
        public bool IsScalar => Code < FieldCode.String;

        static string N(double v) => JsonValue.FormatNumber(v);

        /// <summary>A number in [min, max] sent as a count of steps from min.</summary>
        public static Field Quant(double min, double max, double step)
        {
            string d = $"quant({N(min)},{N(max)},{N(step)})";
            double levels = Math.Floor((max - min) / step + 1e-6) + 1;
            if (!(min > double.NegativeInfinity && max > min && max < double.PositiveInfinity && step > 0 && step < double.PositiveInfinity && levels <= 0x7fffffff))
                throw new ArgumentOutOfRangeException(nameof(step), d + ": needs finite min < max, finite step > 0, at most 2^31 levels");
            return new Field(FieldCode.Quant, d, min, max, step, (long)levels);
        }

        /// <summary>An angle in radians, wrapped to [0, 2π), sent in <paramref name="bits"/> bits (1..16).</summary>
        public static Field QuantAngle(int bits)
        {
            if (bits < 1 || bits > 16) throw new ArgumentOutOfRangeException(nameof(bits));
            long levels = 1L << bits;
            return new Field(FieldCode.Angle, $"angle({bits})", 0, 2 * Math.PI, 2 * Math.PI / levels, levels);
        }

        /// <summary>An integer 0..255.</summary>
        public static Field U8() => new Field(FieldCode.U8, "u8", 0, 255, 1, 256);
        /// <summary>An integer 0..65535.</summary>
        public static Field U16() => new Field(FieldCode.U16, "u16", 0, 65535, 1, 65536);
        /// <summary>An integer 0..2^32-1 in 1-5 bytes.</summary>
        public static Field VarUint() => new Field(FieldCode.VarUint, "varuint", 0, 0xffffffff, 1, 0);
        /// <summary>An integer -2^31..2^31-1 in 1-5 bytes.</summary>
        public static Field VarInt() => new Field(FieldCode.VarInt, "varint", -0x80000000L, 0x7fffffff, 1, 0);
        /// <summary>A boolean.</summary>
        public static Field Bool() => new Field(FieldCode.Bool, "bool", 0, 1, 1, 2);

        /// <summary>
        /// A number sent whole as a 32-bit float, for declared inputs only: a sender clamps it into
        /// [min, max], a room refuses NaN, ±Infinity and anything outside. Both bounds must be exact
        /// 32-bit floats.
        /// </summary>
        public static Field F32(double min, double max) => Float(FieldCode.F32, "f32", min, max, (double)(float)min == min && (double)(float)max == max);

        /// <summary>A number sent whole as a 64-bit float within [min, max], for declared inputs only.</summary>
        public static Field F64(double min, double max) => Float(FieldCode.F64, "f64", min, max, true);

        static Field Float(FieldCode code, string name, double min, double max, bool exact)
        {
            string d = $"{name}({N(min)},{N(max)})";
            if (!(min > double.NegativeInfinity && max > min && max < double.PositiveInfinity && exact))
                throw new ArgumentOutOfRangeException(nameof(max), d + ": needs finite min < max" + (exact ? "" : ", both exact 32-bit floats"));
            return new Field(code, d, min, max, 0, 0);
        }

        /// <summary>A string of at most <paramref name="maxLen"/> UTF-16 units.</summary>
        public static Field String(int maxLen)
        {
            if (maxLen < 1 || maxLen > 65535) throw new ArgumentOutOfRangeException(nameof(maxLen));
            return new Field(FieldCode.String, $"string({maxLen})", 0, 0, 0, 0, maxLen);
        }

        /// <summary>A map from integer keys (0..2^31-1) to a scalar field's values, at most <paramref name="maxKeys"/> keys.</summary>
        public static Field Map(Field value, int maxKeys = 1024)
        {
            if (!value.IsScalar) throw new ArgumentException("map values must be a scalar field", nameof(value));
            if (maxKeys < 1 || maxKeys > 65535) throw new ArgumentOutOfRangeException(nameof(maxKeys));
            return new Field(FieldCode.Map, $"map({value.Descriptor},{maxKeys})", 0, 0, 0, 0, maxKeys, value);
        }

        /// <summary>
        /// The number a client sees for quantized integer <paramref name="q"/> (booleans as 1 or 0; a
        /// varuint as its unsigned value): the same double the TypeScript decoder computes.
        /// </summary>
        public double Dequantize(int q)
        {
            switch (Code)
            {
                case FieldCode.Quant:
                {
                    double x = Min + q * Step;
                    return x > Max ? Max : x;
                }
                case FieldCode.Angle: return q * Step;
                case FieldCode.Bool: return q != 0 ? 1 : 0;
                case FieldCode.VarUint: return (uint)q;
                default: return q;
            }
        }

        /// <summary>
        /// A value quantized as the room quantizes it (out-of-range values clamp, NaN goes to the
        /// minimum): for encoding a declared event, or predicting what a client will decode.
        /// </summary>
        public int Quantize(double x)
        {
            switch (Code)
            {
                case FieldCode.Quant:
                {
                    if (!(x > Min)) return 0;
                    if (x >= Max) return (int)(Levels - 1);
                    double q = JsRound((x - Min) / Step);
                    return q >= Levels ? (int)(Levels - 1) : (int)q;
                }
                case FieldCode.Angle:
                {
                    if (double.IsNaN(x) || double.IsInfinity(x)) return 0;
                    double t = x / (2 * Math.PI);
                    t -= Math.Floor(t);
                    double q = JsRound(t * Levels);
                    return q >= Levels ? 0 : (int)q;
                }
                case FieldCode.Bool: return x != 0 && !double.IsNaN(x) ? 1 : 0;
                case FieldCode.U8:
                case FieldCode.U16:
                case FieldCode.VarUint:
                case FieldCode.VarInt:
                {
                    double r = JsRound(x);
                    if (!(r > Min)) return unchecked((int)(long)Min);
                    if (r >= Max) return unchecked((int)(long)Max);
                    return unchecked((int)(long)r);
                }
                default: throw new InvalidOperationException($"field {Descriptor} is not a scalar");
            }
        }

        /// <summary>JavaScript's Math.round: halves go up.</summary>
        static double JsRound(double x) => Math.Floor(x + 0.5);
    }
}
