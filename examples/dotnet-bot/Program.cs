using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Tikron.Client;
using Tikron.Client.Json;
using Tikron.Games.Agar;

// dotnet run --project examples/dotnet-bot -- --url http://127.0.0.1:8787 --kind agar --bots 50 --seconds 20
//
// N bots match through the server's matchmaker (JoinOrCreate, ramped so rooms admit them), each
// steers its cell with an input every 50 ms, and at the end one JSON line says how it went:
// joined, framesPerSec (per bot, while joined), acked / sent (inputs), refused (joins).
var opts = new Dictionary<string, string> { ["url"] = "http://127.0.0.1:8787", ["kind"] = "agar", ["bots"] = "10", ["seconds"] = "20", ["ramp-ms"] = "40" };
for (int i = 0; i + 1 < args.Length; i += 2) opts[args[i].TrimStart('-')] = args[i + 1];
if (opts["kind"] != AgarGame.Kind)
{
    Console.Error.WriteLine($"dotnet-bot plays agar (its generated types); --kind {opts["kind"]} is not supported");
    return 2;
}
int count = int.Parse(opts["bots"]);
double seconds = double.Parse(opts["seconds"], System.Globalization.CultureInfo.InvariantCulture);
int rampMs = int.Parse(opts["ramp-ms"]);

// Every callback of every bot runs on this one thread: the bot's "main thread".
using var loop = new MainLoop("bots");
var mm = new Matchmaker(opts["url"]);
var bots = new Bot?[count];
int refused = 0;
var joins = new List<Task>();
for (int i = 0; i < count; i++)
{
    int n = i;
    joins.Add(Task.Run(async () =>
    {
        var options = AgarGame.Options();
        options.Name = $"bot-{n}";
        options.SynchronizationContext = loop;
        try
        {
            var room = await mm.JoinOrCreate(AgarGame.Kind, null, options);
            bots[n] = loop.Invoke(() => new Bot(room, n));
        }
        catch (JoinException e)
        {
            Interlocked.Increment(ref refused);
            Console.Error.WriteLine($"bot-{n}: join refused: {e.Code} ({e.CloseCode}) {e.Reason}");
        }
    }));
    await Task.Delay(rampMs);
}
await Task.WhenAll(joins);

// Steer for the run's length: one input per bot every 50 ms, on the bots' thread.
var watch = Stopwatch.StartNew();
long ticks = 0;
while (watch.Elapsed.TotalSeconds < seconds)
{
    double t = watch.Elapsed.TotalSeconds;
    loop.Invoke(() =>
    {
        foreach (var b in bots) b?.Steer(t);
        return 0;
    });
    ticks++;
    double next = ticks * 50;
    int wait = (int)(next - watch.Elapsed.TotalMilliseconds);
    if (wait > 0) await Task.Delay(wait);
}
// The last acks arrive within a flush or two.
await Task.Delay(500);
var summary = loop.Invoke(() =>
{
    var live = bots.Where(b => b != null).Select(b => b!).ToList();
    double now = Tikron.Client.Timing.LocalClock.Now();
    var o = JsonValue.NewObject()
        .Set("joined", live.Count)
        .Set("framesPerSec", Math.Round(live.Count == 0 ? 0 : live.Average(b => b.FramesPerSec(now)), 2))
        .Set("acked", live.Sum(b => Math.Max(0, b.Room.Stats.LastAck)))
        .Set("sent", live.Sum(b => b.Sent))
        .Set("refused", refused)
        .Set("rooms", live.Select(b => b.Room.Room).Distinct().Count());
    foreach (var b in live) b.Room.Close();
    return o;
});
Console.WriteLine(summary);
return 0;

/// <summary>One bot: its connection, what it sent, and the frames it got while joined.</summary>
sealed class Bot
{
    public readonly RoomConnection Room;
    public long Sent;
    readonly double _phase;
    readonly double _joinedAt = Tikron.Client.Timing.LocalClock.Now();
    long _framesAtJoin;

    public Bot(RoomConnection room, int n)
    {
        Room = room;
        _phase = n * 0.7;
        _framesAtJoin = room.Stats.Frames;
        room.Error += e => Console.Error.WriteLine($"{room.Room}: error {e.Name} {e.Reason}");
    }

    public void Steer(double t)
    {
        var input = new AgarInput { Dx = Math.Cos(t * 0.5 + _phase), Dy = Math.Sin(t * 0.5 + _phase), Boost = false };
        if (Room.SendInput(input) > 0) Sent++;
    }

    public double FramesPerSec(double now) => (Room.Stats.Frames - _framesAtJoin) / Math.Max(0.001, (now - _joinedAt) / 1000);
}
