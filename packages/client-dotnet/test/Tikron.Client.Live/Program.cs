using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client;
using Tikron.Client.Json;
using Tikron.Client.Protocol;
using Tikron.Client.Schema;
using Tikron.Games.Agar;

// The C# client of the live tests: each mode prints JSON lines on stdout, which the TypeScript
// test reads.
//   play    --url U --seconds S --name N --out DIR : JoinOrCreate an agar seat through the matchmaker,
//            steer S seconds, write every message received (DIR/N.messages.jsonl), print the view.
//   refuse  --url U --room R [--ticket T] [--via match] : join a room directly (or through the
//            matchmaker: JoinOrCreate with the ticket); print the JoinException.
//   stay    --url U --room R --seconds S           : join, print each welcome (a restart brings a second).
//   bench   --golden DIR [--runs 5]                 : decode cost per frame over the golden frames (PERFORMANCE.md).
var opts = new Dictionary<string, string>();
for (int i = 1; i + 1 < args.Length; i += 2) opts[args[i].TrimStart('-')] = args[i + 1];
string Opt(string k, string d = "") => opts.TryGetValue(k, out var v) ? v : d;
using var loop = new MainLoop();
var mode = args.Length > 0 ? args[0] : "";
try
{
    switch (mode)
    {
        case "play": await Play(); break;
        case "refuse": await Refuse(); break;
        case "stay": await Stay(); break;
        case "bench": Bench(); break;
        default: Console.Error.WriteLine("modes: play, refuse, stay"); return 2;
    }
}
catch (Exception e)
{
    Console.WriteLine(JsonValue.NewObject().Set("fatal", e.GetType().Name + ": " + e.Message));
    return 1;
}
return 0;

ConnectOptions Options(string name)
{
    var o = AgarGame.Options();
    o.Name = name;
    o.SynchronizationContext = loop;
    return o;
}

async Task Play()
{
    string name = Opt("name", "cs");
    var recorded = new List<string>();
    var mm = new Matchmaker(Opt("url"));
    var o = Options(name);
    // Every message as it arrives, wrapped around the default socket: what the TypeScript side decodes again.
    o.Sockets = (url, listener) => WebSocketTransport.Open(url, new Recording(listener, recorded));
    var room = await mm.JoinOrCreate(AgarGame.Kind, null, o);
    var joined = loop.Invoke(() => room.Welcome!);
    long sent = 0;
    var rng = new Random(name.GetHashCode());
    var watch = Stopwatch.StartNew();
    double seconds = double.Parse(Opt("seconds", "5"));
    while (watch.Elapsed.TotalSeconds < seconds)
    {
        var input = new AgarInput { Dx = Math.Cos(watch.Elapsed.TotalSeconds + rng.NextDouble()), Dy = Math.Sin(watch.Elapsed.TotalSeconds), Boost = false };
        if (loop.Invoke(() => room.SendInput(input)) > 0) sent++;
        await Task.Delay(50);
    }
    // The last acks and frames, then the view as it stands, with the messages that built it.
    await Task.Delay(400);
    var dump = loop.Invoke(() =>
    {
        lock (recorded)
        {
            room.Poll();
            Directory.CreateDirectory(Opt("out", "."));
            File.WriteAllLines(Path.Combine(Opt("out", "."), name + ".messages.jsonl"), recorded);
            return JsonValue.NewObject()
                .Set("name", name).Set("room", room.Room).Set("playerId", room.PlayerId).Set("sent", sent)
                .Set("lastAck", room.Stats.LastAck).Set("frames", room.Stats.Frames).Set("messages", recorded.Count)
                .Set("entities", Entities(room.View!));
        }
    });
    loop.Invoke(() => { room.Close(); return 0; });
    Console.WriteLine(dump);
}

async Task Refuse()
{
    // --repeat 2: the first attempt of a process pays for loading and compiling the SDK (seconds on
    // a loaded machine); the second is what a game that already runs sees. Each prints its line.
    for (int attempt = 0; attempt < int.Parse(Opt("repeat", "1")); attempt++)
    {
        var o = Options("refused");
        o.Room = Opt("room");
        if (opts.ContainsKey("ticket")) o.Ticket = Opt("ticket");
        var watch = Stopwatch.StartNew();
        try
        {
            if (Opt("via") == "match")
            {
                // The same credential through the matchmaker: one cause is one code either way.
                var mm = new Matchmaker(Opt("url")) { Ticket = opts.ContainsKey("ticket") ? Opt("ticket") : null };
                var seated = await mm.JoinOrCreate(AgarGame.Kind, null, o);
                Console.WriteLine(JsonValue.NewObject().Set("joined", true).Set("room", seated.Room));
                loop.Invoke(() => { seated.Close(); return 0; });
                continue;
            }
            var room = loop.Invoke(() => TikronClient.Connect(Opt("url"), o));
            var w = await room.WhenJoined();
            Console.WriteLine(JsonValue.NewObject().Set("joined", true).Set("playerId", w.PlayerId));
        }
        catch (JoinException e)
        {
            Console.WriteLine(JsonValue.NewObject().Set("exception", e.GetType().Name).Set("code", e.Code).Set("closeCode", e.CloseCode)
                .Set("reason", e.Reason).Set("retryAfterMs", e.RetryAfterMs).Set("ms", watch.Elapsed.TotalMilliseconds).Set("attempt", attempt + 1));
        }
    }
}

