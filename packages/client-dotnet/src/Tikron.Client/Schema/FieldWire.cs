using Tikron.Client.Protocol;

namespace Tikron.Client.Schema
{
    /// <summary>
    /// How one field's value is read off the wire (packages/protocol schema/fieldWire.ts): whole on
    /// an enter or in an event, as a difference on an update. Every read refuses a value its field
    /// cannot hold with a <see cref="DecodeException"/>.
    /// </summary>
    static class FieldWire
    {
        /// <summary>A scalar written whole: fixed-width kinds one byte up to 256 levels else two; quant and varuint LEB128; varint zigzag.</summary>
        public static int ReadScalarFull(ref WireReader r, Field f)
        {
            switch (f.Code)
            {
                case FieldCode.VarInt: return r.VarInt();
                case FieldCode.VarUint: return unchecked((int)r.VarUint());
                case FieldCode.Quant: return Level(r.VarUint(), f);
                default: return Level(f.Levels <= 256 ? r.U8() : (uint)r.U16(), f);
            }
        }

        /// <summary>A scalar written as a difference from <paramref name="baseValue"/>.</summary>
        public static int ReadScalarDelta(ref WireReader r, Field f, int baseValue)
        {
            switch (f.Code)
            {
                case FieldCode.U8:
                case FieldCode.Bool:
                    return ReadScalarFull(ref r, f);
                case FieldCode.Angle:
                    return (baseValue + r.VarInt()) & (int)(f.Levels - 1);
                case FieldCode.VarInt:
                case FieldCode.VarUint:
                    return unchecked(baseValue + r.VarInt());
                default:
                {
                    long q = (long)baseValue + r.VarInt();
                    if (q < 0 || q >= f.Levels) throw new DecodeException("bad_value", $"level {q}/{f.Levels}");
                    return (int)q;
                }
            }
        }

        /// <summary>A quantized number inside an event: one byte up to 256 levels, two from 16,385 to 65,536, else as whole.</summary>
        public static int ReadEventScalar(ref WireReader r, Field f)
        {
            bool two = f.Levels > 16384 && f.Levels <= 65536;
            if (f.Code != FieldCode.Quant || !(f.Levels <= 256 || two)) return ReadScalarFull(ref r, f);
            uint q = f.Levels <= 256 ? r.U8() : (uint)r.U16();
            return Level(q, f);
        }

        /// <summary>A string field, at most its declared length.</summary>
        public static string ReadString(ref WireReader r, Field f)
        {
            string s = r.String(f.MaxLen * 3);
            if (s.Length > f.MaxLen) throw new DecodeException("bad_value", $"long_string {s.Length}>{f.MaxLen}");
            return s;
        }

        /// <summary>A map key (0..2^31-1).</summary>
        public static int ReadMapKey(ref WireReader r)
        {
            uint k = r.VarUint();
            if (k > 0x7fffffff) throw new DecodeException("bad_value", $"map_key {k}");
            return (int)k;
        }

        static int Level(uint q, Field f)
        {
            if (q >= f.Levels) throw new DecodeException("bad_value", $"level {q}/{f.Levels}");
            return (int)q;
        }
    }
}
