using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Xunit;

namespace Tikron.Client.Tests
{
    /// <summary>The matchmaker's client against a fake HTTP server and fake sockets.</summary>
    public class MatchmakerTests
    {
        sealed class FakeHttp : HttpMessageHandler
        {
            public readonly List<(string Method, string Url, string? Auth, string Body)> Requests = new List<(string, string, string?, string)>();
            public readonly Queue<(int Status, string Body)> Answers = new Queue<(int, string)>();

            protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
            {
                string body = request.Content == null ? "" : await request.Content.ReadAsStringAsync(cancellationToken);
                request.Headers.TryGetValues("Authorization", out var auth);
                Requests.Add((request.Method.Method, request.RequestUri!.ToString(), auth == null ? null : string.Join(",", auth), body));
                var (status, answer) = Answers.Dequeue();
                return new HttpResponseMessage((HttpStatusCode)status) { Content = new StringContent(answer, Encoding.UTF8, "application/json") };
            }
        }

        static string Seat(string room, string reservation) =>
            $"{{\"kind\":\"agar\",\"roomId\":\"{room}\",\"reservation\":\"{reservation}\",\"url\":\"ws://host:1/rooms/agar/{room}?reservation={reservation}\",\"expiresAt\":1,\"created\":true}}";

        static byte[] Welcome() => new WireWriter().U8(Kind.Welcome).U16(1).VarUint(3).String("t").U16(50).U16(50).F64(1).F64(1)
            .U8(0).String("agar").U16(20).U32(0).VarUint(0).ToArray();

        /// <summary>Pumps the matchmaker (and so the connection being joined) while the test plays the room.</summary>
        static T Pump<T>(Matchmaker mm, Task<T> task, FakeSockets sockets, Action<FakeSocket> room)
        {
            int seen = 0;
            var watch = Stopwatch.StartNew();
            while (!task.IsCompleted && watch.ElapsedMilliseconds < 10_000)
            {
                mm.Poll();
                if (sockets.All.Count > seen)
                {
                    room(sockets.All[seen]);
                    seen++;
                    mm.Poll();
                }
                Thread.Sleep(2);
            }
            return task.GetAwaiter().GetResult();
        }

        [Fact]
        public void AFullRoomIsMatchedAgainAndTheSecondSeatJoined()
        {
            var http = new FakeHttp();
            http.Answers.Enqueue((200, Seat("r1", "res1")));
            http.Answers.Enqueue((200, Seat("r2", "res2")));
            var mm = new Matchmaker("http://host:1/?region=eu") { Http = new HttpClient(http), Ticket = "match-ticket" };
            var sockets = new FakeSockets();
            var options = new ConnectOptions { Name = "ann", Sockets = sockets.Open, PingIntervalMs = 1_000_000 };
            var conn = Pump(mm, mm.JoinOrCreate("agar", new MatchOptions { Filters = JsonValue.NewObject().Set("mode", "duel") }, options), sockets, s =>
            {
                s.Listener.OnOpen();
                if (s.Url.AbsolutePath.EndsWith("/r1")) s.Listener.OnClose(4002, "room is full");
                else s.Listener.OnMessage(Welcome(), null);
            });
            Assert.Equal("r2", conn.Room);
            Assert.Equal(ConnectionStatus.Joined, conn.Status);
            Assert.Equal("ws://host:1/rooms/agar/r2?reservation=res2", sockets.Last.Url.ToString());
            Assert.Equal(2, http.Requests.Count);
            Assert.Equal(("POST", "http://host:1/match/agar?region=eu", "Bearer match-ticket", "{\"mode\":\"joinOrCreate\",\"filters\":{\"mode\":\"duel\"}}"), http.Requests[0]);
            // The options given are a template: the match filled in a copy.
            Assert.Equal("", options.Room);
        }

