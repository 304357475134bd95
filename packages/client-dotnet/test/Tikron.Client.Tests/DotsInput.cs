using Tikron.Client.Protocol;

namespace Tikron.Games.Dots
{
    public partial class DotsInput
    {
        /// <summary>The core's test game writes dx + 1 as one byte.</summary>
        public partial byte[] Encode(WireWriter w) => w.Reset().U8((int)Dx + 1).ToArray();
    }
}
