using System;
using System.Text;

namespace Tikron.Client
{
    /// <summary>The SDK's entry points.</summary>
    public static class TikronClient
    {
        /// <summary>
        /// Joins room <see cref="ConnectOptions.Room"/> of kind <see cref="ConnectOptions.Kind"/> on the server
        /// at <paramref name="url"/> (e.g. <c>wss://play.example.com</c>, or http(s), which becomes ws(s))
        /// and returns the connection at once; pump <see cref="RoomConnection.Poll"/> (or give a
        /// SynchronizationContext) and await <see cref="RoomConnection.WhenJoined"/>.
        /// </summary>
        public static RoomConnection Connect(string url, ConnectOptions options) => new RoomConnection(url, options);

        /// <summary>
        /// A room's URL: <c>{base}/rooms/{kind}/{room}</c> plus <c>?ticket=</c>, <c>?reservation=</c> or
        /// <c>?token=</c>; http(s) becomes ws(s); a query on <paramref name="baseUrl"/> is kept after
        /// the room path, a fragment dropped.
        /// </summary>
        public static string RoomUrl(string baseUrl, string kind, string room, string? ticket = null, string? reservation = null, string? token = null)
        {
            int hash = baseUrl.IndexOf('#');
            if (hash >= 0) baseUrl = baseUrl.Substring(0, hash);
            int q = baseUrl.IndexOf('?');
            string head = q >= 0 ? baseUrl.Substring(0, q) : baseUrl;
            string query = q >= 0 ? baseUrl.Substring(q + 1) : "";
            var parts = new StringBuilder(query);
            void Add(string key, string? value)
            {
                if (string.IsNullOrEmpty(value)) return;
                if (parts.Length > 0) parts.Append('&');
                parts.Append(key).Append('=').Append(Uri.EscapeDataString(value));
            }
            Add("ticket", ticket);
            Add("reservation", reservation);
            Add("token", token);
            if (head.StartsWith("http://", StringComparison.OrdinalIgnoreCase)) head = "ws://" + head.Substring(7);
            else if (head.StartsWith("https://", StringComparison.OrdinalIgnoreCase)) head = "wss://" + head.Substring(8);
            head = head.TrimEnd('/');
            string path = $"{head}/rooms/{Uri.EscapeDataString(kind)}/{Uri.EscapeDataString(room)}";
            return parts.Length > 0 ? path + "?" + parts : path;
        }
    }
}
