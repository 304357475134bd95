using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;

namespace Tikron.Client
{
    /// <summary>
    /// A live room connection (the TypeScript SDK's <c>RoomConnection</c>): joins, keeps the seat
    /// across drops (jittered backoff; <c>join_throttled</c> retried no sooner than asked), and turns
    /// the room's messages into events. Made by <see cref="TikronClient.Connect"/> or the <see cref="Matchmaker"/>.
    ///
    /// Threads: sockets and timers only queue work; every event handler, every change of
    /// <see cref="View"/> and every state change runs inside <see cref="Poll"/>, which the game calls
    /// on its main thread each frame (or on the <see cref="ConnectOptions.SynchronizationContext"/>
    /// given). Call the connection's methods from that thread too.
    ///
    /// The lifecycle (one socket attempt at a time, one wait per phase, every way a socket ends in
    /// one place) is this file; what the room says is RoomConnection.Messages.cs.
    /// </summary>
    public sealed partial class RoomConnection
    {
        /// <summary>A deliberate restart's retry: at once, with a fresh backoff.</summary>
        static readonly (int Attempt, double DelayMs) Restart = (0, 0);
        const double StableAfterMs = 5000;
        const double PingBurstSpacingMs = 100;

        readonly ConnectOptions _opts;
        readonly Func<double> _now;
        readonly Func<double> _random;
        readonly ClientDialect _dialect;
        readonly SocketFactory _sockets;
        readonly ConcurrentQueue<Action> _queue = new ConcurrentQueue<Action>();
        readonly SynchronizationContext? _context;
        readonly List<TaskCompletionSource<WelcomeMessage>> _joinWaiters = new List<TaskCompletionSource<WelcomeMessage>>();
        int _posted;
        int _failures;
        JoinException? _ended;
        string _token;
        IRoomSocket? _ws;
        int _attempt;
        double _helloAt = double.NaN;
        double _joinedAt;
        long _retryAfterMs;
        bool _tokenRejected;
        Timer? _timer;
        int _pingsLeft;
        bool _socketOpen;

        internal RoomConnection(string baseUrl, ConnectOptions options)
        {
            BaseUrl = baseUrl;
            _opts = options;
            _now = options.Now ?? Timing.LocalClock.Now;
            var rng = new Random();
            _random = options.Random ?? (() => rng.NextDouble());
            _dialect = options.Dialect;
            _sockets = options.Sockets ?? WebSocketTransport.Open;
            _context = options.SynchronizationContext;
            _token = options.Token ?? "";
            Room = options.Room;
            Kind = options.Kind;
            if (options.Schema != null) View = new ClientView(options.Schema);
            if (!options.StartClosed) Open();
        }

        /// <summary>The server the connection was opened against.</summary>
        public string BaseUrl { get; }
        /// <summary>The room id joined (or being joined).</summary>
        public string Room { get; }
        /// <summary>The room kind.</summary>
        public string Kind { get; }
        /// <summary>Lifecycle status.</summary>
        public ConnectionStatus Status { get; private set; } = ConnectionStatus.Idle;
        /// <summary>The latest welcome (its rates follow later CADENCE messages), or null before the first.</summary>
        public WelcomeMessage? Welcome { get; private set; }
        /// <summary>Our player id (-1 before the first welcome).</summary>
        public long PlayerId => Welcome != null ? Welcome.PlayerId : -1;
        /// <summary>The reconnect token; keep it to reclaim the seat after a restart of the game (pass as <see cref="ConnectOptions.Token"/>).</summary>
        public string Token => _token;
        /// <summary>A binary room's entities in view (with <see cref="ConnectOptions.Schema"/>); reset on every welcome.</summary>
        public ClientView? View { get; }
        /// <summary>A JSON room's latest view (null before the first).</summary>
        public JsonValue? JsonState { get; private set; }
        /// <summary>A binary room without a schema: the latest delta body's bytes.</summary>
        public byte[]? RawState { get; private set; }
        /// <summary>Traffic counters, live.</summary>
        public ConnectionStats Stats { get; } = new ConnectionStats();
        /// <summary>The clock given in the options, if any.</summary>
        public Timing.ClockSync? Clock => _opts.Clock;

        /// <summary>Seated (first join or rejoin); <see cref="View"/> was just cleared.</summary>
        public event Action<WelcomeMessage>? Welcomed;
        /// <summary>A FRAME was applied (state, ack, or both).</summary>
        public event Action<StateEvent>? State;
        /// <summary>A game event from a frame.</summary>
        public event Action<GameEvent>? GameEvent;
        /// <summary>A notice from the room's game.</summary>
        public event Action<NoticeMessage>? Notice;
        /// <summary>The room refused something, or something went wrong locally.</summary>
        public event Action<RoomError>? Error;
        /// <summary>A socket closed; <see cref="CloseInfo.WillReconnect"/> says whether the connection lives on.</summary>
        public event Action<CloseInfo>? Closed;
        /// <summary>A reconnect attempt is scheduled.</summary>
        public event Action<ReconnectingInfo>? Reconnecting;
        /// <summary>The room's rates changed (<see cref="Welcome"/> says the new ones).</summary>
        public event Action<CadenceMessage>? Cadence;

