using System;
using System.Text;

namespace Tikron.Client.Protocol
{
    /// <summary>
    /// Growable little-endian writer over one reused buffer: <see cref="Reset"/> rewinds without
    /// freeing, so a writer kept per sender encodes without allocating in steady state.
    /// </summary>
    public sealed class WireWriter
    {
        static readonly UTF8Encoding Utf8 = new UTF8Encoding(false, false);
        byte[] _buf;

        /// <summary>Bytes written since the last reset.</summary>
        public int Offset { get; private set; }

        /// <summary>A writer with <paramref name="capacity"/> bytes to start with.</summary>
        public WireWriter(int capacity = 256) { _buf = new byte[Math.Max(16, capacity)]; }

        /// <summary>Empties the writer (keeps its buffer).</summary>
        public WireWriter Reset()
        {
            Offset = 0;
            return this;
        }

        int Claim(int n)
        {
            int at = Offset, need = at + n;
            if (need > _buf.Length)
            {
                int cap = _buf.Length * 2;
                while (cap < need) cap *= 2;
                Array.Resize(ref _buf, cap);
            }
            Offset = need;
            return at;
        }

        /// <summary>An unsigned byte.</summary>
        public WireWriter U8(int v)
        {
            // Claimed first: C# reads `_buf` before the index, and a claim that grows replaces it.
            int at = Claim(1);
            _buf[at] = (byte)v;
            return this;
        }

        /// <summary>A little-endian u16.</summary>
        public WireWriter U16(int v)
        {
            int at = Claim(2);
            _buf[at] = (byte)v;
            _buf[at + 1] = (byte)(v >> 8);
            return this;
        }

        /// <summary>A little-endian u32.</summary>
        public WireWriter U32(uint v)
        {
            int at = Claim(4);
            _buf[at] = (byte)v;
            _buf[at + 1] = (byte)(v >> 8);
            _buf[at + 2] = (byte)(v >> 16);
            _buf[at + 3] = (byte)(v >> 24);
            return this;
        }

        /// <summary>A little-endian f32.</summary>
        public WireWriter F32(float v) => U32((uint)BitConverter.SingleToInt32Bits(v));

        /// <summary>A little-endian f64.</summary>
        public WireWriter F64(double v)
        {
            long bits = BitConverter.DoubleToInt64Bits(v);
            return U32((uint)bits).U32((uint)(bits >> 32));
        }

        /// <summary>An unsigned LEB128 integer (1 to 5 bytes).</summary>
        public WireWriter VarUint(uint v)
        {
            while (v >= 0x80)
            {
                U8((int)((v & 0x7f) | 0x80));
                v >>= 7;
            }
            return U8((int)v);
        }

        /// <summary>A zigzag-encoded signed LEB128 integer.</summary>
        public WireWriter VarInt(int v) => VarUint((uint)((v << 1) ^ (v >> 31)));

        /// <summary>Raw bytes.</summary>
        public WireWriter Bytes(byte[] b, int offset, int count)
        {
            int at = Claim(count);
            System.Buffer.BlockCopy(b, offset, _buf, at, count);
            return this;
        }

        /// <summary>Raw bytes.</summary>
        public WireWriter Bytes(byte[] b) => Bytes(b, 0, b.Length);

        /// <summary>A varuint byte length then UTF-8 (lone surrogates as U+FFFD, as JavaScript's TextEncoder writes them).</summary>
        public WireWriter String(string s)
        {
            int n = Utf8.GetByteCount(s);
            VarUint((uint)n);
            int at = Claim(n);
            Utf8.GetBytes(s, 0, s.Length, _buf, at);
            return this;
        }

        /// <summary>An exactly sized copy of what was written.</summary>
        public byte[] ToArray()
        {
            var copy = new byte[Offset];
            System.Buffer.BlockCopy(_buf, 0, copy, 0, Offset);
            return copy;
        }
    }
}
