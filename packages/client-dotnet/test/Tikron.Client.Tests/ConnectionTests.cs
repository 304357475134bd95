using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Xunit;

namespace Tikron.Client.Tests
{
    /// <summary>The connection's life against fake sockets: refusals, reconnects, inputs, requests, threads.</summary>
    public class ConnectionTests
    {
        static byte[] Welcome(string token = "tok", uint playerId = 7, uint lastSeq = 0, uint hash = 0, bool reconnected = false, double epoch = 1000) =>
            new WireWriter().U8(Kind.Welcome).U16(1).VarUint(playerId).String(token).U16(50).U16(50).F64(epoch + 5).F64(epoch)
                .U8(reconnected ? 1 : 0).String("agar").U16(20).U32(hash).VarUint(lastSeq).ToArray();

        static (RoomConnection Conn, FakeSockets Sockets) Open(Action<ConnectOptions>? tweak = null)
        {
            var sockets = new FakeSockets();
            var o = new ConnectOptions { Kind = "agar", Room = "r1", Sockets = sockets.Open, Random = () => 0, BackoffBaseMs = 10, PingIntervalMs = 1_000_000 };
            tweak?.Invoke(o);
            var conn = TikronClient.Connect("http://host:1/", o);
            conn.Poll();
            return (conn, sockets);
        }

        static void Deliver(RoomConnection conn, FakeSocket s, byte[] m)
        {
            s.Listener.OnMessage(m, null);
            conn.Poll();
        }

        /// <summary>Pumps until <paramref name="done"/> or 5 s.</summary>
        static void PumpUntil(RoomConnection conn, Func<bool> done)
        {
            var watch = Stopwatch.StartNew();
            while (!done() && watch.ElapsedMilliseconds < 5000)
            {
                conn.Poll();
                Thread.Sleep(2);
            }
            Assert.True(done(), "timed out");
        }

        [Fact]
        public async Task AFullRoomEndsTheConnectionWithATypedJoinException()
        {
            var (conn, sockets) = Open();
            Assert.Equal("ws://host:1/rooms/agar/r1", sockets.Last.Url.ToString());
            var joined = conn.WhenJoined();
            sockets.Last.Listener.OnOpen();
            sockets.Last.Listener.OnClose(4002, "room is full");
            conn.Poll();
            var e = await Assert.ThrowsAsync<JoinException>(() => joined);
            Assert.Equal(("room_full", 4002, "room is full"), (e.Code, e.CloseCode, e.Reason));
            Assert.Equal(ConnectionStatus.Closed, conn.Status);
            Assert.Single(sockets.All);
        }

        [Fact]
        public void AThrottledJoinIsRetriedNoSoonerThanTheWaitItAskedFor()
        {
            var (conn, sockets) = Open();
            ReconnectingInfo? info = null;
            conn.Reconnecting += r => info = r;
            sockets.Last.Listener.OnClose(4009, "retry in 300 ms: joining too fast");
            conn.Poll();
            Assert.Equal(300, info!.DelayMs);
            var watch = Stopwatch.StartNew();
            PumpUntil(conn, () => sockets.All.Count == 2);
            Assert.True(watch.ElapsedMilliseconds >= 250, $"retried after {watch.ElapsedMilliseconds} ms");
        }

        [Fact]
        public void ADropReconnectsWithTheSeatsTokenAndInputsGoOnAboveTheLastApplied()
        {
            var (conn, sockets) = Open();
            var first = sockets.Last;
            Assert.Equal(-1, conn.SendInput(new byte[] { 1 }));
            first.Listener.OnOpen();
            conn.Poll();
            Deliver(conn, first, Welcome("tok"));
            Assert.Equal(1, conn.SendInput(new byte[] { 1 }));
            Assert.Equal(2, conn.SendInput(new byte[] { 2 }));
            first.Listener.OnClose(1006, "");
            conn.Poll();
            Assert.Equal(ConnectionStatus.Reconnecting, conn.Status);
            PumpUntil(conn, () => sockets.All.Count == 2);
            var second = sockets.Last;
            second.Listener.OnOpen();
            conn.Poll();
            Assert.Equal(Golden.Hex(ClientDialect.Binary.Hello("tok", "").Bytes!), Golden.Hex(second.Sent[0].Bytes!));
            Deliver(conn, second, Welcome("tok", lastSeq: 10, reconnected: true));
            Assert.Equal(11, conn.SendInput(new byte[] { 3 }));
            Assert.Equal(1, conn.Stats.Reconnects);
        }

