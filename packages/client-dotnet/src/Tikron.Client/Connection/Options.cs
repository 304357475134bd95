using System;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;
using Tikron.Client.Timing;

namespace Tikron.Client
{
    /// <summary>Options of <see cref="TikronClient.Connect"/> (the TypeScript SDK's <c>connect</c> options).</summary>
    public sealed class ConnectOptions
    {
        /// <summary>Room id (the last path segment).</summary>
        public string Room = "";
        /// <summary>Room kind, e.g. <c>agar</c>.</summary>
        public string Kind = "";
        /// <summary>A room ticket, sent as <c>?ticket=</c>.</summary>
        public string? Ticket;
        /// <summary>Fetches a fresh ticket before every attempt (single-use tickets); used instead of <see cref="Ticket"/>.</summary>
        public Func<Task<string>>? TicketProvider;
        /// <summary>A sign-in JWT of the game's provider, sent as <c>?token=</c>.</summary>
        public string? AuthToken;
        /// <summary>Fetches a fresh sign-in token before every attempt.</summary>
        public Func<Task<string>>? AuthTokenProvider;
        /// <summary>A seat reservation from the matchmaker, sent as <c>?reservation=</c> (set by <see cref="Matchmaker"/>).</summary>
        public string? Reservation;
        /// <summary>Display name sent in hello (at most 64 bytes of UTF-8).</summary>
        public string Name = "";
        /// <summary>
        /// The player's join options (a team, a skin: what the game declares), sent in every hello as a
        /// JSON object; a generated game's <c>JoinOptions.ToJson()</c>, or its <c>Options(room, joinOptions)</c>.
        /// The room checks them before a seat is taken (<c>bad_request</c> 4014 naming the option); the
        /// <see cref="Matchmaker"/> sends them with its requests too, so it refuses them before reserving.
        /// </summary>
        public JsonValue? JoinOptions;
        /// <summary>Reconnect token of an earlier session, to reclaim its seat.</summary>
        public string? Token;
        /// <summary>The dialect: <see cref="ClientDialect.Binary"/> (default) or <see cref="ClientDialect.Json"/> (turn-based rooms).</summary>
        public ClientDialect Dialect = ClientDialect.Binary;
        /// <summary>A binary room's entity schema: state decodes into <see cref="RoomConnection.View"/> and a room of another schema is refused.</summary>
        public EntitySchema? Schema;
        /// <summary>Reconnect after a drop (jittered exponential backoff). Default true.</summary>
        public bool Reconnect = true;
        /// <summary>First backoff step (ms). Default 250.</summary>
        public double BackoffBaseMs = 250;
        /// <summary>Cap on the jittered part of a delay (ms). Default 10 000.</summary>
        public double BackoffMaxMs = 10_000;
        /// <summary>Retries before giving up. Default 10.</summary>
        public int MaxAttempts = 10;
        /// <summary>Uniform [0, 1) source for the jitter (inject a seeded one in tests).</summary>
        public Func<double>? Random;
        /// <summary>An attempt not welcomed this long after it started is abandoned (ms). Default 10 000.</summary>
        public int ConnectTimeoutMs = 10_000;
        /// <summary>Keepalive period (ms): a ping in binary rooms, the fixed keepalive in JSON rooms. Default 2000.</summary>
        public int PingIntervalMs = 2000;
        /// <summary>A clock to keep synced with the room's (its <see cref="ClockSync.RoomTime()"/> counts frame time).</summary>
        public ClockSync? Clock;
        /// <summary>
        /// Where game code is called: with null (default) callbacks run only inside <see cref="RoomConnection.Poll"/>,
        /// which the game pumps each frame; with a context (e.g. Unity's or Godot's main-thread
        /// <c>SynchronizationContext.Current</c>) the connection also posts its work there. Never a socket thread.
        /// </summary>
        public SynchronizationContext? SynchronizationContext;
        /// <summary>Local monotonic clock (ms). Default <see cref="LocalClock.Now"/>.</summary>
        public Func<double>? Now;
        /// <summary>Create without connecting; <see cref="RoomConnection.Open"/> starts it.</summary>
        public bool StartClosed;
        /// <summary>How sockets are made (default: <see cref="System.Net.WebSockets.ClientWebSocket"/>). For tests.</summary>
        public SocketFactory? Sockets;