        /// <summary>
        /// Runs everything the sockets and timers queued, in order, on the calling thread: call it
        /// once per frame from the game's main thread. Returns how many items ran.
        /// </summary>
        public int Poll()
        {
            int n = 0;
            while (_queue.TryDequeue(out var work))
            {
                work();
                n++;
            }
            return n;
        }

        /// <summary>Queues work for <see cref="Poll"/> (and posts a drain to the context when one was given).</summary>
        void Enqueue(Action work)
        {
            _queue.Enqueue(work);
            if (_context != null && Interlocked.Exchange(ref _posted, 1) == 0)
                _context.Post(_ =>
                {
                    Interlocked.Exchange(ref _posted, 0);
                    Poll();
                }, null);
        }

        /// <summary>
        /// Completes with the next welcome (at once when joined); throws a <see cref="JoinException"/>
        /// when the connection ends for good first (a refused join at once). Needs <see cref="Poll"/>
        /// pumped, or a <see cref="ConnectOptions.SynchronizationContext"/>.
        /// </summary>
        public Task<WelcomeMessage> WhenJoined()
        {
            if (Status == ConnectionStatus.Joined) return Task.FromResult(Welcome!);
            var tcs = new TaskCompletionSource<WelcomeMessage>(TaskCreationOptions.RunContinuationsAsynchronously);
            if (Status == ConnectionStatus.Closed) tcs.SetException(_ended!);
            else _joinWaiters.Add(tcs);
            return tcs.Task;
        }

        /// <summary>Connects (a connection made with StartClosed), or after a close, the same as <see cref="Reconnect"/>.</summary>
        public void Open()
        {
            if (Status == ConnectionStatus.Idle || Status == ConnectionStatus.Closed) Reconnect();
        }

        /// <summary>Drops the socket, if any, and connects again at once with the held token.</summary>
        public void Reconnect() => End(1000, "reconnect", true, Restart);

        /// <summary>Closes for good; by default sends leave first (the seat is freed at once), <paramref name="leave"/> false keeps it for the room's window.</summary>
        public void Close(bool leave = true)
        {
            if (Status == ConnectionStatus.Closed) return;
            if (leave) Post(_dialect.Leave());
            End(1000, "client closed", true, null);
        }

        void StartAttempt()
        {
            int attempt = ++_attempt;
            _retryAfterMs = 0;
            _tokenRejected = false;
            SetTimer(_opts.ConnectTimeoutMs, () => Dropped(1006, "connect timeout"));
            if (_opts.TicketProvider == null && _opts.AuthTokenProvider == null)
            {
                OpenSocket(attempt, _opts.Ticket, _opts.AuthToken);
                return;
            }
            Task.Run(async () =>
            {
                string? ticket = _opts.TicketProvider != null ? await _opts.TicketProvider().ConfigureAwait(false) : _opts.Ticket;
                string? auth = _opts.AuthTokenProvider != null ? await _opts.AuthTokenProvider().ConfigureAwait(false) : _opts.AuthToken;
                return (ticket, auth);
            }).ContinueWith(t => Enqueue(() =>
            {
                if (attempt != _attempt) return;
                if (t.IsFaulted || t.IsCanceled)
                {
                    if (LocalError("ticket_failed", "ticket: " + t.Exception?.GetBaseException().Message)) Dropped(1006, "ticket unavailable");
                    return;
                }
                OpenSocket(attempt, t.Result.ticket, t.Result.auth);
            }), TaskScheduler.Default);
        }

        void OpenSocket(int attempt, string? ticket, string? auth)
        {
            Uri url;
            try
            {
                url = new Uri(TikronClient.RoomUrl(BaseUrl, Kind, Room, ticket, _opts.Reservation, auth));
            }
            catch (UriFormatException e)
            {
                if (LocalError("bad_url", e.Message)) End(1006, "could not create socket", false, null);
                return;
            }
            var listener = new Listener(this, attempt);
            _ws = _sockets(url, listener);
            listener.Socket = _ws;
        }

