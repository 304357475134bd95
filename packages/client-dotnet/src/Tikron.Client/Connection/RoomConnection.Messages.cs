using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client.Json;
using Tikron.Client.Protocol;

namespace Tikron.Client
{
    /// <summary>What the room says and what the game sends: hello → welcome → frames, inputs, requests.</summary>
    public sealed partial class RoomConnection
    {
        uint _nextSeq = 1;
        long _receiptMessages, _receiptUnits, _sinceMessages, _sinceUnits;
        uint _nextRequestId = 1;
        readonly Dictionary<uint, (TaskCompletionSource<JsonValue> Tcs, Timer Timer)> _requests = new Dictionary<uint, (TaskCompletionSource<JsonValue>, Timer)>();

        /// <summary>
        /// Sends one binary input and returns its sequence number (increasing for the life of the
        /// connection, across reconnects), or -1, sending nothing, while not joined.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">The payload is over 256 bytes.</exception>
        public long SendInput(byte[] payload) => SendInput(payload, null);

        /// <summary>Sends one JSON room input (any JSON value); the sequence number, or -1 while not joined.</summary>
        public long SendInput(JsonValue input) => SendInput(null, input);

        long SendInput(byte[]? payload, JsonValue? json)
        {
            if (!CanSend) return -1;
            uint seq = _nextSeq;
            var m = _dialect.Input(seq, payload, json);
            Post(m);
            _nextSeq++;
            Stats.InputsSent++;
            return seq;
        }

        /// <summary>Sends a room message that wants no answer; false, sending nothing, while not joined.</summary>
        /// <exception cref="RequestException"><c>bad_message</c> or <c>message_too_large</c>: it can never be sent.</exception>
        public bool Send(string type, JsonValue payload)
        {
            string json = MessageJson(type, payload);
            return CanSend && Post(_dialect.Message(0, type, json));
        }

        /// <summary>
        /// Sends a room message and completes with the room's reply. Fails with a
        /// <see cref="RequestException"/>: the room's refusal, <c>timeout</c>, <c>closed</c>, <c>not_joined</c>.
        /// </summary>
        public Task<JsonValue> Request(string type, JsonValue payload, int timeoutMs = 5000)
        {
            string json = MessageJson(type, payload);
            return Ask(timeoutMs, "request " + type, id => _dialect.Message(id, type, json));
        }

        /// <summary>Asks the room for its tk:stats snapshot.</summary>
        public Task<JsonValue> RequestStats(int timeoutMs = 5000) => Ask(timeoutMs, "stats request", id => _dialect.StatsRequest(id));

        Task<JsonValue> Ask(int timeoutMs, string what, Func<uint, Outgoing> encode)
        {
            var tcs = new TaskCompletionSource<JsonValue>(TaskCreationOptions.RunContinuationsAsynchronously);
            if (!CanSend)
            {
                tcs.SetException(new RequestException("not_joined", "not joined"));
                return tcs.Task;
            }
            uint id = _nextRequestId++;
            Post(encode(id));
            var timer = new Timer(_ => Enqueue(() => Settle(id, null, new RequestException("timeout", $"{what} timed out after {timeoutMs} ms"))), null, timeoutMs, Timeout.Infinite);
            _requests[id] = (tcs, timer);
            return tcs.Task;
        }

        void Settle(uint id, JsonValue? value, Exception? error)
        {
            if (!_requests.TryGetValue(id, out var open)) return;
            _requests.Remove(id);
            open.Timer.Dispose();
            if (error != null) open.Tcs.TrySetException(error);
            else open.Tcs.TrySetResult(value ?? JsonValue.Null);
        }

        void FailRequests(bool willReconnect, int code, string reason)
        {
            if (_requests.Count == 0) return;
            var error = new RequestException("closed", willReconnect ? $"socket closed ({code})" : $"connection closed ({code} {reason})");
            foreach (var id in new List<uint>(_requests.Keys)) Settle(id, null, error);
        }

        static string MessageJson(string type, JsonValue payload)
        {
            if (!ServerDecoder.IsMessageType(type)) throw new RequestException("bad_message", $"bad message type {type}");
            string json = (payload ?? JsonValue.Null).ToString();
            if (json.Length > Wire.MaxMessagePayloadChars) throw new RequestException("message_too_large", $"payload of {json.Length} chars exceeds {Wire.MaxMessagePayloadChars}");
            return json;
        }

        void ResetReceipts() => _receiptMessages = _receiptUnits = _sinceMessages = _sinceUnits = 0;

