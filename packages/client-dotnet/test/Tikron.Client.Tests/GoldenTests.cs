using System;
using System.Collections.Generic;
using System.Linq;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;
using Xunit;

namespace Tikron.Client.Tests
{
    /// <summary>
    /// The golden files (test/golden, recorded from real rooms of the core; the TypeScript SDK's test
    /// records them again and decodes them too): the C# connection, fed their server messages over a
    /// fake socket, sends the same hello and receipts and decodes every message to what they hold.
    /// </summary>
    public class GoldenTests
    {
        public static IEnumerable<object[]> Scenarios => new[] { "agar", "movement", "fps", "dots", "ttt-json" }.Select(n => new object[] { n });

        static EntitySchema? SchemaOf(string name) => name switch
        {
            "agar" => Games.Agar.AgarGame.Schema,
            "movement" => Games.Movement.MovementGame.Schema,
            "fps" => Games.Fps.FpsGame.Schema,
            "dots" => Games.Dots.DotsGame.Schema,
            _ => null,
        };

        [Theory]
        [MemberData(nameof(Scenarios))]
        public void TheConnectionDecodesEveryServerMessageToWhatTheFileHolds(string name)
        {
            var g = Golden.Read(name);
            bool json = g["dialect"]!.AsString == "json";
            var schema = SchemaOf(name);
            if (schema != null) Assert.Equal((uint)g["schemaHash"]!.AsNumber, schema.Hash);
            var sockets = new FakeSockets();
            var conn = TikronClient.Connect("ws://golden.test", new ConnectOptions
            {
                Kind = g["kind"]!.AsString,
                Room = "golden-" + name,
                Name = "rec",
                Schema = schema,
                Dialect = json ? ClientDialect.Json : ClientDialect.Binary,
                Sockets = sockets.Open,
                Reconnect = false,
                PingIntervalMs = 1_000_000,
            });
            var errors = new List<RoomError>();
            var events = new List<GameEvent>();
            var notices = new List<NoticeMessage>();
            conn.Error += errors.Add;
            conn.GameEvent += events.Add;
            conn.Notice += notices.Add;
            conn.Poll();
            var socket = sockets.Last;
            Assert.Equal("ws://golden.test/rooms/" + g["kind"]!.AsString + "/golden-" + name, socket.Url.ToString());
            socket.Listener.OnOpen();
            conn.Poll();

            var goldenClient = g["messages"]!.Items.Where(m => m["from"]!.AsString == "client").ToList();
            Assert.Equal(Wire(goldenClient[0]), Wire(socket.Sent[0]));
            int frames = 0;
            foreach (var m in g["messages"]!.Items)
            {
                if (m["from"]!.AsString != "server") continue;
                errors.Clear();
                events.Clear();
                notices.Clear();
                var decoded = m["decoded"]!;
                byte[]? bytes = m["hex"] != null ? Golden.Hex(m["hex"]!.AsString) : null;
                string? text = m["text"]?.AsString;
                CheckRawDecode(json ? ClientDialect.Json.Decode(null, text) : ClientDialect.Binary.Decode(bytes, null), decoded);
                socket.Listener.OnMessage(bytes, text);
                conn.Poll();
                Assert.DoesNotContain(errors, e => e.Local);
                switch (decoded["kind"]!.AsString)
                {
                    case "welcome":
                        Assert.Equal(ConnectionStatus.Joined, conn.Status);
                        Assert.Equal((long)decoded["playerId"]!.AsNumber, conn.PlayerId);
                        Assert.Equal(decoded["token"]!.AsString, conn.Token);
                        break;
                    case "frame":
                        frames++;
                        Assert.Equal(frames, conn.Stats.Frames);
                        if (json)
                        {
                            if (decoded["hasState"]!.AsBool) Assert.True(decoded["state"]!.DeepEquals(conn.JsonState!));
                            Assert.Equal(decoded["events"]!.Count, events.Count);
                            for (int i = 0; i < events.Count; i++) Assert.True(decoded["events"]![i].DeepEquals(events[i].Json!));
                        }
                        else
                        {
                            CheckView(conn.View!, decoded["entities"]!);
                            Assert.Equal(decoded["events"]!.Count, events.Count);
                            for (int i = 0; i < events.Count; i++) CheckRecord(events[i].Declared!, decoded["events"]![i], "kind");
                        }
                        if (decoded["ackSeq"]!.AsNumber >= 0) Assert.Equal((long)decoded["ackSeq"]!.AsNumber, conn.Stats.LastAck);
                        break;
                    case "error":
                        Assert.Equal((int)decoded["code"]!.AsNumber, Assert.Single(errors).Code);
                        Assert.Equal(decoded["reason"]!.AsString, errors[0].Reason);
                        break;
                    case "notice":
                        Assert.Equal(decoded["type"]!.AsString, Assert.Single(notices).Type);
                        Assert.True(decoded["data"]!.DeepEquals(notices[0].Data));
                        break;
                    case "cadence":
                        Assert.Equal((int)decoded["syncIntervalMs"]!.AsNumber, conn.Welcome!.SyncIntervalMs);
                        break;
                }
            }
            Assert.True(frames > 5);
            Assert.Equal(0, conn.Stats.DecodeErrors);
            // The receipts: the same ones, at the same points of the stream, as the recording client's.
            var want = goldenClient.Where(m => m["what"]!.AsString == "receipt").Select(Wire).ToList();
            var sent = socket.Sent.Where(o => json ? o.Text!.Contains("\"t\":\"rc\"") : o.Bytes![0] == Kind.Receipt).Select(Wire).ToList();
            Assert.Equal(want, sent);
        }

