using System;

namespace Tikron.Client.Protocol
{
    /// <summary>
    /// A message or body that could not be decoded. <see cref="Code"/> is the protocol's decode error
    /// code (<c>truncated</c>, <c>unknown_kind</c>, <c>bad_value</c>, <c>too_large</c>, <c>trailing_bytes</c>,
    /// <c>bad_json</c>), the same one the TypeScript decoders return for the same bytes.
    /// </summary>
    public sealed class DecodeException : Exception
    {
        /// <summary>Machine-readable cause.</summary>
        public string Code { get; }

        /// <summary>A decode failure of kind <paramref name="code"/>.</summary>
        public DecodeException(string code, string message) : base(message) { Code = code; }
    }
}
