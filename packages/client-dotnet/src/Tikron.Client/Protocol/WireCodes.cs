using System.Collections.Generic;

namespace Tikron.Client.Protocol
{
    /// <summary>
    /// The protocol's numbers, as packages/protocol defines them (constants.ts, wireCodes.ts,
    /// errorCodes.ts; docs/protocol.md lists them). The golden files (test/golden) hold both
    /// clients to the same values.
    /// </summary>
    public static class Wire
    {
        /// <summary>Protocol version sent in hello and read in welcome.</summary>
        public const int ProtocolVersion = 1;
        /// <summary>Largest client frame the server accepts (bytes; text: UTF-16 units).</summary>
        public const int MaxClientFrameBytes = 4096;
        /// <summary>Most inputs one INPUT frame may batch.</summary>
        public const int MaxInputsPerFrame = 16;
        /// <summary>Largest payload of one input (bytes).</summary>
        public const int MaxInputPayloadBytes = 256;
        /// <summary>Most events one FRAME may carry.</summary>
        public const int MaxEventsPerFrame = 4096;
        /// <summary>A receipt is due after this many server messages ...</summary>
        public const int ReceiptEveryMessages = 16;
        /// <summary>... or this many bytes (UTF-16 units of text).</summary>
        public const int ReceiptEveryBytes = 32 * 1024;
        /// <summary>Longest refusal reason a client reads (bytes of UTF-8).</summary>
        public const int MaxReasonBytes = 1024;
        /// <summary>Longest room message payload (UTF-16 units of its JSON text).</summary>
        public const int MaxMessagePayloadChars = 2048;
        /// <summary>Longest reply payload a room sends (UTF-16 units of JSON text).</summary>
        public const int MaxReplyPayloadChars = 16384;
        /// <summary>Longest notice payload a room sends (UTF-16 units of JSON text).</summary>
        public const int MaxNoticePayloadChars = 16384;
        /// <summary>Largest entity id on the wire.</summary>
        public const int MaxEntityId = 0x3fffffff;
        /// <summary>The JSON rooms' keepalive text, answered with the same text.</summary>
        public const string JsonKeepalive = "{\"t\":\"ka\"}";
    }

    /// <summary>One-byte message kinds: client to server below 0x80, server to client from 0x81.</summary>
    public static class Kind
    {
        /// <summary>Client: join or resume a seat.</summary>
        public const byte Hello = 0x01;
        /// <summary>Client: one or more inputs.</summary>
        public const byte Input = 0x02;
        /// <summary>Client: clock-sync ping.</summary>
        public const byte Ping = 0x03;
        /// <summary>Client: asks for the room's tk:stats.</summary>
        public const byte StatsRequest = 0x04;
        /// <summary>Client: leaves for good.</summary>
        public const byte Leave = 0x05;
        /// <summary>Client: what it has read (backpressure).</summary>
        public const byte Receipt = 0x06;
        /// <summary>Client: a room message, optionally a request.</summary>
        public const byte Message = 0x07;
        /// <summary>Server: the seat, its token and the room's timing.</summary>
        public const byte Welcome = 0x81;
        /// <summary>Server: one flush's ack, events and state delta.</summary>
        public const byte Frame = 0x82;
        /// <summary>Server: a refusal.</summary>
        public const byte Error = 0x83;
        /// <summary>Server: answer to a ping.</summary>
        public const byte Pong = 0x84;
        /// <summary>Server: a tk:stats snapshot.</summary>
        public const byte Stats = 0x85;
        /// <summary>Server: the answer to a request.</summary>
        public const byte Reply = 0x86;
        /// <summary>Server: the room's rates changed.</summary>
        public const byte Cadence = 0x87;
        /// <summary>Server: a notice from the game.</summary>
        public const byte Notice = 0x88;
        /// <summary>
        /// Server: several frames in one message, sent only to delayed spectators. This client
        /// does not spectate, so it never receives one (its decoder refuses it as an unknown kind).
        /// </summary>
        public const byte Bundle = 0x89;
    }

    /// <summary>FRAME flag bits: which sections follow the header.</summary>
    public static class FrameFlag
    {
        /// <summary>The frame carries an ack.</summary>
        public const int Ack = 1;
        /// <summary>The frame carries events.</summary>
        public const int Events = 2;
        /// <summary>The frame carries a delta body.</summary>
        public const int Delta = 4;
    }

    /// <summary>Delta body section bits, in wire order.</summary>
    public static class DeltaSection
    {
        /// <summary>Entity ids that left the view.</summary>
        public const int Leaves = 1;
        /// <summary>Entities that entered, whole.</summary>
        public const int Enters = 2;
        /// <summary>Changed fields of entities in view.</summary>
        public const int Updates = 4;
    }

