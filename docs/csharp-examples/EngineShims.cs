// Stand-ins for the few engine APIs the examples call, so they compile here against the SDK.
// NOT the engines: no behaviour, only the names and signatures Unity and Godot have.
namespace UnityEngine
{
    public class Object { public static T Instantiate<T>(T original) where T : Object => original; public static void Destroy(Object o) { } }
    public class Component : Object { public Transform transform = new Transform(); public GameObject gameObject; }
    public class Behaviour : Component { public bool enabled = true; }
    public class MonoBehaviour : Behaviour { }
    public class GameObject : Object { public Transform transform = new Transform(); public void SetActive(bool value) { } }
    public class Transform : Component { public Vector3 position; public Vector3 localScale; }
    public struct Vector3 { public float x, y, z; public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; } }
    public static class Time { public static float deltaTime; public static float unscaledTime; }
    public static class Input { public static float GetAxisRaw(string axis) => 0; public static bool GetKey(KeyCode key) => false; }
    public enum KeyCode { Space }
    public static class Debug { public static void Log(object message) { } public static void LogWarning(object message) { } }
}

namespace Godot
{
    public class GodotObject { }
    public class Node : GodotObject
    {
        public virtual void _Ready() { }
        public virtual void _Process(double delta) { }
        public virtual void _ExitTree() { }
        public void AddChild(Node node) { }
        public void QueueFree() { }
    }
    public class CanvasItem : Node { public void QueueRedraw() { } public virtual void _Draw() { } public void DrawCircle(Vector2 position, float radius, Color color) { } }
    public class Node2D : CanvasItem { public Vector2 Position; }
    public struct Vector2 { public float X, Y; public Vector2(float x, float y) { X = x; Y = y; } }
    public struct Color { public Color(float r, float g, float b) { } }
    public static class Colors { public static Color White, Orange, Gray; }
    public static class Input { public static Vector2 GetVector(StringName negX, StringName posX, StringName negY, StringName posY) => default; public static bool IsActionPressed(StringName action) => false; }
    public sealed class StringName { public static implicit operator StringName(string s) => new StringName(); }
    public static class GD { public static void Print(params object[] what) { } public static void PushWarning(params object[] what) { } }
    public static class Time { public static ulong GetTicksMsec() => 0; }
}