        /// <summary>A shallow copy (the matchmaker fills in the room and reservation of each attempt on one).</summary>
        public ConnectOptions Copy() => (ConnectOptions)MemberwiseClone();
    }

    /// <summary>Connection lifecycle.</summary>
    public enum ConnectionStatus
    {
        /// <summary>Created with StartClosed, not opened.</summary>
        Idle,
        /// <summary>Until the first welcome.</summary>
        Connecting,
        /// <summary>Seated.</summary>
        Joined,
        /// <summary>Between a drop and the next welcome.</summary>
        Reconnecting,
        /// <summary>For good.</summary>
        Closed,
    }

    /// <summary>One state frame as delivered to listeners.</summary>
    public readonly struct StateEvent
    {
        /// <summary>The room's tick.</summary>
        public readonly uint Tick;
        /// <summary>Room time (ms since the room epoch) of that tick.</summary>
        public readonly uint Time;
        /// <summary>Highest processed input seq, or -1 without an ack.</summary>
        public readonly long AckSeq;
        /// <summary>False when the frame carried no state section.</summary>
        public readonly bool Changed;
        /// <summary>Local time (ms) it was received.</summary>
        public readonly double ReceivedAt;

        internal StateEvent(uint tick, uint time, long ackSeq, bool changed, double receivedAt)
        {
            Tick = tick;
            Time = time;
            AckSeq = ackSeq;
            Changed = changed;
            ReceivedAt = receivedAt;
        }
    }

    /// <summary>One game event from a frame.</summary>
    public sealed class GameEvent
    {
        /// <summary>Tick of the frame that carried it.</summary>
        public uint Tick;
        /// <summary>Room time of that tick.</summary>
        public uint Time;
        /// <summary>A declared event (binary rooms whose schema declares events).</summary>
        public DeclaredEvent? Declared;
        /// <summary>A JSON room's event.</summary>
        public JsonValue? Json;
        /// <summary>The body's bytes (binary rooms without declared events).</summary>
        public byte[]? Bytes;
    }

    /// <summary>An ERROR from the room, or a problem found locally (<see cref="Local"/>).</summary>
    public sealed class RoomError
    {
        /// <summary>The error code (0 for local problems).</summary>
        public int Code;
        /// <summary>The name: the room's error name, or a local one (<c>schema_mismatch</c>, <c>version_mismatch</c>, <c>bad_frame</c>, <c>ticket_failed</c>, <c>bad_url</c>).</summary>
        public string Name = "";
        /// <summary>Detail, for logs.</summary>
        public string Reason = "";
        /// <summary>When &gt; 0, how long the room asked to wait (ms).</summary>
        public long RetryAfterMs;
        /// <summary>True when found on this side.</summary>
        public bool Local;
    }

    /// <summary>A socket closed.</summary>
    public sealed class CloseInfo
    {
        /// <summary>The close code.</summary>
        public int Code;
        /// <summary>The reason.</summary>
        public string Reason = "";
        /// <summary>True when a reconnect follows.</summary>
        public bool WillReconnect;
        /// <summary>True when the game closed it.</summary>
        public bool Deliberate;
    }

    /// <summary>A reconnect attempt is scheduled.</summary>
    public sealed class ReconnectingInfo
    {
        /// <summary>1 for the first retry since the link was last stable.</summary>
        public int Attempt;
        /// <summary>Wait before it (ms).</summary>
        public double DelayMs;
        /// <summary>The close that caused it.</summary>
        public int Code;
        /// <summary>Its reason.</summary>
        public string Reason = "";
    }

    /// <summary>Traffic counters of one connection.</summary>
    public sealed class ConnectionStats
    {
        /// <summary>Payload bytes received.</summary>
        public long BytesIn;
        /// <summary>Payload bytes sent.</summary>
        public long BytesOut;
        /// <summary>Messages received.</summary>
        public long MessagesIn;
        /// <summary>Messages sent.</summary>
        public long MessagesOut;
        /// <summary>State frames received.</summary>
        public long Frames;
        /// <summary>Inputs sent.</summary>
        public long InputsSent;
        /// <summary>Highest input seq acknowledged (-1 before any).</summary>
        public long LastAck = -1;
        /// <summary>Rejoins after a drop.</summary>
        public long Reconnects;
        /// <summary>Server messages that failed to decode.</summary>
        public long DecodeErrors;
    }
}
