using System;
using System.Collections.Generic;
using System.IO;
using Tikron.Client;
using Tikron.Client.Json;
using Tikron.Client.Protocol;

namespace Tikron.Client.Tests
{
    /// <summary>Where the golden files are (test/golden at the repository's root).</summary>
    static class Golden
    {
        public static string Dir
        {
            get
            {
                for (var d = new DirectoryInfo(AppContext.BaseDirectory); d != null; d = d.Parent)
                {
                    string candidate = Path.Combine(d.FullName, "test", "golden");
                    if (File.Exists(Path.Combine(candidate, "client-messages.json"))) return candidate;
                }
                throw new DirectoryNotFoundException("test/golden not found above " + AppContext.BaseDirectory);
            }
        }

        public static JsonValue Read(string name) => JsonValue.Parse(File.ReadAllText(Path.Combine(Dir, name + ".json")));

        public static byte[] Hex(string hex) => Convert.FromHexString(hex);

        public static string Hex(byte[] bytes) => Convert.ToHexString(bytes).ToLowerInvariant();
    }

    /// <summary>A socket the test drives: it records what the connection sends and delivers what the test says.</summary>
    sealed class FakeSocket : IRoomSocket
    {
        public readonly Uri Url;
        public readonly ISocketListener Listener;
        public readonly List<Outgoing> Sent = new List<Outgoing>();
        public (int Code, string Reason)? ClosedWith;

        public FakeSocket(Uri url, ISocketListener listener)
        {
            Url = url;
            Listener = listener;
        }

        public void Send(Outgoing m) => Sent.Add(m);
        public void Close(int code, string reason) => ClosedWith ??= (code, reason);
    }

    /// <summary>Makes fake sockets and keeps them, in order.</summary>
    sealed class FakeSockets
    {
        public readonly List<FakeSocket> All = new List<FakeSocket>();
        public FakeSocket Last => All[^1];
        public IRoomSocket Open(Uri url, ISocketListener listener)
        {
            var s = new FakeSocket(url, listener);
            All.Add(s);
            return s;
        }
    }
}