        [Theory]
        [MemberData(nameof(Scenarios))]
        public void EachInputEncodesToItsPayload(string name)
        {
            var g = Golden.Read(name);
            var w = new WireWriter();
            Assert.NotEmpty(g["inputs"]!.Items);
            foreach (var input in g["inputs"]!.Items)
            {
                var value = input["value"]!;
                var payload = input["payload"]!;
                switch (name)
                {
                    case "agar": Assert.Equal(payload.AsString, Golden.Hex(Games.Agar.AgarInput.FromJson(value).Encode(w))); break;
                    case "movement": Assert.Equal(payload.AsString, Golden.Hex(Games.Movement.MovementInput.FromJson(value).Encode(w))); break;
                    case "fps": Assert.Equal(payload.AsString, Golden.Hex(Games.Fps.FpsInput.FromJson(value).Encode(w))); break;
                    case "dots": Assert.Equal(payload.AsString, Golden.Hex(Games.Dots.DotsInput.FromJson(value).Encode(w))); break;
                    default: Assert.True(payload.DeepEquals(Games.Ttt.TttInput.FromJson(value).ToJson())); break;
                }
            }
        }

        [Fact]
        public void EachDialectWritesEveryClientMessageAsTheTypeScriptOneDoes()
        {
            var cases = Golden.Read("client-messages");
            Assert.True(cases.Count >= 10);
            foreach (var c in cases.Items)
            {
                var a = c["args"]!;
                Func<ClientDialect, Outgoing> encode = c["what"]!.AsString switch
                {
                    "hello" => d => d.Hello(a[0].AsString, a[1].AsString, a.Items.Count > 2 ? a[2] : null),
                    "ping" => d => d.Ping(a[0].AsNumber),
                    "receipt" => d => d.Receipt((long)a[0].AsNumber, (long)a[1].AsNumber),
                    "leave" => d => d.Leave(),
                    "input" => d => d.Input((uint)a[0].AsNumber, Golden.Hex(a[1].AsString), JsonValue.NewObject().Set("cell", a[0].AsNumber == 1 ? 4 : 0)),
                    "stats" => d => d.StatsRequest((uint)a[0].AsNumber),
                    "message" => d => d.Message((uint)a[0].AsNumber, a[1].AsString, a[2].AsString),
                    var other => throw new InvalidOperationException(other),
                };
                Assert.Equal(c["hex"]!.AsString, Golden.Hex(encode(ClientDialect.Binary).Bytes!));
                Assert.Equal(c["json"]!.AsString, encode(ClientDialect.Json).Text);
            }
        }

        [Fact]
        public void EveryGeneratedSchemaHashesAsTheServerDoes()
        {
            Assert.Equal(Games.Agar.AgarGame.SchemaHash, Games.Agar.AgarGame.Schema.Hash);
            Assert.Equal(Games.Movement.MovementGame.SchemaHash, Games.Movement.MovementGame.Schema.Hash);
            Assert.Equal(Games.Fps.FpsGame.SchemaHash, Games.Fps.FpsGame.Schema.Hash);
            Assert.Equal(Games.Dots.DotsGame.SchemaHash, Games.Dots.DotsGame.Schema.Hash);
        }

        static string Wire(JsonValue m) => m["hex"]?.AsString ?? m["text"]!.AsString;
        static string Wire(Outgoing o) => o.Bytes != null ? Golden.Hex(o.Bytes) : o.Text!;