        void OnMessage(byte[]? bytes, string? text)
        {
            Stats.MessagesIn++;
            Stats.BytesIn += bytes?.Length ?? System.Text.Encoding.UTF8.GetByteCount(text!);
            ServerMessage m;
            try
            {
                m = _dialect.Decode(bytes, text);
            }
            catch (DecodeException e)
            {
                BadFrame($"{e.Code}: {e.Message}");
                return;
            }
            if (!(m is KeepaliveMessage))
            {
                long units = bytes?.Length ?? text!.Length;
                _receiptMessages++;
                _receiptUnits += units;
                _sinceMessages++;
                _sinceUnits += units;
                if (_sinceMessages >= Wire.ReceiptEveryMessages || _sinceUnits >= Wire.ReceiptEveryBytes)
                {
                    _sinceMessages = _sinceUnits = 0;
                    Post(_dialect.Receipt(_receiptMessages, _receiptUnits));
                }
            }
            switch (m)
            {
                case WelcomeMessage w:
                    OnWelcome(w);
                    return;
                case FrameMessage f:
                    OnFrame(f);
                    return;
                case ErrorMessage e:
                    if (e.RetryAfterMs > _retryAfterMs) _retryAfterMs = e.RetryAfterMs;
                    if (e.Code == ErrorCodes.BadToken)
                    {
                        _tokenRejected = true;
                        _token = "";
                    }
                    EmitStill(Error, new RoomError { Code = e.Code, Name = ErrorCodes.Name(e.Code), Reason = e.Reason, RetryAfterMs = e.RetryAfterMs });
                    return;
                case PongMessage p:
                    if (p.ClientTime >= _helloAt) _opts.Clock?.AddSample(p.ClientTime, p.ServerTime, _now());
                    return;
                case StatsMessage s:
                    Settle(s.RequestId, s.Stats, null);
                    return;
                case ReplyMessage r:
                    Settle(r.RequestId, r.Value, r.Code == 0 ? null : new RequestException(ErrorCodes.Name(r.Code), r.Reason, r.RetryAfterMs));
                    return;
                case CadenceMessage c:
                    if (Status != ConnectionStatus.Joined) return;
                    Welcome!.TickMs = c.TickMs;
                    Welcome.SyncIntervalMs = c.SyncIntervalMs;
                    Cadence?.Invoke(c);
                    return;
                case NoticeMessage n:
                    if (Status == ConnectionStatus.Joined) Notice?.Invoke(n);
                    return;
            }
        }

        void OnWelcome(WelcomeMessage w)
        {
            if (w.Version != Wire.ProtocolVersion)
            {
                Fail("version_mismatch", $"server speaks protocol {w.Version}, client {Wire.ProtocolVersion}");
                return;
            }
            if (_opts.Schema != null && _opts.Schema.Hash != w.SchemaHash)
            {
                Fail("schema_mismatch", $"room schema {w.SchemaHash}, decoder {_opts.Schema.Hash}");
                return;
            }
            double now = _now();
            var prev = Welcome;
            if (prev != null) Stats.Reconnects++;
            Welcome = w;
            _token = w.Token;
            _nextSeq = Math.Max(_nextSeq, w.LastSeq + 1);
            View?.Clear();
            JsonState = null;
            RawState = null;
            var clock = _opts.Clock;
            if (prev == null || prev.RoomEpoch != w.RoomEpoch) clock?.Reset(w.RoomEpoch);
            if (Status != ConnectionStatus.Joined) clock?.AddSample(_helloAt, w.ServerTime, now);
            Status = ConnectionStatus.Joined;
            _joinedAt = now;
            ClearTimer();
            _pingsLeft = clock != null ? Timing.ClockSync.PingBurst : 0;
            SchedulePing();
            if (!EmitStill(Welcomed, w)) return;
            foreach (var waiter in _joinWaiters) waiter.TrySetResult(w);
            _joinWaiters.Clear();
        }

        void SchedulePing() => SetTimer(_pingsLeft > 0 ? PingBurstSpacingMs : _opts.PingIntervalMs, Ping);

        void Ping()
        {
            double t = _now();
            Post(_pingsLeft > 0 ? _dialect.Ping(t) : _dialect.Keepalive(t));
            if (_pingsLeft > 0) _pingsLeft--;
            SchedulePing();
        }

        void OnFrame(FrameMessage f)
        {
            if (Status != ConnectionStatus.Joined) return;
            double receivedAt = _now();
            Stats.Frames++;
            if (f.AckSeq > Stats.LastAck) Stats.LastAck = f.AckSeq;
            if (f.HasState)
            {
                try
                {
                    if (_dialect.IsJson) JsonState = f.State;
                    else if (View != null) View.Apply(f.Bytes!, f.BodyOffset, f.Bytes!.Length - f.BodyOffset);
                    else
                    {
                        RawState = new byte[f.Bytes!.Length - f.BodyOffset];
                        Buffer.BlockCopy(f.Bytes, f.BodyOffset, RawState, 0, RawState.Length);
                    }
                }
                catch (DecodeException e)
                {
                    BadFrame($"state decode failed: {e.Code}: {e.Message}");
                    return;
                }
            }
            if (f.EventCount > 0 && GameEvent != null && !EmitEvents(f)) return;
            State?.Invoke(new StateEvent(f.Tick, f.Time, f.AckSeq, f.HasState, receivedAt));
        }

        bool EmitEvents(FrameMessage f)
        {
            var events = _opts.Schema?.Events;
            for (int i = 0; i < f.EventCount; i++)
            {
                var e = new GameEvent { Tick = f.Tick, Time = f.Time };
                if (f.JsonEvents != null) e.Json = f.JsonEvents[i];
                else
                {
                    var (offset, length) = f.EventRanges![i];
                    if (events != null)
                    {
                        try
                        {
                            e.Declared = events.Decode(f.Bytes!, offset, length);
                        }
                        catch (DecodeException x)
                        {
                            BadFrame($"event decode failed: {x.Code}: {x.Message}");
                            return false;
                        }
                    }
                    else
                    {
                        e.Bytes = new byte[length];
                        Buffer.BlockCopy(f.Bytes!, offset, e.Bytes, 0, length);
                    }
                }
                if (!EmitStill(GameEvent, e)) return false;
            }
            return true;
        }

        void BadFrame(string reason)
        {
            Stats.DecodeErrors++;
            Fail("bad_frame", reason);
        }

        /// <summary>The room's stream cannot be understood: reported, and the socket dropped with a close that is not retried.</summary>
        void Fail(string name, string reason)
        {
            if (LocalError(name, reason)) Dropped(CloseCodes.ProtocolError, name);
        }
    }
}
