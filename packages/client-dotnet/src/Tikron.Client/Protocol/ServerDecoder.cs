using System;
using System.Collections.Generic;
using System.Text.RegularExpressions;
using Tikron.Client.Json;

namespace Tikron.Client.Protocol
{
    /// <summary>
    /// Decodes server messages of both dialects into one shape. As in packages/protocol
    /// (serverMessages.ts, serverFields.ts), one reader per message asks a field source for each
    /// field by its JSON key and binary type: a binary frame answers in wire order, a JSON message
    /// by key, type-checked, so the dialects cannot decode a message differently.
    /// </summary>
    public static class ServerDecoder
    {
        static readonly Regex TypeName = new Regex("^[A-Za-z0-9_.:-]{1,32}$", RegexOptions.CultureInvariant);

        /// <summary>Whether <paramref name="type"/> is a legal room message or notice type (1–32 of A-Z a-z 0-9 _ . : -).</summary>
        public static bool IsMessageType(string type) => type != null && TypeName.IsMatch(type);

        interface IFields
        {
            uint U8(string key);
            uint U16(string key);
            uint U32(string key);
            uint VarUint(string key);
            double FiniteF64(string key);
            string String(int max, string key);
            JsonValue Json(int maxBytes, string key);
        }

        sealed class BinaryFields : IFields
        {
            public WireReader R;
            public BinaryFields(WireReader r) { R = r; }
            public uint U8(string key) => R.U8();
            public uint U16(string key) => (uint)R.U16();
            public uint U32(string key) => R.U32();
            public uint VarUint(string key) => R.VarUint();
            public double FiniteF64(string key) => R.FiniteF64(key);
            public string String(int max, string key) => R.String(max);
            public JsonValue Json(int maxBytes, string key) => ParseJson(R.String(maxBytes));
        }

        sealed class JsonFields : IFields
        {
            readonly JsonValue _m;
            readonly Dictionary<string, JsonValue> _defaults;
            public JsonFields(JsonValue m, Dictionary<string, JsonValue> defaults)
            {
                _m = m;
                _defaults = defaults;
            }
            // `flags` is always the one made from `reconnected`: a JSON welcome has no flags byte.
            JsonValue? Get(string key) => key == "flags" ? _defaults[key] : _m.Get(key) ?? (_defaults.TryGetValue(key, out var d) ? d : null);
            public uint U32(string key)
            {
                var v = Get(key);
                if (v == null || v.Kind != JsonKind.Number) throw new DecodeException("bad_value", "not_u32 " + key);
                double d = v.AsNumber;
                if (!(d >= 0 && d <= 0xffffffff) || Math.Floor(d) != d) throw new DecodeException("bad_value", "not_u32 " + key);
                return (uint)d;
            }
            public uint U8(string key) => U32(key);
            public uint U16(string key) => U32(key);
            public uint VarUint(string key) => U32(key);
            public double FiniteF64(string key)
            {
                var v = Get(key);
                if (v == null || v.Kind != JsonKind.Number || double.IsInfinity(v.AsNumber)) throw new DecodeException("bad_value", "not_finite " + key);
                return v.AsNumber;
            }
            public string String(int max, string key)
            {
                var v = Get(key);
                if (v == null || v.Kind != JsonKind.String || v.AsString.Length > max) throw new DecodeException("bad_value", "not_string " + key);
                return v.AsString;
            }
            public JsonValue Json(int maxBytes, string key) => Get(key) ?? JsonValue.Null;
        }

        static JsonValue ParseJson(string text)
        {
            try
            {
                return JsonValue.Parse(text);
            }
            catch (FormatException e)
            {
                throw new DecodeException("bad_json", e.Message);
            }
        }

        static readonly string[] Kinds = { "welcome", "frame", "error", "pong", "stats", "reply", "cadence", "notice" };

        /// <summary>
        /// Decodes one binary server message (the whole of <paramref name="bytes"/>). Throws a
        /// <see cref="DecodeException"/> for a malformed one; a FRAME keeps <paramref name="bytes"/>.
        /// </summary>
        public static ServerMessage DecodeBinary(byte[] bytes)
        {
            var r = new WireReader(bytes);
            int kind = r.U8();
            if (kind == Kind.Frame)
            {
                int flags = r.U8();
                if (flags > 7) throw new DecodeException("bad_value", $"flags {flags}");
                var f = new FrameMessage { Bytes = bytes, Tick = r.VarUint(), Time = r.VarUint() };
                if ((flags & FrameFlag.Ack) != 0) f.AckSeq = r.VarUint();
                if ((flags & FrameFlag.Events) != 0)
                {
                    uint n = r.VarUint();
                    if (n > Wire.MaxEventsPerFrame) throw new DecodeException("too_large", $"events {n}");
                    f.EventRanges = new List<(int, int)>((int)n);
                    for (uint i = 0; i < n; i++)
                    {
                        int len = r.VarUintInt();
                        f.EventRanges.Add((r.Skip(len), len));
                    }
                }
                f.HasState = (flags & FrameFlag.Delta) != 0;
                if (f.HasState) f.BodyOffset = r.Skip(r.Remaining);
                return f;
            }
            string name = kind >= Kind.Welcome && kind - Kind.Welcome < Kinds.Length ? Kinds[kind - Kind.Welcome] : $"0x{kind:x}";
            var fields = new BinaryFields(r);
            var m = ReadBody(name, fields);
            fields.R.ExpectEnd();
            return m;
        }