        /// <summary>What the decoder alone reads from the message (replies and pongs included, which the connection keeps to itself).</summary>
        static void CheckRawDecode(ServerMessage m, JsonValue d)
        {
            switch (m)
            {
                case WelcomeMessage w:
                    Assert.Equal("welcome", d["kind"]!.AsString);
                    Assert.Equal((int)d["version"]!.AsNumber, w.Version);
                    Assert.Equal((uint)d["playerId"]!.AsNumber, w.PlayerId);
                    Assert.Equal(d["token"]!.AsString, w.Token);
                    Assert.Equal((int)d["tickMs"]!.AsNumber, w.TickMs);
                    Assert.Equal((int)d["syncIntervalMs"]!.AsNumber, w.SyncIntervalMs);
                    Assert.Equal(d["serverTime"]!.AsNumber, w.ServerTime);
                    Assert.Equal(d["roomEpoch"]!.AsNumber, w.RoomEpoch);
                    Assert.Equal(d["reconnected"]!.AsBool, w.Reconnected);
                    Assert.Equal(d["json"]!.AsBool, w.Json);
                    Assert.Equal(d["roomKind"]!.AsString, w.RoomKind);
                    Assert.Equal((int)d["cap"]!.AsNumber, w.Cap);
                    Assert.Equal((uint)d["schemaHash"]!.AsNumber, w.SchemaHash);
                    Assert.Equal((uint)d["lastSeq"]!.AsNumber, w.LastSeq);
                    break;
                case FrameMessage f:
                    Assert.Equal("frame", d["kind"]!.AsString);
                    Assert.Equal((uint)d["tick"]!.AsNumber, f.Tick);
                    Assert.Equal((uint)d["time"]!.AsNumber, f.Time);
                    Assert.Equal((long)d["ackSeq"]!.AsNumber, f.AckSeq);
                    Assert.Equal(d["hasState"]!.AsBool, f.HasState);
                    Assert.Equal(d["events"]!.Count, f.EventCount);
                    break;
                case ErrorMessage e:
                    Assert.Equal("error", d["kind"]!.AsString);
                    Assert.Equal((int)d["code"]!.AsNumber, e.Code);
                    Assert.Equal((long)d["retryAfterMs"]!.AsNumber, e.RetryAfterMs);
                    Assert.Equal(d["reason"]!.AsString, e.Reason);
                    break;
                case PongMessage p:
                    Assert.Equal(d["clientTime"]!.AsNumber, p.ClientTime);
                    Assert.Equal(d["serverTime"]!.AsNumber, p.ServerTime);
                    break;
                case ReplyMessage r:
                    Assert.Equal((uint)d["requestId"]!.AsNumber, r.RequestId);
                    Assert.Equal((int)d["code"]!.AsNumber, r.Code);
                    Assert.Equal(d["reason"]!.AsString, r.Reason);
                    if (r.Code == 0) Assert.True(d["value"]!.DeepEquals(r.Value!));
                    break;
                case CadenceMessage c:
                    Assert.Equal((int)d["tickMs"]!.AsNumber, c.TickMs);
                    Assert.Equal((int)d["syncIntervalMs"]!.AsNumber, c.SyncIntervalMs);
                    break;
                case NoticeMessage n:
                    Assert.Equal(d["type"]!.AsString, n.Type);
                    Assert.True(d["data"]!.DeepEquals(n.Data));
                    break;
                default:
                    throw new Xunit.Sdk.XunitException("unexpected " + m.GetType().Name);
            }
        }

        /// <summary>The view holds exactly the entities the file lists, field by field.</summary>
        internal static void CheckView(ClientView view, JsonValue entities)
        {
            Assert.Equal(entities.Count, view.Count);
            foreach (var e in entities.Items)
            {
                var got = view.Get((int)e["id"]!.AsNumber);
                Assert.NotNull(got);
                Assert.Equal(e["type"]!.AsString, got!.TypeName);
                CheckRecord(got, e["fields"]!, null);
            }
        }

        /// <summary>Every field of <paramref name="want"/> (an object; <paramref name="skip"/> a key that is not a field).</summary>
        internal static void CheckRecord(FieldRecord r, JsonValue want, string? skip)
        {
            if (skip != null) Assert.Equal(want[skip]!.AsString, r.TypeName);
            Assert.Equal(r.Type.Fields.Count, want.Count - (skip != null ? 1 : 0));
            foreach (var fi in r.Type.Fields)
            {
                var v = want[fi.Name]!;
                switch (fi.Field.Code)
                {
                    case FieldCode.String: Assert.Equal(v.AsString, r.GetString(fi.Index)); break;
                    case FieldCode.Bool: Assert.Equal(v.AsBool, r.GetBool(fi.Index)); break;
                    case FieldCode.Map:
                        var map = r.GetMap(fi.Index);
                        Assert.Equal(v.Count, map.Count);
                        foreach (var kv in v.Members)
                        {
                            Assert.True(map.TryGet(int.Parse(kv.Key), out double x), $"{fi.Name}[{kv.Key}] missing");
                            if (fi.Field.Value!.Code == FieldCode.Bool) Assert.Equal(kv.Value.AsBool, x != 0);
                            else Assert.Equal(kv.Value.AsNumber, x);
                        }
                        break;
                    default: Assert.Equal(v.AsNumber, r.GetNumber(fi.Index)); break;
                }
            }
        }
    }
}
