using System;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;
using Xunit;

namespace Tikron.Client.Tests
{
    /// <summary>
    /// Declared inputs: the C# writer produces the TypeScript SDK's bytes (vectors written by
    /// packages/protocol's <c>InputSchema.encode</c> for one field of every kind, in range and out of
    /// it), refuses what no room could read, and hashes with the schema as the server does.
    /// </summary>
    public class InputTests
    {
        static readonly InputSchema Every = new InputSchema(new (string, (string, Field)[])[]
        {
            ("", new (string, Field)[]
            {
                ("q", Field.Quant(-1, 1, 1.0 / 127)), ("a", Field.QuantAngle(10)), ("n", Field.U8()), ("m", Field.U16()), ("v", Field.VarUint()),
                ("z", Field.VarInt()), ("b", Field.Bool()), ("x", Field.F32(-2, 2)), ("t", Field.F64(0, 4294967296)), ("w", Field.Quant(0, 100000, 0.5)),
            }),
        }, tagged: false);

        [Fact]
        public void WritesTheTypeScriptBytes()
        {
            var cases = new (string Hex, double[] Values)[]
            {
                ("bfa300072c01c0843d09010000c03f000000000080284007", new[] { 0.5, 1, 7, 300, 1e6, -5, 1, 1.5, 12.25, 3.25 }),
                ("005d03ff0000ffffffff0ffeffffff0f00000000400000000000000000c09a0c", new[] { -3, -1, 300, -4, 5e9, 3e9, 0, 9, -1, 1e9 }),
                ("7fa90303ffff000001cdcccc3d000000000000f041a08d06", new[] { 0.0039, 100, 2.5, 65535.4, 0, -0.5, 1, 0.1, 4294967301, 49999.75 }),
            };
            foreach (var (hex, values) in cases) Assert.Equal(hex, Golden.Hex(Every.Encode(new WireWriter(4), 0, values)));
        }

        [Fact]
        public void WritesTheKindFirstWithKinds()
        {
            var fps = Games.Fps.FpsGame.Inputs;
            Assert.True(fps.Tagged);
            Assert.Equal("007f7f210000", Golden.Hex(new Games.Fps.FpsMove { Dx = 0, Dy = 0, DtMs = 33, Aim = 0 }.Encode(new WireWriter())));
            Assert.Equal(11, new Games.Fps.FpsShot { Time = 60000.25, Aim = 1 }.Encode(new WireWriter()).Length);
            Assert.Equal("fe0001", Golden.Hex(new Games.Agar.AgarInput { Dx = 1, Dy = -1, Boost = true }.Encode(new WireWriter())));
        }

        [Fact]
        public void RefusesNumbersThatAreNotFiniteNamingTheField()
        {
            var values = new double[] { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
            values[7] = double.NaN;
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => Every.Encode(new WireWriter(), 0, values));
            Assert.Contains("input x: NaN is not a finite number", e.Message);
            var shot = Assert.Throws<ArgumentOutOfRangeException>(() => new Games.Fps.FpsShot { Time = double.PositiveInfinity, Aim = 0 }.Encode(new WireWriter()));
            Assert.Contains("input shot.time: Infinity is not a finite number", shot.Message);
            Assert.Throws<ArgumentException>(() => Every.Encode(new WireWriter(), 0, 1, 2));
            Assert.Throws<ArgumentOutOfRangeException>(() => Games.Fps.FpsGame.Inputs.Encode(new WireWriter(), 2));
        }

        [Fact]
        public void RefusesWhatNoRoomReads()
        {
            Assert.Throws<ArgumentException>(() => new InputSchema(new (string, (string, Field)[])[] { ("", new (string, Field)[] { ("s", Field.String(4)) }) }, tagged: false));
            Assert.Throws<ArgumentException>(() => new InputSchema(new (string, (string, Field)[])[] { ("go", new (string, Field)[] { ("kind", Field.U8()) }) }, tagged: true));
            Assert.Throws<ArgumentException>(() => new InputSchema(new (string, (string, Field)[])[] { ("", new (string, Field)[] { ("x", Field.U8()) }) }, tagged: true));
            Assert.Throws<ArgumentOutOfRangeException>(() => Field.F32(0, 0.1));
            Assert.Throws<ArgumentOutOfRangeException>(() => Field.F64(1, 1));
        }

        [Fact]
        public void DeclaredInputsAreHashedWithTheSchema()
        {
            var types = new (string, (string, Field)[])[] { ("dot", new (string, Field)[] { ("x", Field.Quant(0, 100, 1)), ("y", Field.Quant(0, 100, 1)) }) };
            // The TypeScript schema without inputs hashes to 0xaefe80e8 (packages/protocol/test/inputs.test.ts).
            Assert.Equal(0xaefe80e8u, new EntitySchema(types).Hash);
            Assert.NotEqual(0xaefe80e8u, new EntitySchema(types, null, Every).Hash);
            Assert.Equal(Games.Fps.FpsGame.SchemaHash, Games.Fps.FpsGame.Schema.Hash);
        }
    }
}
