using System;
using System.Text;
using Tikron.Client.Json;

namespace Tikron.Client.Protocol
{
    /// <summary>One message for the socket: bytes (binary dialect) or text (JSON dialect).</summary>
    public readonly struct Outgoing
    {
        /// <summary>A binary message, or null.</summary>
        public readonly byte[]? Bytes;
        /// <summary>A text message, or null.</summary>
        public readonly string? Text;

        /// <summary>A binary message.</summary>
        public Outgoing(byte[] bytes)
        {
            Bytes = bytes;
            Text = null;
        }

        /// <summary>A text message.</summary>
        public Outgoing(string text)
        {
            Bytes = null;
            Text = text;
        }
    }

    /// <summary>
    /// How a client speaks one dialect (packages/protocol clientDialects.ts): every message it sends,
    /// and how it reads what the room sends (<see cref="ServerDecoder"/>). Binary rooms speak
    /// <see cref="Binary"/>, JSON rooms (turn-based) <see cref="Json"/>.
    /// </summary>
    public abstract class ClientDialect
    {
        /// <summary>The binary dialect: the protocol's frames.</summary>
        public static readonly ClientDialect Binary = new BinaryDialect();
        /// <summary>The JSON text dialect.</summary>
        public static readonly ClientDialect Json = new JsonTextDialect();

        /// <summary>True for the JSON dialect.</summary>
        public abstract bool IsJson { get; }
        /// <summary>
        /// A hello: the reconnect token (empty for a new seat), the display name, and the player's join
        /// options (a JSON object, written as the TypeScript SDK writes it; null for none, and then nothing of
        /// them is written).
        /// </summary>
        public abstract Outgoing Hello(string token, string name, JsonValue? options = null);

        /// <summary>Join options to send: an object (anything else is none).</summary>
        static protected bool HasOptions(JsonValue? options) => options != null && options.Kind == JsonKind.Object;
        /// <summary>One input: bytes (binary; at most 256) or any JSON value (JSON).</summary>
        public abstract Outgoing Input(uint seq, byte[]? payload, JsonValue? json);
        /// <summary>A clock ping.</summary>
        public abstract Outgoing Ping(double clientTime);
        /// <summary>What keeps an idle socket alive: a ping (binary), the fixed keepalive text (JSON).</summary>
        public abstract Outgoing Keepalive(double clientTime);
        /// <summary>A receipt (counts modulo 2^32).</summary>
        public abstract Outgoing Receipt(long messages, long units);
        /// <summary>A leave.</summary>
        public abstract Outgoing Leave();
        /// <summary>A tk:stats request.</summary>
        public abstract Outgoing StatsRequest(uint requestId);
        /// <summary>A room message; <paramref name="json"/> is the payload's JSON text.</summary>
        public abstract Outgoing Message(uint requestId, string type, string json);
        /// <summary>Decodes one received message (bytes or text).</summary>
        public abstract ServerMessage Decode(byte[]? bytes, string? text);

        sealed class BinaryDialect : ClientDialect
        {
            [ThreadStatic] static WireWriter? _writer;
            static WireWriter W() => (_writer ??= new WireWriter(256)).Reset();

            public override bool IsJson => false;
            public override Outgoing Hello(string token, string name, JsonValue? options = null)
            {
                var w = W().U8(Kind.Hello).U16(Wire.ProtocolVersion).String(token).String(name);
                // The options' JSON text after the name; left out when there are none (the hello before join options).
                if (HasOptions(options)) w.String(options!.ToString());
                return new Outgoing(w.ToArray());
            }
            public override Outgoing Input(uint seq, byte[]? payload, JsonValue? json)
            {
                if (payload == null) throw new ArgumentException("a binary room's input is bytes");
                if (payload.Length > Wire.MaxInputPayloadBytes) throw new ArgumentOutOfRangeException(nameof(payload), $"input payload over {Wire.MaxInputPayloadBytes} bytes");
                return new Outgoing(W().U8(Kind.Input).U8(1).VarUint(seq).VarUint((uint)payload.Length).Bytes(payload).ToArray());
            }
            public override Outgoing Ping(double clientTime) => new Outgoing(W().U8(Kind.Ping).F64(clientTime).ToArray());
            public override Outgoing Keepalive(double clientTime) => Ping(clientTime);
            public override Outgoing Receipt(long messages, long units) =>
                new Outgoing(W().U8(Kind.Receipt).VarUint((uint)(messages % 0x100000000L)).VarUint((uint)(units % 0x100000000L)).ToArray());
            public override Outgoing Leave() => new Outgoing(new[] { Kind.Leave });
            public override Outgoing StatsRequest(uint requestId) => new Outgoing(W().U8(Kind.StatsRequest).U32(requestId).ToArray());
            public override Outgoing Message(uint requestId, string type, string json)
            {
                if (!ServerDecoder.IsMessageType(type)) throw new ArgumentException($"bad message type {type}");
                return new Outgoing(W().U8(Kind.Message).VarUint(requestId).String(type).String(json).ToArray());
            }
            public override ServerMessage Decode(byte[]? bytes, string? text) =>
                bytes != null ? ServerDecoder.DecodeBinary(bytes) : throw new DecodeException("bad_value", "not_bytes");
        }

        sealed class JsonTextDialect : ClientDialect
        {
            public override bool IsJson => true;
            static Outgoing Obj(string t, params (string Key, JsonValue Value)[] fields)
            {
                var o = JsonValue.NewObject().Set("t", t);
                foreach (var (k, v) in fields) o.Set(k, v);
                return new Outgoing(o.ToString());
            }
            public override Outgoing Hello(string token, string name, JsonValue? options = null) => HasOptions(options)
                ? Obj("hello", ("v", Wire.ProtocolVersion), ("token", token), ("name", name), ("options", options!))
                : Obj("hello", ("v", Wire.ProtocolVersion), ("token", token), ("name", name));
            public override Outgoing Input(uint seq, byte[]? payload, JsonValue? json) => Obj("input", ("seq", seq), ("data", json ?? JsonValue.Null));
            public override Outgoing Ping(double clientTime) => Obj("ping", ("ct", clientTime));
            public override Outgoing Keepalive(double clientTime) => new Outgoing(Wire.JsonKeepalive);
            public override Outgoing Receipt(long messages, long units) => Obj("rc", ("m", messages % 0x100000000L), ("b", units % 0x100000000L));
            public override Outgoing Leave() => Obj("leave");
            public override Outgoing StatsRequest(uint requestId) => Obj("stats", ("id", requestId));
            public override Outgoing Message(uint requestId, string type, string json)
            {
                if (!ServerDecoder.IsMessageType(type)) throw new ArgumentException($"bad message type {type}");
                // The type matched the pattern (no quotes or escapes) and json is JSON text: spliced as they are.
                return new Outgoing(new StringBuilder("{\"t\":\"msg\",\"type\":\"").Append(type).Append("\",\"id\":").Append(requestId).Append(",\"data\":").Append(json).Append('}').ToString());
            }
            public override ServerMessage Decode(byte[]? bytes, string? text) =>
                text != null ? ServerDecoder.DecodeText(text) : throw new DecodeException("bad_value", "not_text");
        }
    }
}
