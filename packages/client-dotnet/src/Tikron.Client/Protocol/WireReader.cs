using System;
using System.Text;

namespace Tikron.Client.Protocol
{
    /// <summary>
    /// Bounds-checked little-endian reader over a byte range: every read past the end throws a
    /// <see cref="DecodeException"/> (<c>truncated</c>). Strings are a varuint byte length then UTF-8,
    /// refused when not valid UTF-8; varuints are LEB128 of at most 32 bits (5 bytes).
    /// </summary>
    public struct WireReader
    {
        static readonly UTF8Encoding StrictUtf8 = new UTF8Encoding(false, true);
        readonly byte[] _buf;

        /// <summary>Read position.</summary>
        public int Offset;
        /// <summary>End of the readable range (exclusive).</summary>
        public readonly int End;

        /// <summary>A reader over <paramref name="buf"/>[start, end).</summary>
        public WireReader(byte[] buf, int start, int end)
        {
            _buf = buf;
            Offset = start;
            End = end;
        }

        /// <summary>A reader over the whole array.</summary>
        public WireReader(byte[] buf) : this(buf, 0, buf.Length) { }

        /// <summary>The array read from.</summary>
        public byte[] Buffer => _buf;

        /// <summary>Bytes left to read.</summary>
        public int Remaining => End - Offset;

        int Take(int n)
        {
            int at = Offset;
            if (n < 0 || at + n > End) throw new DecodeException("truncated", $"past_end {n}@{at}");
            Offset = at + n;
            return at;
        }

        /// <summary>An unsigned byte.</summary>
        public byte U8() => _buf[Take(1)];

        /// <summary>A little-endian u16.</summary>
        public int U16()
        {
            int at = Take(2);
            return _buf[at] | (_buf[at + 1] << 8);
        }

        /// <summary>A little-endian u32.</summary>
        public uint U32()
        {
            int at = Take(4);
            return (uint)(_buf[at] | (_buf[at + 1] << 8) | (_buf[at + 2] << 16) | (_buf[at + 3] << 24));
        }

        /// <summary>A little-endian f64.</summary>
        public double F64() => BitConverter.Int64BitsToDouble((long)U32() | ((long)U32() << 32));

        /// <summary>A finite f64; NaN and infinities are a <c>bad_value</c> error naming <paramref name="what"/>.</summary>
        public double FiniteF64(string what)
        {
            double v = F64();
            if (double.IsNaN(v) || double.IsInfinity(v)) throw new DecodeException("bad_value", "not_finite " + what);
            return v;
        }

        /// <summary>An unsigned LEB128 integer of at most 32 bits.</summary>
        public uint VarUint()
        {
            uint result = 0;
            for (int shift = 0; ; shift += 7)
            {
                byte b = U8();
                if (shift == 28 && b > 0x0f) throw new DecodeException("bad_value", "varuint_32");
                result |= (uint)(b & 0x7f) << shift;
                if (b < 0x80) return result;
            }
        }

        /// <summary>A varuint that must fit an int (lengths, counts, ids).</summary>
        public int VarUintInt()
        {
            uint v = VarUint();
            return v > int.MaxValue ? int.MaxValue : (int)v;
        }

        /// <summary>A zigzag-encoded signed LEB128 integer.</summary>
        public int VarInt()
        {
            uint z = VarUint();
            return (int)(z >> 1) ^ -(int)(z & 1);
        }

        /// <summary>Skips <paramref name="n"/> bytes and returns where they start.</summary>
        public int Skip(int n) => Take(n);

        /// <summary>A varuint length then that many bytes of UTF-8, refused over <paramref name="maxBytes"/>.</summary>
        public string String(int maxBytes = 1024)
        {
            uint n = VarUint();
            if (n > maxBytes) throw new DecodeException("too_large", $"long_string {n}>{maxBytes}");
            int at = Take((int)n);
            try
            {
                return StrictUtf8.GetString(_buf, at, (int)n);
            }
            catch (ArgumentException)
            {
                throw new DecodeException("bad_value", "utf8");
            }
        }

        /// <summary>Throws <c>trailing_bytes</c> unless everything was read.</summary>
        public void ExpectEnd()
        {
            if (Offset != End) throw new DecodeException("trailing_bytes", $"unread {End - Offset}");
        }
    }
}