        [Fact]
        public void JoinOptionsGoInTheMatchRequestAndInTheHello()
        {
            var http = new FakeHttp();
            http.Answers.Enqueue((200, Seat("r1", "res1")));
            var mm = new Matchmaker("http://host:1") { Http = new HttpClient(http) };
            var sockets = new FakeSockets();
            var options = Games.Ttt.TttGame.Options(joinOptions: new Games.Ttt.JoinOptions { Mark = "O" });
            options.Name = "ann";
            options.Sockets = sockets.Open;
            options.PingIntervalMs = 1_000_000;
            options.Dialect = ClientDialect.Binary;
            var conn = Pump(mm, mm.JoinOrCreate("agar", null, options), sockets, s =>
            {
                s.Listener.OnOpen();
                s.Listener.OnMessage(Welcome(), null);
            });
            Assert.Equal(ConnectionStatus.Joined, conn.Status);
            Assert.Equal("{\"mode\":\"joinOrCreate\",\"joinOptions\":{\"mark\":\"O\"}}", http.Requests[0].Body);
            var hello = sockets.Last.Sent[0].Bytes!;
            Assert.Equal(Golden.Hex(new WireWriter().U8(Kind.Hello).U16(1).String("").String("ann").String("{\"mark\":\"O\"}").ToArray()), Golden.Hex(hello));
        }

        [Fact]
        public void TheGamesRefusalOfAJoinIsFinalAndNamed()
        {
            Assert.Equal("join_refused", CloseCodes.Name(CloseCodes.JoinRefused));
            Assert.True(CloseCodes.IsFinalJoinRefusal(4024));
            Assert.False(CloseCodes.IsRetryable(4024));
            Assert.Equal(("bad_request", "join_refused", "admission_failed"), (ErrorCodes.Name(22), ErrorCodes.Name(23), ErrorCodes.Name(24)));
        }

        [Fact]
        public async Task AMatchmakersRefusalIsAJoinExceptionWithCloseCodeZero()
        {
            var http = new FakeHttp();
            http.Answers.Enqueue((404, "{\"code\":\"no_room\",\"reason\":\"no open room matches\"}"));
            var mm = new Matchmaker("https://host") { Http = new HttpClient(http) };
            var e = await Assert.ThrowsAsync<JoinException>(() => mm.Join("agar"));
            Assert.Equal(("no_room", 0, "no open room matches"), (e.Code, e.CloseCode, e.Reason));
            Assert.Equal("{\"mode\":\"join\"}", http.Requests[0].Body);
        }

        [Fact]
        public async Task ABadTicketIsUnauthorizedFromTheMatchmakerAsOnConnectAndNotAskedAgain()
        {
            var http = new FakeHttp();
            http.Answers.Enqueue((401, "{\"code\":\"unauthorized\",\"reason\":\"match request refused: ticket signature is invalid\"}"));
            var mm = new Matchmaker("https://host") { Http = new HttpClient(http), Ticket = "forged" };
            var e = await Assert.ThrowsAsync<JoinException>(() => mm.JoinOrCreate("agar", null, new ConnectOptions()));
            // The code a 4011 close names on connect (CloseCodes' table), with the matchmaker's close code 0.
            Assert.Equal((CloseCodes.Name(CloseCodes.Unauthorized), 0), (e.Code, e.CloseCode));
            Assert.Single(http.Requests);
        }

        [Fact]
        public async Task RoomsAreListedWithTheirFiltersInTheQuery()
        {
            var http = new FakeHttp();
            http.Answers.Enqueue((200, "[{\"roomId\":\"a\",\"clients\":3,\"bots\":1,\"reserved\":0,\"maxClients\":20,\"metadata\":{\"mode\":\"duel\"},\"createdAt\":5}]"));
            var mm = new Matchmaker("wss://host/") { Http = new HttpClient(http) };
            var rooms = await mm.GetAvailableRooms("agar", JsonValue.NewObject().Set("mode", "duel").Set("level", JsonValue.NewObject().Set("gte", 3)));
            Assert.Equal("https://host/match/agar/rooms?mode=duel&level.gte=3", http.Requests[0].Url);
            var r = Assert.Single(rooms);
            Assert.Equal(("a", 3, 1, 20, "duel"), (r.RoomId, r.Clients, r.Bots, r.MaxClients, r.Metadata["mode"]!.AsString));
        }
    }
}
