using System;
using System.IO;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Protocol;

namespace Tikron.Client
{
    /// <summary>What a socket tells its connection; called on any thread (the connection queues it).</summary>
    public interface ISocketListener
    {
        /// <summary>The socket opened.</summary>
        void OnOpen();
        /// <summary>One message: bytes (binary) or text.</summary>
        void OnMessage(byte[]? bytes, string? text);
        /// <summary>The socket ended (1006 for a drop with no close frame, or a failed connect).</summary>
        void OnClose(int code, string reason);
    }

    /// <summary>One socket, as a connection uses it.</summary>
    public interface IRoomSocket
    {
        /// <summary>Sends one message (in order with the others).</summary>
        void Send(Outgoing message);
        /// <summary>Closes with a code and reason; no more events reach the listener that matter.</summary>
        void Close(int code, string reason);
    }

    /// <summary>Opens a socket to <paramref name="url"/> reporting to <paramref name="listener"/>.</summary>
    public delegate IRoomSocket SocketFactory(Uri url, ISocketListener listener);

    /// <summary>
    /// The default socket: <see cref="ClientWebSocket"/> (in netstandard2.1, so Unity and Godot .NET
    /// have it; Unity WebGL builds have no sockets of .NET and need a JavaScript bridge, not covered).
    /// A receive loop runs on the thread pool; sends go out one after another.
    /// </summary>
    public sealed class WebSocketTransport : IRoomSocket
    {
        static readonly UTF8Encoding Utf8 = new UTF8Encoding(false, false);
        readonly ClientWebSocket _ws = new ClientWebSocket();
        readonly CancellationTokenSource _cts = new CancellationTokenSource();
        readonly ISocketListener _listener;
        readonly object _sendLock = new object();
        Task _sending = Task.CompletedTask;
        int _ended;

        WebSocketTransport(ISocketListener listener) { _listener = listener; }

        /// <summary>The default <see cref="SocketFactory"/>.</summary>
        public static IRoomSocket Open(Uri url, ISocketListener listener)
        {
            var t = new WebSocketTransport(listener);
            _ = Task.Run(() => t.Run(url));
            return t;
        }

        void End(int code, string reason)
        {
            if (Interlocked.Exchange(ref _ended, 1) == 0) _listener.OnClose(code, reason);
        }

        async Task Run(Uri url)
        {
            try
            {
                await Receive(url).ConfigureAwait(false);
            }
            finally
            {
                // The loop is over: the socket's resources go once the last send has left.
                Task last;
                lock (_sendLock) last = _sending;
                _ = last.ContinueWith(_ => _ws.Dispose(), TaskScheduler.Default);
            }
        }

        async Task Receive(Uri url)
        {
            try
            {
                await _ws.ConnectAsync(url, _cts.Token).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                End(1006, e.Message);
                return;
            }
            _listener.OnOpen();
            var buffer = new byte[16 * 1024];
            var message = new MemoryStream();
            while (true)
            {
                WebSocketReceiveResult r;
                try
                {
                    r = await _ws.ReceiveAsync(new ArraySegment<byte>(buffer), _cts.Token).ConfigureAwait(false);
                }
                catch (Exception e)
                {
                    End(1006, e.Message);
                    return;
                }
                if (r.MessageType == WebSocketMessageType.Close)
                {
                    End((int?)_ws.CloseStatus ?? 1005, _ws.CloseStatusDescription ?? "");
                    try
                    {
                        await _ws.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, "", CancellationToken.None).ConfigureAwait(false);
                    }
                    catch (Exception)
                    {
                        // The peer is gone already: nothing to answer.
                    }
                    return;
                }
                message.Write(buffer, 0, r.Count);
                if (!r.EndOfMessage) continue;
                byte[] data = message.ToArray();
                message.SetLength(0);
                if (r.MessageType == WebSocketMessageType.Binary) _listener.OnMessage(data, null);
                else _listener.OnMessage(null, Utf8.GetString(data));
            }
        }

        /// <inheritdoc/>
        public void Send(Outgoing m)
        {
            lock (_sendLock)
            {
                _sending = _sending.ContinueWith(_ => SendNow(m), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default).Unwrap();
            }
        }

        async Task SendNow(Outgoing m)
        {
            try
            {
                if (_ws.State != WebSocketState.Open) return;
                if (m.Bytes != null) await _ws.SendAsync(new ArraySegment<byte>(m.Bytes), WebSocketMessageType.Binary, true, _cts.Token).ConfigureAwait(false);
                else await _ws.SendAsync(new ArraySegment<byte>(Utf8.GetBytes(m.Text!)), WebSocketMessageType.Text, true, _cts.Token).ConfigureAwait(false);
            }
            catch (Exception)
            {
                // A failed send is a dropped socket: the receive loop reports the close.
            }
        }

        /// <inheritdoc/>
        public void Close(int code, string reason)
        {
            lock (_sendLock)
            {
                _sending = _sending.ContinueWith(async _ =>
                {
                    try
                    {
                        if (_ws.State == WebSocketState.Open || _ws.State == WebSocketState.CloseReceived)
                            await _ws.CloseOutputAsync((WebSocketCloseStatus)code, reason, CancellationToken.None).ConfigureAwait(false);
                        // The receive loop ends with the peer's close, or here.
                        _cts.CancelAfter(2000);
                    }
                    catch (Exception)
                    {
                        // Closing a socket that already broke: nothing to do.
                    }
                }, CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default).Unwrap();
            }
            try
            {
                if (_ws.State == WebSocketState.Connecting || _ws.State == WebSocketState.None) _cts.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // The loop already ended and let the socket go.
            }
        }
    }
}
