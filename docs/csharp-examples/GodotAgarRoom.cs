using System.Collections.Generic;
using Godot;
using Tikron.Client;
using Tikron.Client.Timing;
using Tikron.Games.Agar;

/// <summary>
/// An agar room in Godot 4 (.NET): the same game with the SDK pumped from _Process (no
/// SynchronizationContext given: nothing runs until Poll, on the main thread).
/// </summary>
public partial class GodotAgarRoom : Node2D
{
    public string Server = "https://play.example.com";

    Matchmaker matchmaker;
    RoomConnection room;
    InterpolatedView others;
    readonly List<(float X, float Y, float R, bool Mine)> toDraw = new List<(float, float, float, bool)>();
    double sinceInput;
    public string Status = "matching";

    public override async void _Ready()
    {
        matchmaker = new Matchmaker(Server);
        var options = AgarGame.Options();
        options.Name = "godot-player";
        try
        {
            // Completes while _Process pumps matchmaker.Poll() (the connection being joined).
            room = await matchmaker.JoinOrCreate(AgarGame.Kind, null, options);
        }
        catch (JoinException e)
        {
            Status = $"refused ({e.Code}, close {e.CloseCode}): {e.Reason}";
            if (e.RetryAfterMs > 0) Status += $"; wait {e.RetryAfterMs} ms";
            return;
        }
        others = new InterpolatedView(room, new[] { Interp.Linear, Interp.Linear, Interp.Linear }, (entity, values) =>
        {
            if (!Player.Is(entity) || new Player(entity).Pid == room.PlayerId) return false;
            var cell = new Player(entity);
            values[0] = cell.X;
            values[1] = cell.Y;
            values[2] = cell.R;
            return true;
        });
        room.Error += e => GD.PushWarning($"room: {e.Name} {e.Reason}");
        room.Closed += c => Status = c.WillReconnect ? "reconnecting" : $"closed: {c.Code} {c.Reason}";
        room.Welcomed += w => Status = "playing";
        Status = "playing";
    }

    public override void _Process(double delta)
    {
        if (room == null)
        {
            matchmaker?.Poll();
            return;
        }
        room.Poll();
        sinceInput += delta;
        if (sinceInput >= 0.05)
        {
            sinceInput = 0;
            var stick = Input.GetVector("ui_left", "ui_right", "ui_up", "ui_down");
            room.SendInput(new AgarInput { Dx = stick.X, Dy = stick.Y, Boost = Input.IsActionPressed("ui_accept") });
        }
        others.Update();
        toDraw.Clear();
        others.ForEach((id, v, kind) => toDraw.Add(((float)v[0], (float)v[1], (float)v[2], false)));
        foreach (var entity in room.View.Entities)
        {
            if (!Player.Is(entity)) continue;
            var cell = new Player(entity);
            if (cell.Pid == room.PlayerId) toDraw.Add(((float)cell.X, (float)cell.Y, (float)cell.R, true));
        }
        QueueRedraw();
    }

    public override void _Draw()
    {
        foreach (var (x, y, r, mine) in toDraw) DrawCircle(new Vector2(x, y), r, mine ? Colors.Orange : Colors.White);
    }

    public override void _ExitTree()
    {
        others?.Dispose();
        room?.Close();
    }
}