async Task Stay()
{
    var o = Options("stayer");
    o.Room = Opt("room");
    o.MaxAttempts = 100;
    o.BackoffMaxMs = 1000;
    var welcomes = new SemaphoreSlim(0);
    var room = loop.Invoke(() =>
    {
        var r = TikronClient.Connect(Opt("url"), o);
        r.Welcomed += w =>
        {
            Console.WriteLine(JsonValue.NewObject().Set("welcome", true).Set("playerId", w.PlayerId).Set("reconnected", w.Reconnected)
                .Set("token", w.Token).Set("roomEpoch", w.RoomEpoch));
            welcomes.Release();
        };
        r.Closed += c => Console.WriteLine(JsonValue.NewObject().Set("closed", c.Code).Set("willReconnect", c.WillReconnect));
        return r;
    });
    var watch = Stopwatch.StartNew();
    double seconds = double.Parse(Opt("seconds", "60"));
    int seen = 0;
    while (watch.Elapsed.TotalSeconds < seconds && seen < int.Parse(Opt("welcomes", "2")))
    {
        if (await welcomes.WaitAsync(100)) seen++;
        loop.Invoke(() => room.SendInput(new AgarInput { Dx = 1, Dy = 0 }));
    }
    Console.WriteLine(JsonValue.NewObject().Set("done", seen).Set("lastAck", loop.Invoke(() => room.Stats.LastAck)));
    loop.Invoke(() => { room.Close(); return 0; });
}

void Bench()
{
    // The golden frames of each binary scenario decoded as the SDK decodes them (message, delta
    // body into a view, declared events), again and again: the median of --runs timed passes.
    string dir = Opt("golden", "test/golden");
    var schemas = new Dictionary<string, EntitySchema>
    {
        ["agar"] = AgarGame.Schema, ["movement"] = Tikron.Games.Movement.MovementGame.Schema, ["fps"] = Tikron.Games.Fps.FpsGame.Schema,
    };
    foreach (var (name, schema) in schemas)
    {
        var frames = JsonValue.Parse(File.ReadAllText(Path.Combine(dir, name + ".json")))["messages"]!.Items
            .Where(m => m["from"]!.AsString == "server").Select(m => Convert.FromHexString(m["hex"]!.AsString)).ToList();
        long bytes = frames.Sum(f => (long)f.Length);
        int passes = Math.Max(1, 2_000_000 / frames.Count / 10);
        void Pass()
        {
            var view = new ClientView(schema);
            foreach (var f in frames)
            {
                var m = ServerDecoder.DecodeBinary(f);
                if (m is FrameMessage fm)
                {
                    if (fm.HasState) view.Apply(fm.Bytes!, fm.BodyOffset, fm.Bytes!.Length - fm.BodyOffset);
                    if (fm.EventRanges != null) foreach (var (o, l) in fm.EventRanges) schema.Events!.Decode(fm.Bytes!, o, l);
                }
            }
        }
        for (int i = 0; i < passes; i++) Pass();
        var ns = new List<double>();
        for (int run = 0; run < int.Parse(Opt("runs", "5")); run++)
        {
            var w = Stopwatch.StartNew();
            for (int i = 0; i < passes; i++) Pass();
            ns.Add(w.Elapsed.TotalMilliseconds * 1e6 / ((double)passes * frames.Count));
        }
        ns.Sort();
        Console.WriteLine(JsonValue.NewObject().Set("client", "csharp").Set("scenario", name).Set("frames", frames.Count)
            .Set("bytesPerFrame", Math.Round((double)bytes / frames.Count, 1)).Set("nsPerFrame", Math.Round(ns[ns.Count / 2])).Set("runs", ns.Count));
    }
}

static JsonValue Entities(ClientView view)
{
    var list = JsonValue.NewArray();
    foreach (var e in view.Entities.OrderBy(e => e.Id))
    {
        var fields = JsonValue.NewObject();
        foreach (var f in e.Type.Fields)
            fields.Set(f.Name, f.Field.Code switch
            {
                FieldCode.String => e.GetString(f.Index),
                FieldCode.Bool => e.GetBool(f.Index),
                _ => e.GetNumber(f.Index),
            });
        list.Add(JsonValue.NewObject().Set("id", e.Id).Set("type", e.TypeName).Set("fields", fields));
    }
    return list;
}

/// <summary>Passes a socket's events on, keeping each message (hex or text) first.</summary>
sealed class Recording : ISocketListener
{
    readonly ISocketListener _inner;
    readonly List<string> _out;
    public Recording(ISocketListener inner, List<string> output)
    {
        _inner = inner;
        _out = output;
    }
    public void OnOpen() => _inner.OnOpen();
    public void OnClose(int code, string reason) => _inner.OnClose(code, reason);
    public void OnMessage(byte[]? bytes, string? text)
    {
        // Kept and queued under one lock: the dump (under it too) drains the queue first, so the
        // view it prints is built from exactly the messages kept.
        lock (_out)
        {
            _out.Add(bytes != null ? Convert.ToHexString(bytes).ToLowerInvariant() : JsonValue.From(text).ToString());
            _inner.OnMessage(bytes, text);
        }
    }
}
