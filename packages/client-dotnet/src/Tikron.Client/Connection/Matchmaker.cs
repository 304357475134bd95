using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Json;
using Tikron.Client.Protocol;

namespace Tikron.Client
{
    /// <summary>What a match request asks for besides the connection's own options.</summary>
    public sealed class MatchOptions
    {
        /// <summary>Filters on the metadata keys the game declared filterable: <c>{"mode":"duel","level":{"gte":3}}</c>.</summary>
        public JsonValue? Filters;
        /// <summary>Options a room created for this request is made with.</summary>
        public JsonValue? Options;
        /// <summary>Create only: the new room is private (joined by id).</summary>
        public bool Private;
    }

    /// <summary>A seat held for one player (every successful match answers one).</summary>
    public sealed class SeatReservation
    {
        /// <summary>Room kind.</summary>
        public string Kind = "";
        /// <summary>The room the seat is held in.</summary>
        public string RoomId = "";
        /// <summary>The reservation token.</summary>
        public string Reservation = "";
        /// <summary>The WebSocket URL to join with.</summary>
        public string Url = "";
        /// <summary>When the held seat is given up if unused (Unix ms).</summary>
        public double ExpiresAt;
        /// <summary>True when the room was created for this request.</summary>
        public bool Created;

        internal static SeatReservation From(JsonValue v) => new SeatReservation
        {
            Kind = v["kind"]?.AsString ?? "",
            RoomId = v["roomId"]?.AsString ?? "",
            Reservation = v["reservation"]?.AsString ?? "",
            Url = v["url"]?.AsString ?? "",
            ExpiresAt = v["expiresAt"]?.AsNumber ?? 0,
            Created = v["created"]?.AsBool ?? false,
        };
    }

    /// <summary>One room of <see cref="Matchmaker.GetAvailableRooms"/>.</summary>
    public sealed class RoomListing
    {
        /// <summary>Room id.</summary>
        public string RoomId = "";
        /// <summary>Seats taken.</summary>
        public int Clients;
        /// <summary>Bots among them.</summary>
        public int Bots;
        /// <summary>Seats held for reservations not used yet.</summary>
        public int Reserved;
        /// <summary>Seat cap.</summary>
        public int MaxClients;
        /// <summary>The game's metadata.</summary>
        public JsonValue Metadata = JsonValue.Null;
        /// <summary>When the room was created (Unix ms).</summary>
        public double CreatedAt;
    }

    /// <summary>
    /// A client of a server's matchmaker (packages/client matchmaker.ts): every call reserves a seat
    /// (<c>POST /match/&lt;kind&gt;…</c>), joins it, and completes with a joined <see cref="RoomConnection"/>;
    /// a join the room refuses (full, reservation expired, locked) matches again (4 tries in all).
    /// Refusals throw <see cref="JoinException"/> (the matchmaker's code with close code 0, or the
    /// room's refusal). While a match is in flight, pump <see cref="Poll"/> each frame (it pumps the
    /// connection being joined), or give the join options a SynchronizationContext.
    /// </summary>
    public sealed class Matchmaker
    {
        static readonly HttpClient SharedHttp = new HttpClient();
        static readonly int[] Rematch = { CloseCodes.RoomFull, CloseCodes.ReservationInvalid, CloseCodes.RoomLocked };
        const int MaxTries = 4;
        readonly string _base;
        readonly string _query;
        readonly List<RoomConnection> _joining = new List<RoomConnection>();

        /// <summary>A match ticket (room id <c>*</c>) or sign-in JWT, sent as <c>Authorization: Bearer</c>.</summary>
        public string? Ticket;
        /// <summary>Fetches the ticket before every request, instead of <see cref="Ticket"/>.</summary>
        public Func<Task<string>>? TicketProvider;
        /// <summary>The HTTP client (default: one shared by every matchmaker).</summary>
        public HttpClient Http = SharedHttp;

        /// <summary>A matchmaker of the server at <paramref name="baseUrl"/> (http(s) or ws(s); a query on it goes with every request).</summary>
        public Matchmaker(string baseUrl)
        {
            int q = baseUrl.IndexOf('?');
            string head = q >= 0 ? baseUrl.Substring(0, q) : baseUrl;
            _query = q >= 0 ? baseUrl.Substring(q + 1) : "";
            if (head.StartsWith("ws://", StringComparison.OrdinalIgnoreCase)) head = "http://" + head.Substring(5);
            else if (head.StartsWith("wss://", StringComparison.OrdinalIgnoreCase)) head = "https://" + head.Substring(6);
            _base = head.TrimEnd('/');
        }