    /// <summary>ERROR and REPLY codes (the error table of docs/protocol.md).</summary>
    public static class ErrorCodes
    {
        static readonly string[] Names =
        {
            "", "bad_frame", "unknown_kind", "bad_input", "room_full", "rate_limited", "not_joined", "illegal_move",
            "not_your_turn", "version_mismatch", "join_throttled", "frame_too_large", "speed_violation", "already_joined",
            "bad_token", "unknown_message", "message_too_large", "bad_message", "internal", "reservation_invalid",
            "room_locked", "banned", "bad_request", "join_refused", "admission_failed", "spectating",
        };

        /// <summary>The reserved code a client acts on: its reconnect token was refused.</summary>
        public const int BadToken = 14;

        /// <summary>The symbolic name of an error code, or <c>unknown</c>.</summary>
        public static string Name(int code) => code > 0 && code < Names.Length ? Names[code] : "unknown";
    }

    /// <summary>WebSocket close codes rooms and hosts send, and the rules a client follows on them.</summary>
    public static class CloseCodes
    {
        /// <summary>After leave: the seat is freed.</summary>
        public const int Normal = 1000;
        /// <summary>The server is going away (deploy, restart, a relay promotion).</summary>
        public const int GoingAway = 1001;
        /// <summary>Client side: the server sent something the client cannot decode.</summary>
        public const int ProtocolError = 4000;
        /// <summary>Hello refused (version or dialect).</summary>
        public const int BadHello = 4001;
        /// <summary>Every seat is taken.</summary>
        public const int RoomFull = 4002;
        /// <summary>The room's join admission is exhausted: retry after the wait in the reason.</summary>
        public const int JoinThrottled = 4009;
        /// <summary>No credential, or a bad one.</summary>
        public const int Unauthorized = 4011;
        /// <summary>The seat reservation is not held: match again.</summary>
        public const int ReservationInvalid = 4020;
        /// <summary>The room is locked.</summary>
        public const int RoomLocked = 4021;
        /// <summary>The game refused the player before seating it: the reason is <c>&lt;the game's code&gt;: &lt;its reason&gt;</c>.</summary>
        public const int JoinRefused = 4024;

        static readonly Dictionary<int, string> NamesByCode = new Dictionary<int, string>
        {
            { 1000, "normal" }, { 1001, "going_away" }, { 4000, "protocol_error" }, { 4001, "bad_hello" }, { 4002, "room_full" },
            { 4003, "rate_limited" }, { 4004, "slow_consumer" }, { 4005, "replaced" }, { 4006, "hello_timeout" },
            { 4007, "frame_too_large" }, { 4008, "room_closed" }, { 4009, "join_throttled" }, { 4010, "too_many_errors" },
            { 4011, "unauthorized" }, { 4012, "forbidden" }, { 4013, "not_found" }, { 4014, "bad_request" }, { 4015, "unavailable" },
            { 4020, "reservation_invalid" }, { 4021, "room_locked" }, { 4022, "kicked" }, { 4023, "banned" }, { 4024, "join_refused" },
            { 4025, "spectators_full" },
        };

        /// <summary>Join refusals a retry meets again (the protocol's FINAL_JOIN_REFUSALS).</summary>
        static readonly HashSet<int> FinalJoinRefusals = new HashSet<int> { 4002, 4011, 4012, 4013, 4014, 4015, 4020, 4021, 4023, 4024 };

        /// <summary>Closes a client does not come back from on its own (the protocol's FINAL_CLOSES).</summary>
        static readonly HashSet<int> Final = new HashSet<int>(FinalJoinRefusals) { 1000, 1002, 1003, 1007, 1008, 1009, 1010, 4000, 4001, 4005, 4007, 4008, 4010, 4022 };

        /// <summary>The close's name (<c>room_full</c>, ...) or <c>unknown</c> (e.g. 1006).</summary>
        public static string Name(int code) => NamesByCode.TryGetValue(code, out var n) ? n : "unknown";

        /// <summary>True when a close with this code may be retried: not a final close.</summary>
        public static bool IsRetryable(int code) => !Final.Contains(code);

        /// <summary>True for the join refusals a retry meets again.</summary>
        public static bool IsFinalJoinRefusal(int code) => FinalJoinRefusals.Contains(code);

        /// <summary>
        /// Reads a close reason written as <c>retry in &lt;ms&gt; ms: &lt;reason&gt;</c> (the way a wait travels in a
        /// refused join's close); any other reason comes back whole with no wait.
        /// </summary>
        public static (string Reason, long RetryAfterMs) ReadReason(string reason)
        {
            const string prefix = "retry in ";
            if (reason == null) return ("", 0);
            if (!reason.StartsWith(prefix, System.StringComparison.Ordinal)) return (reason, 0);
            int i = prefix.Length, start = i;
            while (i < reason.Length && i - start < 10 && reason[i] >= '0' && reason[i] <= '9') i++;
            const string tail = " ms: ";
            if (i == start || string.CompareOrdinal(reason, i, tail, 0, tail.Length) != 0) return (reason, 0);
            long ms = long.Parse(reason.Substring(start, i - start), System.Globalization.CultureInfo.InvariantCulture);
            return (reason.Substring(i + tail.Length), System.Math.Min(ms, 0xffffffffL));
        }
    }
}