        [Fact]
        public async Task RequestsAreAnsweredRefusedAndFailedByTheClose()
        {
            var (conn, sockets) = Open();
            var s = sockets.Last;
            s.Listener.OnOpen();
            conn.Poll();
            Deliver(conn, s, Welcome());
            var ok = conn.Request("echo", JsonValue.NewObject().Set("n", 1));
            Assert.Equal(Golden.Hex(ClientDialect.Binary.Message(1, "echo", "{\"n\":1}").Bytes!), Golden.Hex(s.Sent[^1].Bytes!));
            var refused = conn.Request("echo", JsonValue.NewObject().Set("n", -1));
            var pending = conn.Request("echo", 3);
            Deliver(conn, s, new WireWriter().U8(Kind.Reply).VarUint(1).U16(0).String("{\"n\":1,\"from\":7}").ToArray());
            Deliver(conn, s, new WireWriter().U8(Kind.Reply).VarUint(2).U16(7).VarUint(0).String("no negative echoes").ToArray());
            Assert.Equal(7, (await ok)["from"]!.AsNumber);
            var e = await Assert.ThrowsAsync<RequestException>(() => refused);
            Assert.Equal(("illegal_move", "no negative echoes"), (e.Code, e.Message));
            conn.Close();
            Assert.Equal("closed", (await Assert.ThrowsAsync<RequestException>(() => pending)).Code);
            Assert.Throws<RequestException>(() => { _ = conn.Request("bad type!", 1); });
        }

        [Fact]
        public async Task ARoomOfAnotherSchemaIsRefusedAndNotRetried()
        {
            var (conn, sockets) = Open(o => o.Schema = Games.Agar.AgarGame.Schema);
            var errors = new System.Collections.Generic.List<RoomError>();
            conn.Error += errors.Add;
            var joined = conn.WhenJoined();
            sockets.Last.Listener.OnOpen();
            conn.Poll();
            Deliver(conn, sockets.Last, Welcome(hash: 12345));
            Assert.Equal("schema_mismatch", Assert.Single(errors).Name);
            Assert.Equal(4000, sockets.Last.ClosedWith!.Value.Code);
            Assert.Equal("protocol_error", (await Assert.ThrowsAsync<JoinException>(() => joined)).Code);
            Assert.Single(sockets.All);
        }

        [Fact]
        public void AnUndecodableFrameIsABadFrameThatDropsTheSocket()
        {
            var (conn, sockets) = Open(o => o.Schema = Games.Agar.AgarGame.Schema);
            sockets.Last.Listener.OnOpen();
            conn.Poll();
            Deliver(conn, sockets.Last, Welcome(hash: Games.Agar.AgarGame.SchemaHash));
            RoomError? error = null;
            conn.Error += e => error = e;
            Deliver(conn, sockets.Last, new byte[] { Kind.Frame, FrameFlag.Delta, 1, 1, 2, 1, 0, 99 });
            Assert.Equal("bad_frame", error!.Name);
            Assert.Equal(1, conn.Stats.DecodeErrors);
            Assert.Equal(ConnectionStatus.Closed, conn.Status);
        }

        [Fact]
        public void NoHandlerRunsOnASocketThreadOnlyInPoll()
        {
            var (conn, sockets) = Open();
            int handlerThread = -1;
            conn.Welcomed += _ => handlerThread = Environment.CurrentManagedThreadId;
            var socketThread = new Thread(() =>
            {
                sockets.Last.Listener.OnOpen();
                sockets.Last.Listener.OnMessage(Welcome(), null);
            });
            socketThread.Start();
            socketThread.Join();
            Assert.Equal(-1, handlerThread);
            Assert.Equal(ConnectionStatus.Connecting, conn.Status);
            conn.Poll();
            Assert.Equal(Environment.CurrentManagedThreadId, handlerThread);
            Assert.Equal(ConnectionStatus.Joined, conn.Status);
        }

        [Fact]
        public async Task WithASynchronizationContextHandlersRunThere()
        {
            using var loop = new MainLoop();
            var sockets = new FakeSockets();
            var conn = loop.Invoke(() => TikronClient.Connect("ws://h", new ConnectOptions { Kind = "agar", Room = "r", Sockets = sockets.Open, SynchronizationContext = loop, PingIntervalMs = 1_000_000 }));
            var onLoop = new TaskCompletionSource<bool>();
            loop.Invoke(() =>
            {
                conn.Welcomed += _ => onLoop.TrySetResult(loop.OnLoop);
                return 0;
            });
            SpinWait.SpinUntil(() => sockets.All.Count == 1, 2000);
            sockets.Last.Listener.OnOpen();
            sockets.Last.Listener.OnMessage(Welcome(), null);
            Assert.True(await onLoop.Task.WaitAsync(TimeSpan.FromSeconds(5)));
            Assert.Equal(7u, (await conn.WhenJoined().WaitAsync(TimeSpan.FromSeconds(5))).PlayerId);
        }

        [Fact]
        public void RoomUrlsFollowTheTypeScriptSdk()
        {
            Assert.Equal("wss://a.b/x/rooms/agar/r%201?region=eu&ticket=t%2B1", TikronClient.RoomUrl("https://a.b/x/?region=eu#frag", "agar", "r 1", "t+1"));
            Assert.Equal("ws://h:8787/rooms/ttt-json/r?reservation=abc&token=j", TikronClient.RoomUrl("http://h:8787", "ttt-json", "r", null, "abc", "j"));
        }
    }
}