        /// <summary>Pumps the connections being joined (see the class); returns the work items run.</summary>
        public int Poll()
        {
            int n = 0;
            lock (_joining) foreach (var c in _joining.ToArray()) n += c.Poll();
            return n;
        }

        /// <summary>A seat in the fullest open room that matches, or in a new one.</summary>
        public Task<RoomConnection> JoinOrCreate(string kind, MatchOptions? match = null, ConnectOptions? join = null) => MatchMode(kind, "joinOrCreate", match, join);
        /// <summary>A seat in a new room.</summary>
        public Task<RoomConnection> Create(string kind, MatchOptions? match = null, ConnectOptions? join = null) => MatchMode(kind, "create", match, join);
        /// <summary>A seat in an existing open room that matches; <c>no_room</c> when none.</summary>
        public Task<RoomConnection> Join(string kind, MatchOptions? match = null, ConnectOptions? join = null) => MatchMode(kind, "join", match, join);

        /// <summary>A seat in room <paramref name="roomId"/> (private rooms too).</summary>
        public Task<RoomConnection> JoinById(string kind, string roomId, ConnectOptions? join = null) =>
            JoinLoop(kind, "/room/" + Uri.EscapeDataString(roomId), () => JsonValue.NewObject(), join);

        /// <summary>Waits in the kind's queue for a group of near rating, then joins its room; cancelling leaves the queue.</summary>
        public async Task<RoomConnection> Queue(string kind, double rating, ConnectOptions? join = null, CancellationToken cancel = default)
        {
            string queueId = Guid.NewGuid().ToString("N");
            using (cancel.Register(() => _ = Fetch($"/{Uri.EscapeDataString(kind)}/queue/{queueId}", HttpMethod.Delete, null).ContinueWith(_ => { }, TaskScheduler.Default)))
                return await JoinLoop(kind, "/queue", () => JsonValue.NewObject().Set("rating", rating).Set("queueId", queueId), join).ConfigureAwait(false);
        }

        /// <summary>Reserves a seat without joining it (pass its reservation and room id to <see cref="TikronClient.Connect"/>).</summary>
        /// <remarks>Pass the join options the connection will send (<paramref name="joinOptions"/>): the matchmaker refuses ones the room would before it reserves.</remarks>
        public async Task<SeatReservation> Reserve(string kind, string mode = "joinOrCreate", MatchOptions? match = null, JsonValue? joinOptions = null) =>
            SeatReservation.From(await Fetch("/" + Uri.EscapeDataString(kind), HttpMethod.Post, WithJoinOptions(MatchBody(mode, match), joinOptions)).ConfigureAwait(false));

        /// <summary>A request's body with the player's join options, when there are any.</summary>
        static JsonValue WithJoinOptions(JsonValue body, JsonValue? joinOptions) =>
            joinOptions != null && joinOptions.Kind == JsonKind.Object ? body.Set("joinOptions", joinOptions) : body;

        /// <summary>Public, unlocked rooms of <paramref name="kind"/> with a free seat, fullest first.</summary>
        public async Task<List<RoomListing>> GetAvailableRooms(string kind, JsonValue? filters = null)
        {
            var q = new StringBuilder();
            if (filters != null)
                foreach (var f in filters.Members)
                {
                    if (f.Value.Kind != JsonKind.Object) Param(q, f.Key, Text(f.Value));
                    else foreach (var b in f.Value.Members) Param(q, f.Key + "." + b.Key, Text(b.Value));
                }
            var answer = await Fetch($"/{Uri.EscapeDataString(kind)}/rooms?{q}", HttpMethod.Get, null).ConfigureAwait(false);
            var rooms = new List<RoomListing>();
            foreach (var r in answer.Items)
                rooms.Add(new RoomListing
                {
                    RoomId = r["roomId"]?.AsString ?? "",
                    Clients = (int)(r["clients"]?.AsNumber ?? 0),
                    Bots = (int)(r["bots"]?.AsNumber ?? 0),
                    Reserved = (int)(r["reserved"]?.AsNumber ?? 0),
                    MaxClients = (int)(r["maxClients"]?.AsNumber ?? 0),
                    Metadata = r["metadata"] ?? JsonValue.Null,
                    CreatedAt = r["createdAt"]?.AsNumber ?? 0,
                });
            return rooms;
        }

