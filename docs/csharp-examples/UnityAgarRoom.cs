using System.Collections.Generic;
using System.Threading;
using Tikron.Client;
using Tikron.Client.Timing;
using Tikron.Games.Agar;
using UnityEngine;

/// <summary>
/// An agar room in Unity: match, steer with the keyboard, draw the other cells interpolated and
/// your own from the latest state, say why a join was refused.
/// </summary>
public class UnityAgarRoom : MonoBehaviour
{
    public string server = "https://play.example.com";
    public GameObject cellPrefab;

    RoomConnection room;
    InterpolatedView others;
    readonly Dictionary<int, GameObject> cells = new Dictionary<int, GameObject>();
    readonly HashSet<int> drawn = new HashSet<int>();
    float sinceInput;
    public string status = "matching";

    async void Start()
    {
        var options = AgarGame.Options();
        options.Name = "unity-player";
        // Unity's main-thread context: every callback of the SDK runs there, never on a socket thread.
        options.SynchronizationContext = SynchronizationContext.Current;
        try
        {
            room = await new Matchmaker(server).JoinOrCreate(AgarGame.Kind, null, options);
        }
        catch (JoinException e)
        {
            // A typed refusal: room_full, unauthorized, no_room, join_throttled (retries used up), ...
            status = e.RetryAfterMs > 0 ? $"refused ({e.Code}): try again in {e.RetryAfterMs / 1000} s" : $"refused ({e.Code}): {e.Reason}";
            return;
        }
        status = "playing";
        // Other cells: x, y and radius, interpolated a little in the past; our own cell is left out.
        others = new InterpolatedView(room, new[] { Interp.Linear, Interp.Linear, Interp.Linear }, (entity, values) =>
        {
            if (!Player.Is(entity)) return false;
            var cell = new Player(entity);
            if (cell.Pid == room.PlayerId) return false;
            values[0] = cell.X;
            values[1] = cell.Y;
            values[2] = cell.R;
            return true;
        });
        room.Error += e => Debug.LogWarning($"room: {e.Name} {e.Reason}");
        room.Reconnecting += r => status = $"reconnecting (attempt {r.Attempt})";
        room.Welcomed += w => status = w.Reconnected ? "back in my seat" : "playing";
        room.Closed += c =>
        {
            if (!c.WillReconnect) status = $"closed: {c.Code} {c.Reason}";
        };
    }

    void Update()
    {
        if (room == null) return;
        // With the context above this only drains what is already queued; without one it is what runs the SDK.
        room.Poll();
        sinceInput += Time.deltaTime;
        if (sinceInput >= 0.05f)
        {
            sinceInput = 0;
            room.SendInput(new AgarInput { Dx = Input.GetAxisRaw("Horizontal"), Dy = Input.GetAxisRaw("Vertical"), Boost = Input.GetKey(KeyCode.Space) });
        }
        others.Update();
        drawn.Clear();
        others.ForEach((id, v, kind) => Place(id, (float)v[0], (float)v[1], (float)v[2]));
        foreach (var entity in room.View.Entities)
        {
            if (Player.Is(entity) && new Player(entity).Pid == room.PlayerId) Place(entity.Id, (float)new Player(entity).X, (float)new Player(entity).Y, (float)new Player(entity).R);
        }
        foreach (var id in new List<int>(cells.Keys))
        {
            if (drawn.Contains(id)) continue;
            Destroy(cells[id]);
            cells.Remove(id);
        }
    }

    void Place(int id, float x, float y, float r)
    {
        if (!cells.TryGetValue(id, out var cell)) cells[id] = cell = Instantiate(cellPrefab);
        cell.transform.position = new Vector3(x, y, 0);
        cell.transform.localScale = new Vector3(2 * r, 2 * r, 1);
        drawn.Add(id);
    }

    void OnDestroy()
    {
        others?.Dispose();
        room?.Close();
    }
}
