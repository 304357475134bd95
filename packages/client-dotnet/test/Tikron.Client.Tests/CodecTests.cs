using System;
using System.Linq;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;
using Tikron.Client.Timing;
using Xunit;

namespace Tikron.Client.Tests
{
    /// <summary>Codecs against their naive twins and hostile bytes; the JSON of the SDK; the clocks.</summary>
    public class CodecTests
    {
        [Fact]
        public void AWriterGrowsOnEveryKindOfWrite()
        {
            // Each write lands exactly where the buffer must grow (16 bytes to start with).
            foreach (var write in new Func<WireWriter, WireWriter>[] { w => w.U8(7), w => w.VarUint(300), w => w.U16(513), w => w.F64(1.5) })
            {
                var w = new WireWriter(16);
                for (int i = 0; i < 16; i++) w.U8(i);
                var all = write(w).ToArray();
                var alone = write(new WireWriter()).ToArray();
                Assert.Equal(16 + alone.Length, all.Length);
                Assert.Equal(alone, all[16..]);
            }
        }

        [Fact]
        public void VaruintsAndVarintsRoundTripAndMatchLeb128()
        {
            var rng = new Random(1);
            var w = new WireWriter();
            for (int i = 0; i < 5000; i++)
            {
                uint u = i < 64 ? (uint)(1L << (i % 32)) - 1 : (uint)rng.NextInt64(0, 1L << 32);
                int s = unchecked((int)(uint)rng.NextInt64(0, 1L << 32));
                byte[] bytes = w.Reset().VarUint(u).VarInt(s).ToArray();
                // The naive twin: 7 bits a byte, low first, the top bit saying more follows.
                int n = 0;
                ulong x = u;
                do { n++; x >>= 7; } while (x > 0);
                Assert.Equal(n, Array.FindIndex(bytes, b => b < 0x80) + 1);
                var r = new WireReader(bytes);
                Assert.Equal(u, r.VarUint());
                Assert.Equal(s, r.VarInt());
                r.ExpectEnd();
            }
            Assert.Equal("bad_value", Assert.Throws<DecodeException>(() => new WireReader(new byte[] { 0xff, 0xff, 0xff, 0xff, 0x10 }).VarUint()).Code);
            Assert.Equal("truncated", Assert.Throws<DecodeException>(() => new WireReader(new byte[] { 0x80 }).VarUint()).Code);
        }

        [Fact]
        public void HostileBytesAreRefusedAsDecodeErrorsNeverAnythingElse()
        {
            // Every golden frame cut short, and with random bytes changed: only DecodeException (or success).
            var rng = new Random(2);
            foreach (var name in new[] { "agar", "fps", "dots" })
            {
                var schema = name == "agar" ? Games.Agar.AgarGame.Schema : name == "fps" ? Games.Fps.FpsGame.Schema : Games.Dots.DotsGame.Schema;
                var frames = Golden.Read(name)["messages"]!.Items.Where(m => m["from"]!.AsString == "server").Select(m => Golden.Hex(m["hex"]!.AsString)).ToList();
                for (int k = 0; k < 400; k++)
                {
                    var view = new ClientView(schema);
                    foreach (var original in frames)
                    {
                        var bytes = (byte[])original.Clone();
                        if (rng.Next(4) == 0) bytes[rng.Next(bytes.Length)] = (byte)rng.Next(256);
                        if (rng.Next(4) == 0) Array.Resize(ref bytes, rng.Next(bytes.Length));
                        try
                        {
                            var m = ServerDecoder.DecodeBinary(bytes);
                            if (m is WelcomeMessage) view.Clear();
                            if (m is FrameMessage f)
                            {
                                if (f.HasState) view.Apply(f.Bytes!, f.BodyOffset, f.Bytes!.Length - f.BodyOffset);
                                foreach (var (o, l) in f.EventRanges ?? new()) schema.Events?.Decode(f.Bytes!, o, l);
                            }
                        }
                        catch (DecodeException)
                        {
                            // Refused as it should be: a fresh view starts the stream again.
                            view.Clear();
                        }
                    }
                }
            }
        }