        /// <summary>Decodes one JSON-dialect server message. Throws a <see cref="DecodeException"/> for a malformed one.</summary>
        public static ServerMessage DecodeText(string text)
        {
            JsonValue m;
            try
            {
                m = JsonValue.Parse(text);
            }
            catch (FormatException)
            {
                throw new DecodeException("bad_json", "not a JSON object with a string t");
            }
            var t = m.Get("t");
            if (m.Kind != JsonKind.Object || t == null || t.Kind != JsonKind.String) throw new DecodeException("bad_json", "not a JSON object with a string t");
            var reconnected = m.Get("reconnected");
            var defaults = new Dictionary<string, JsonValue>
            {
                { "retryAfterMs", 0 }, { "reason", "" }, { "schemaHash", 0 },
                { "flags", reconnected == null || reconnected.Kind != JsonKind.Bool ? 4 : reconnected.AsBool ? 3 : 2 },
            };
            if (t.AsString == "reply") defaults["code"] = 0;
            var f = new JsonFields(m, defaults);
            switch (t.AsString)
            {
                case "state":
                {
                    var frame = new FrameMessage { Tick = f.VarUint("tick"), Time = f.VarUint("time") };
                    if (m.Get("ack") != null) frame.AckSeq = f.VarUint("ack");
                    var events = m.Get("events");
                    frame.JsonEvents = new List<JsonValue>();
                    if (events != null && events.Kind == JsonKind.Array) frame.JsonEvents.AddRange(events.Items);
                    var state = m.Get("state");
                    frame.HasState = state != null;
                    frame.State = state;
                    return frame;
                }
                case "ka":
                    return KeepaliveMessage.Instance;
            }
            return ReadBody(t.AsString, f);
        }

        static ServerMessage ReadBody(string kind, IFields f)
        {
            switch (kind)
            {
                case "welcome":
                {
                    var w = new WelcomeMessage
                    {
                        Version = (int)f.U16("v"),
                        PlayerId = f.VarUint("playerId"),
                        Token = f.String(128, "token"),
                        TickMs = (int)f.U16("tickMs"),
                        SyncIntervalMs = (int)f.U16("syncIntervalMs"),
                        ServerTime = f.FiniteF64("serverTime"),
                        RoomEpoch = f.FiniteF64("roomEpoch"),
                    };
                    uint flags = f.U8("flags");
                    if (flags > 3) throw new DecodeException("bad_value", $"flags {flags}");
                    w.Reconnected = (flags & 1) != 0;
                    w.Json = (flags & 2) != 0;
                    w.RoomKind = f.String(64, "roomKind");
                    w.Cap = (int)f.U16("cap");
                    w.SchemaHash = f.U32("schemaHash");
                    w.LastSeq = f.VarUint("lastSeq");
                    return w;
                }
                case "error":
                {
                    var e = new ErrorMessage { Code = (int)f.U16("code") };
                    e.RetryAfterMs = f.VarUint("retryAfterMs");
                    e.Reason = f.String(Wire.MaxReasonBytes, "reason");
                    return e;
                }
                case "pong":
                    return new PongMessage { ClientTime = f.FiniteF64("ct"), ServerTime = f.FiniteF64("st") };
                case "stats":
                    return new StatsMessage { RequestId = f.U32("id"), Stats = f.Json(1 << 20, "stats") };
                case "reply":
                {
                    var r = new ReplyMessage { RequestId = f.VarUint("id"), Code = (int)f.U16("code") };
                    if (r.Code == 0) r.Value = f.Json(Wire.MaxReplyPayloadChars * 3, "data");
                    else
                    {
                        r.RetryAfterMs = f.VarUint("retryAfterMs");
                        r.Reason = f.String(Wire.MaxReasonBytes, "reason");
                    }
                    return r;
                }
                case "cadence":
                    return new CadenceMessage { TickMs = (int)f.U16("tickMs"), SyncIntervalMs = (int)f.U16("syncIntervalMs") };
                case "notice":
                {
                    string type = f.String(32, "type");
                    if (!IsMessageType(type)) throw new DecodeException("bad_value", "bad_type");
                    return new NoticeMessage { Type = type, Data = f.Json(Wire.MaxNoticePayloadChars * 3, "data") };
                }
            }
            throw new DecodeException("unknown_kind", "kind " + (kind.Length > 32 ? kind.Substring(0, 32) : kind));
        }
    }
}