        sealed class Listener : ISocketListener
        {
            readonly RoomConnection _c;
            readonly int _attempt;
            public IRoomSocket? Socket;
            public Listener(RoomConnection c, int attempt)
            {
                _c = c;
                _attempt = attempt;
            }
            bool Current => _c._attempt == _attempt && _c._ws == Socket && Socket != null;
            public void OnOpen() => _c.Enqueue(() =>
            {
                if (!Current) return;
                _c._helloAt = _c._now();
                _c._socketOpen = true;
                _c.ResetReceipts();
                _c.Post(_c._dialect.Hello(_c._token, _c._opts.Name, _c._opts.JoinOptions));
            });
            public void OnMessage(byte[]? bytes, string? text) => _c.Enqueue(() =>
            {
                if (Current) _c.OnMessage(bytes, text);
            });
            public void OnClose(int code, string reason) => _c.Enqueue(() =>
            {
                if (Current) _c.Dropped(code, reason);
            });
        }

        /// <summary>The socket ended without Close: another attempt after a backoff delay, or the end.</summary>
        void Dropped(int code, string reason)
        {
            long wait = CloseCodes.ReadReason(reason).RetryAfterMs;
            if (wait > _retryAfterMs) _retryAfterMs = wait;
            if (Status == ConnectionStatus.Joined && _now() - _joinedAt >= StableAfterMs) _failures = 0;
            bool mayRetry = CloseCodes.IsRetryable(code) || (_tokenRejected && code == CloseCodes.BadHello);
            double? delay = _opts.Reconnect && mayRetry ? BackoffDelay(_failures, _retryAfterMs) : null;
            End(code, reason, false, delay == null ? ((int, double)?)null : (++_failures, delay.Value));
        }

        double? BackoffDelay(int attempt, double minDelayMs)
        {
            if (attempt >= _opts.MaxAttempts) return null;
            double baseMs = Math.Max(0, _opts.BackoffBaseMs), maxMs = Math.Max(baseMs, _opts.BackoffMaxMs);
            double r = Math.Min(Math.Max(_random(), 0), 1);
            return Math.Min(Math.Max(0, minDelayMs) + r * Math.Min(maxMs, baseMs * Math.Pow(2, attempt)), 0x7fffffff);
        }

        /// <summary>Every way a socket ends: see the TypeScript SDK's <c>#end</c>.</summary>
        void End(int code, string reason, bool deliberate, (int Attempt, double DelayMs)? retry)
        {
            _attempt++;
            ClearTimer();
            var ws = _ws;
            _ws = null;
            _socketOpen = false;
            try
            {
                ws?.Close(code >= 4000 ? code : 1000, reason);
            }
            catch (Exception)
            {
                // Already closing or never opened.
            }
            Status = retry != null ? (Welcome != null ? ConnectionStatus.Reconnecting : ConnectionStatus.Connecting) : ConnectionStatus.Closed;
            if (retry == null)
            {
                string name = CloseCodes.Name(code);
                var ended = _ended = new JoinException(deliberate || name == "unknown" ? "closed" : name, code, CloseCodes.ReadReason(reason).Reason, _retryAfterMs);
                foreach (var w in _joinWaiters) w.TrySetException(ended);
                _joinWaiters.Clear();
            }
            FailRequests(retry != null, code, reason);
            if ((ws != null || !deliberate || retry == null) && !EmitStill(Closed, new CloseInfo { Code = code, Reason = reason, WillReconnect = retry != null, Deliberate = deliberate })) return;
            if (retry == null) return;
            if (retry.Value.Equals(Restart))
            {
                _failures = 0;
                StartAttempt();
            }
            else if (EmitStill(Reconnecting, new ReconnectingInfo { Attempt = retry.Value.Attempt, DelayMs = retry.Value.DelayMs, Code = code, Reason = reason }))
            {
                SetTimer(retry.Value.DelayMs, StartAttempt);
            }
        }

        bool CanSend => Status == ConnectionStatus.Joined && _ws != null;

        bool Post(Outgoing m)
        {
            var ws = _ws;
            if (ws == null || !_socketOpen) return false;
            ws.Send(m);
            Stats.MessagesOut++;
            Stats.BytesOut += m.Bytes?.Length ?? System.Text.Encoding.UTF8.GetByteCount(m.Text!);
            return true;
        }

        void SetTimer(double ms, Action work)
        {
            ClearTimer();
            int attempt = _attempt;
            Timer? t = null;
            t = new Timer(_ => Enqueue(() =>
            {
                if (_timer == t && attempt == _attempt) work();
            }), null, (long)Math.Max(0, Math.Min(ms, int.MaxValue)), Timeout.Infinite);
            _timer = t;
        }

        void ClearTimer()
        {
            _timer?.Dispose();
            _timer = null;
        }

        /// <summary>Invokes <paramref name="handler"/>; false when it closed, reconnected or switched the connection meanwhile.</summary>
        bool EmitStill<T>(Action<T>? handler, T payload)
        {
            int attempt = _attempt;
            handler?.Invoke(payload);
            return attempt == _attempt;
        }

        bool LocalError(string name, string reason) => EmitStill(Error, new RoomError { Name = name, Reason = reason, Local = true });
    }
}
