using System;
using System.Linq;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;
using Xunit;

namespace Tikron.Client.Tests
{
    /// <summary>Declared events: encoding them as the room does round-trips through the decoder, and reproduces the golden bytes.</summary>
    public class EventTests
    {
        [Theory]
        [InlineData("fps")]
        [InlineData("dots")]
        public void EveryGoldenEventEncodesBackToItsBytes(string name)
        {
            var events = (name == "fps" ? Games.Fps.FpsGame.Schema : Games.Dots.DotsGame.Schema).Events!;
            var w = new WireWriter();
            int n = 0;
            foreach (var m in Golden.Read(name)["messages"]!.Items.Where(m => m["from"]!.AsString == "server"))
            {
                if (ServerDecoder.DecodeBinary(Golden.Hex(m["hex"]!.AsString)) is not FrameMessage f || f.EventRanges == null) continue;
                foreach (var (o, l) in f.EventRanges)
                {
                    var e = events.Decode(f.Bytes!, o, l);
                    Assert.Equal(Golden.Hex(f.Bytes![o..(o + l)]), Golden.Hex(events.Encode(w, e)));
                    n++;
                }
            }
            Assert.True(n >= 3, $"{n} events");
        }

        [Fact]
        public void RandomEventsRoundTripAsTheirQuantizedValues()
        {
            var events = new EventSchema(new (string, (string, Field)[])[]
            {
                ("a", new (string, Field)[] { ("q1", Field.Quant(0, 10, 0.5)), ("q2", Field.Quant(-100, 100, 1.0 / 256)), ("q3", Field.Quant(0, 1e6, 0.01)), ("ang", Field.QuantAngle(12)) }),
                ("b", new (string, Field)[] { ("u8", Field.U8()), ("u16", Field.U16()), ("vu", Field.VarUint()), ("vi", Field.VarInt()), ("ok", Field.Bool()), ("s", Field.String(5)) }),
            });
            var rng = new Random(4);
            var w = new WireWriter();
            for (int i = 0; i < 3000; i++)
            {
                var e = events.Create(i % 2 == 0 ? "a" : "b");
                foreach (var f in e.Kind.Fields)
                {
                    if (f.Field.Code == FieldCode.String) e.SetString(f.Index, new string(Enumerable.Range(0, rng.Next(9)).Select(_ => (char)rng.Next(0x20, 0xe000)).ToArray()));
                    else e.SetNumber(f.Index, (rng.NextDouble() - 0.3) * Math.Pow(10, rng.Next(7)));
                }
                var back = events.Decode(events.Encode(w, e));
                Assert.Equal(e.Kind.Name, back.Kind.Name);
                foreach (var f in e.Kind.Fields)
                {
                    if (f.Field.Code == FieldCode.String) Assert.Equal(e.GetString(f.Index), back.GetString(f.Index));
                    else Assert.Equal(e.GetNumber(f.Index), back.GetNumber(f.Index));
                }
            }
        }
    }
}