        static string Text(JsonValue v) => v.Kind == JsonKind.String ? v.AsString : v.ToString();

        static void Param(StringBuilder q, string key, string value)
        {
            if (q.Length > 0) q.Append('&');
            q.Append(Uri.EscapeDataString(key)).Append('=').Append(Uri.EscapeDataString(value));
        }

        static JsonValue MatchBody(string mode, MatchOptions? match)
        {
            var body = JsonValue.NewObject().Set("mode", mode);
            if (match?.Filters != null) body.Set("filters", match.Filters);
            if (match?.Options != null) body.Set("options", match.Options);
            if (match != null && match.Private) body.Set("private", true);
            return body;
        }

        Task<RoomConnection> MatchMode(string kind, string mode, MatchOptions? match, ConnectOptions? join) =>
            JoinLoop(kind, "", () => MatchBody(mode, match), join);

        async Task<RoomConnection> JoinLoop(string kind, string path, Func<JsonValue> body, ConnectOptions? join)
        {
            Exception? last = null;
            for (int tries = 0; tries < MaxTries; tries++)
            {
                try
                {
                    // The join options go in the request too: the matchmaker refuses ones the room would (bad_request) before it reserves.
                    var seat = SeatReservation.From(await Fetch("/" + Uri.EscapeDataString(kind) + path, HttpMethod.Post, WithJoinOptions(body(), join?.JoinOptions)).ConfigureAwait(false));
                    var opts = (join ?? new ConnectOptions()).Copy();
                    opts.Kind = kind;
                    opts.Room = seat.RoomId;
                    opts.Reservation = seat.Reservation;
                    opts.Ticket = null;
                    opts.TicketProvider = null;
                    int rooms = seat.Url.IndexOf("/rooms/", StringComparison.Ordinal);
                    var conn = TikronClient.Connect(rooms >= 0 ? seat.Url.Substring(0, rooms) : seat.Url, opts);
                    lock (_joining) _joining.Add(conn);
                    try
                    {
                        await conn.WhenJoined().ConfigureAwait(false);
                    }
                    finally
                    {
                        lock (_joining) _joining.Remove(conn);
                    }
                    return conn;
                }
                catch (JoinException e)
                {
                    last = e;
                    bool again = Array.IndexOf(Rematch, e.CloseCode) >= 0 || e.Code == "unavailable" || e.Code == "rate_limited";
                    if (!again) throw;
                    if (e.RetryAfterMs > 0) await Task.Delay((int)Math.Min(e.RetryAfterMs, 10_000)).ConfigureAwait(false);
                }
            }
            throw last!;
        }

        async Task<JsonValue> Fetch(string path, HttpMethod method, JsonValue? body)
        {
            string? ticket = TicketProvider != null ? await TicketProvider().ConfigureAwait(false) : Ticket;
            string q = _query.Length == 0 ? "" : (path.Contains("?") ? "&" : "?") + _query;
            using var req = new HttpRequestMessage(method, _base + "/match" + path + q);
            if (!string.IsNullOrEmpty(ticket)) req.Headers.TryAddWithoutValidation("Authorization", "Bearer " + ticket);
            if (body != null) req.Content = new StringContent(body.ToString(), Encoding.UTF8, "application/json");
            using var res = await Http.SendAsync(req).ConfigureAwait(false);
            if ((int)res.StatusCode == 204) return JsonValue.Null;
            string text = await res.Content.ReadAsStringAsync().ConfigureAwait(false);
            JsonValue answer;
            try
            {
                answer = JsonValue.Parse(text);
            }
            catch (FormatException)
            {
                answer = JsonValue.NewObject();
            }
            if (!res.IsSuccessStatusCode)
            {
                var code = answer.Kind == JsonKind.Object ? answer["code"] : null;
                var reason = answer.Kind == JsonKind.Object ? answer["reason"] : null;
                var retry = answer.Kind == JsonKind.Object ? answer["retryAfterMs"] : null;
                throw new JoinException(code?.Kind == JsonKind.String ? code.AsString : "unavailable", 0,
                    reason?.Kind == JsonKind.String ? reason.AsString : res.ReasonPhrase ?? "",
                    retry?.Kind == JsonKind.Number ? (long)retry.AsNumber : 0);
            }
            return answer;
        }
    }
}
