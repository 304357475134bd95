using System.Collections.Generic;
using Tikron.Client.Json;

namespace Tikron.Client.Protocol
{
    /// <summary>A decoded server message, in either dialect (binary frames, JSON text).</summary>
    public abstract class ServerMessage { }

    /// <summary>WELCOME: the seat, its token and the room's clocks (sent on every join and rejoin).</summary>
    public sealed class WelcomeMessage : ServerMessage
    {
        /// <summary>Protocol version the room speaks.</summary>
        public int Version;
        /// <summary>The seat's player id.</summary>
        public uint PlayerId;
        /// <summary>Present it in a later hello to reclaim the seat.</summary>
        public string Token = "";
        /// <summary>Tick length (ms).</summary>
        public int TickMs;
        /// <summary>Least ms between two state frames.</summary>
        public int SyncIntervalMs;
        /// <summary>Server wall clock (epoch ms) when written.</summary>
        public double ServerTime;
        /// <summary>Epoch ms of room time 0.</summary>
        public double RoomEpoch;
        /// <summary>True when a held seat was restored.</summary>
        public bool Reconnected;
        /// <summary>True in JSON rooms.</summary>
        public bool Json;
        /// <summary>The room's kind.</summary>
        public string RoomKind = "";
        /// <summary>The room's seat cap.</summary>
        public int Cap;
        /// <summary>The room's schema hash (0 in JSON rooms).</summary>
        public uint SchemaHash;
        /// <summary>Highest input seq the room processed for this seat.</summary>
        public uint LastSeq;
    }

    /// <summary>
    /// FRAME (binary) or <c>state</c> (JSON): one flush for this client. Binary frames point into the
    /// received bytes (<see cref="Bytes"/>): the delta body and each event body are ranges of it.
    /// </summary>
    public sealed class FrameMessage : ServerMessage
    {
        /// <summary>The tick the frame belongs to.</summary>
        public uint Tick;
        /// <summary>Room time (ms since the room epoch) of that tick.</summary>
        public uint Time;
        /// <summary>Highest processed input seq, or -1 without an ack.</summary>
        public long AckSeq = -1;
        /// <summary>True when the frame carries a state section.</summary>
        public bool HasState;
        /// <summary>Binary: the whole message.</summary>
        public byte[]? Bytes;
        /// <summary>Binary: where the delta body starts (it runs to the end), -1 without one.</summary>
        public int BodyOffset = -1;
        /// <summary>Binary: event bodies as (offset, length) into <see cref="Bytes"/>.</summary>
        public List<(int Offset, int Length)>? EventRanges;
        /// <summary>JSON: the view (may be the JSON null).</summary>
        public JsonValue? State;
        /// <summary>JSON: the events.</summary>
        public List<JsonValue>? JsonEvents;

        /// <summary>Number of events.</summary>
        public int EventCount => EventRanges?.Count ?? JsonEvents?.Count ?? 0;
    }

    /// <summary>ERROR: a refusal or a protocol error.</summary>
    public sealed class ErrorMessage : ServerMessage
    {
        /// <summary>The error code (<see cref="ErrorCodes.Name"/> names it).</summary>
        public int Code;
        /// <summary>When &gt; 0, how long to wait before trying again (ms).</summary>
        public long RetryAfterMs;
        /// <summary>Human-readable reason.</summary>
        public string Reason = "";
    }

    /// <summary>PONG: the ping's client time echoed, and the server time.</summary>
    public sealed class PongMessage : ServerMessage
    {
        /// <summary>The ping's client time.</summary>
        public double ClientTime;
        /// <summary>Server wall clock at answering.</summary>
        public double ServerTime;
    }

    /// <summary>STATS: the answer to a tk:stats request.</summary>
    public sealed class StatsMessage : ServerMessage
    {
        /// <summary>The request's id.</summary>
        public uint RequestId;
        /// <summary>The snapshot.</summary>
        public JsonValue Stats = JsonValue.Null;
    }

    /// <summary>REPLY: the answer to a room message request.</summary>
    public sealed class ReplyMessage : ServerMessage
    {
        /// <summary>The request's id.</summary>
        public uint RequestId;
        /// <summary>0 on success, else the error code.</summary>
        public int Code;
        /// <summary>Refusals: the wait asked for (ms).</summary>
        public long RetryAfterMs;
        /// <summary>Refusals: the reason.</summary>
        public string Reason = "";
        /// <summary>Success: the value.</summary>
        public JsonValue? Value;
    }

    /// <summary>CADENCE: the room's rates changed.</summary>
    public sealed class CadenceMessage : ServerMessage
    {
        /// <summary>Tick length (ms).</summary>
        public int TickMs;
        /// <summary>Least ms between two state frames.</summary>
        public int SyncIntervalMs;
    }

    /// <summary>NOTICE: a message the game sent on its own.</summary>
    public sealed class NoticeMessage : ServerMessage
    {
        /// <summary>The notice type.</summary>
        public string Type = "";
        /// <summary>The payload.</summary>
        public JsonValue Data = JsonValue.Null;
    }

    /// <summary>The JSON rooms' keepalive answer.</summary>
    public sealed class KeepaliveMessage : ServerMessage
    {
        /// <summary>The one instance.</summary>
        public static readonly KeepaliveMessage Instance = new KeepaliveMessage();
    }
}
