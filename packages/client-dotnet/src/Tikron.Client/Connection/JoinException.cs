using System;

namespace Tikron.Client
{
    /// <summary>
    /// Why a connection ended without a seat (what <see cref="RoomConnection.WhenJoined"/> throws), or
    /// why a match failed. <see cref="Code"/> names the close (<c>room_full</c>, <c>unauthorized</c>,
    /// <c>join_throttled</c> once the retries are used up, <c>replaced</c>, …), <c>closed</c> for the
    /// game's own close or a drop with no code of the table, or the matchmaker's refusal
    /// (<c>no_room</c>, <c>bad_filter</c>, <c>queue_timeout</c>, …; <see cref="CloseCode"/> 0 then).
    /// </summary>
    public sealed class JoinException : Exception
    {
        /// <summary>The close's name, <c>closed</c>, or the matchmaker's code.</summary>
        public string Code { get; }
        /// <summary>The WebSocket close code (1006 for a drop; 0 for a matchmaker's refusal).</summary>
        public int CloseCode { get; }
        /// <summary>The server's reason, without the wait it may have asked for.</summary>
        public string Reason { get; }
        /// <summary>When &gt; 0, how long the server asked to wait before trying again (ms).</summary>
        public long RetryAfterMs { get; }

        /// <summary>A refusal.</summary>
        public JoinException(string code, int closeCode, string reason, long retryAfterMs = 0) : base(string.IsNullOrEmpty(reason) ? code : $"{code}: {reason}")
        {
            Code = code;
            CloseCode = closeCode;
            Reason = reason;
            RetryAfterMs = retryAfterMs;
        }
    }

    /// <summary>
    /// Why a request to the room failed: the room's refusal (<see cref="Code"/> its error name, e.g.
    /// <c>rate_limited</c>), or <c>timeout</c>, <c>closed</c>, <c>not_joined</c>, <c>message_too_large</c>,
    /// <c>bad_message</c> found on this side.
    /// </summary>
    public sealed class RequestException : Exception
    {
        /// <summary>The error name.</summary>
        public string Code { get; }
        /// <summary>When &gt; 0, how long the room asked to wait (ms).</summary>
        public long RetryAfterMs { get; }

        /// <summary>A failed request.</summary>
        public RequestException(string code, string message, long retryAfterMs = 0) : base(message)
        {
            Code = code;
            RetryAfterMs = retryAfterMs;
        }
    }
}
