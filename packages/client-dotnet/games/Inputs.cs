using System;
using Tikron.Client.Protocol;

// The demo games' input codecs, written by hand as the TypeScript games write theirs
// (packages/games/src/steeringInput.ts, fps/fpsInput.ts): the generated classes declare Encode,
// these implement it. The golden files hold both to the same bytes.

namespace Tikron.Games.Agar
{
    public sealed partial class AgarInput
    {
        /// <summary>f32 dx, f32 dy, u8 flags (bit 0: boost): 9 bytes.</summary>
        public partial byte[] Encode(WireWriter w) => w.Reset().F32((float)Dx).F32((float)Dy).U8(Boost ? 1 : 0).ToArray();
    }
}

namespace Tikron.Games.Movement
{
    public sealed partial class MovementInput
    {
        /// <summary>f32 dx, f32 dy, u8 flags (bit 0: sprint): agar's steering layout.</summary>
        public partial byte[] Encode(WireWriter w) => w.Reset().F32((float)Dx).F32((float)Dy).U8(Sprint ? 1 : 0).ToArray();
    }
}

namespace Tikron.Games.Fps
{
    public abstract partial class FpsInput
    {
        /// <summary>A move: u8 1, f32 dx, f32 dy, u8 dtMs, u16 aim (1/65536 turn); a shot: u8 2, f64 time, u16 aim.</summary>
        public partial byte[] Encode(WireWriter w)
        {
            w.Reset();
            switch (this)
            {
                case FpsMove m:
                    return w.U8(1).F32((float)m.Dx).F32((float)m.Dy).U8((int)m.DtMs).U16(AimToWire(m.Aim)).ToArray();
                case FpsShot s:
                    return w.U8(2).F64(s.Time).U16(AimToWire(s.Aim)).ToArray();
                default:
                    throw new ArgumentException("unknown fps input " + GetType().Name);
            }
        }

        /// <summary>An angle as 1/65536 turns (wrapped); not finite: 0.</summary>
        static int AimToWire(double a)
        {
            if (double.IsNaN(a) || double.IsInfinity(a)) return 0;
            double t = a / (2 * Math.PI);
            t -= Math.Floor(t);
            return (int)Math.Floor(t * 65536 + 0.5) & 0xffff;
        }
    }
}