        [Fact]
        public void ABodyThatFailsLeavesTheViewAsItWasAndRefusesMoreUntilCleared()
        {
            var view = new ClientView(Games.Dots.DotsGame.Schema);
            int added = 0, removed = 0;
            view.Added += _ => added++;
            view.Removed += _ => removed++;
            var enter = new WireWriter().U8(DeltaSection.Enters).VarUint(1).VarUint(3).VarUint(0).VarUint(8).VarUint(8).String("a").ToArray();
            view.Apply(enter, 0, enter.Length);
            Assert.Equal(1, added);
            // A second entity enters, then an update of an unknown one: the body is refused whole.
            var bad = new WireWriter().U8(DeltaSection.Enters | DeltaSection.Updates).VarUint(1).VarUint(4).VarUint(0).VarUint(8).VarUint(8).String("b")
                .VarUint(1).VarUint(9).VarUint(1).VarInt(1).ToArray();
            Assert.Equal("bad_value", Assert.Throws<DecodeException>(() => view.Apply(bad, 0, bad.Length)).Code);
            Assert.Equal(1, view.Count);
            Assert.Equal(1, added);
            Assert.Throws<DecodeException>(() => view.Apply(enter, 0, enter.Length));
            view.Clear();
            Assert.Equal(1, removed);
            view.Apply(enter, 0, enter.Length);
            Assert.Equal(1.0, view.Get(3)!.GetNumber(0));
        }

        [Theory]
        [InlineData(0.0, "0")]
        [InlineData(1e21, "1e+21")]
        [InlineData(1e20, "100000000000000000000")]
        [InlineData(123.456, "123.456")]
        [InlineData(0.1 + 0.2, "0.30000000000000004")]
        [InlineData(1e-7, "1e-7")]
        [InlineData(0.000001, "0.000001")]
        [InlineData(-1.5e-10, "-1.5e-10")]
        [InlineData(5e-324, "5e-324")]
        [InlineData(1.7976931348623157e308, "1.7976931348623157e+308")]
        [InlineData(4294967295.0, "4294967295")]
        public void NumbersPrintAsJavaScriptPrintsThem(double v, string js)
        {
            Assert.Equal(js, JsonValue.FormatNumber(v));
            Assert.Equal(js.StartsWith('-') ? js.Substring(1) : js == "0" ? "0" : "-" + js, JsonValue.FormatNumber(-v));
        }

        [Fact]
        public void JsonParsesAndPrintsLikeJavaScript()
        {
            const string text = "{\"a\":[1,2.5,-3e-8,true,false,null],\"s\":\"h\\u00e9 \\\"q\\\" \\\\ \\n\\u0001 ☃\",\"o\":{}}";
            var v = JsonValue.Parse(text);
            Assert.Equal("{\"a\":[1,2.5,-3e-8,true,false,null],\"s\":\"hé \\\"q\\\" \\\\ \\n\\u0001 ☃\",\"o\":{}}", v.ToString());
            Assert.Equal("\"\\ud800x\"", JsonValue.From("\ud800x").ToString());
            foreach (var bad in new[] { "", "{", "[1,]", "01", "1.", "\"\\x\"", "{\"a\" 1}", "tru", "1 2", new string('[', 200) })
                Assert.Throws<FormatException>(() => JsonValue.Parse(bad));
            // Round trip of random doubles: printed, parsed back, the same number.
            var rng = new Random(3);
            for (int i = 0; i < 20000; i++)
            {
                double d = BitConverter.Int64BitsToDouble(rng.NextInt64());
                if (double.IsNaN(d) || double.IsInfinity(d)) continue;
                Assert.Equal(d == 0 ? 0 : d, JsonValue.Parse(JsonValue.FormatNumber(d)).AsNumber);
            }
        }

        [Fact]
        public void TheClockFollowsTheServerOffsetFromItsBestSample()
        {
            double now = 0;
            var clock = new ClockSync(now: () => now);
            // Server 5000 ms ahead; round trips of 40 ms, one congested sample of 300 ms.
            foreach (var (t0, rtt) in new[] { (0.0, 40.0), (100, 300), (200, 40), (300, 40) })
                clock.AddSample(t0, t0 + rtt / 2 + 5000, t0 + rtt);
            now = 400;
            Assert.Equal(5400, clock.ServerNow(), 6);
            clock.Reset(1000);
            Assert.False(clock.Synced);
        }

        [Fact]
        public void TheSnapshotBufferInterpolatesBetweenSnapshots()
        {
            double now = 0;
            var buffer = new SnapshotBuffer(new[] { Interp.Linear, Interp.Angle }, new PlayoutOptions { Now = () => now, MinDelayMs = 100, MaxDelayMs = 100 });
            for (int k = 0; k < 10; k++)
            {
                buffer.BeginSnapshot(k * 50, k * 50);
                buffer.SetEntity(1, new[] { k * 10.0, k % 2 == 0 ? 6.2 : 0.1 });
                buffer.EndSnapshot();
            }
            now = 475;
            double render = buffer.Update(now);
            Assert.Equal(375, render, 6);
            var v = new double[2];
            Assert.Equal(SampleKind.Interpolated, buffer.Sample(1, render, v));
            Assert.Equal(75, v[0], 6);
            // Half way from 0.1 to 6.2 the short way round (through 0), not through π.
            Assert.True(v[1] < 0.1 || v[1] > 6.2);
        }
    }
}
