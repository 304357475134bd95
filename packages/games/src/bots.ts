import type { BotBrain, BotSpec } from "@tikron/core";
import { FrameWriter } from "@tikron/protocol";
import { encodeAgarInput } from "./agar/agarInput";
import { encodeFpsMove } from "./fps/fpsInput";
import { encodeMovementInput } from "./movement/movementInput";
import { Random, seedFrom } from "./random";
import { TTT_LINES, type Board, type Mark } from "./ttt/tttRules";
import type { TttView } from "./ttt/tttView";

/**
 * Bot brains, one per game. Each speaks only through its game's own input encoder (the bytes a
 * client would send), so bots obey every rule players do. The steering bots are blind (rooms
 * encode no frames for bots): they wander with a smoothly turning heading and let the world's
 * edges stop them, which reads as "alive" in a demo and costs one small payload per input.
 */

/** A heading that drifts a little each step and sometimes turns sharply. */
class Wander {
  private heading: number;
  private turn = 0;
  constructor(private readonly rnd: Random) {
    this.heading = rnd.range(0, Math.PI * 2);
  }
  step(): number {
    if (this.rnd.next() < 0.04) this.turn = this.rnd.range(-0.5, 0.5);
    this.heading += this.turn + this.rnd.range(-0.08, 0.08);
    return this.heading;
  }
}

function steeringBrain(index: number, kind: string, encode: (w: FrameWriter, dx: number, dy: number, fast: boolean) => Uint8Array): BotBrain {
  const rnd = new Random(seedFrom(`${kind}-bot-${index}`));
  const wander = new Wander(rnd);
  const w = new FrameWriter(32);
  return {
    next() {
      const a = wander.step();
      return encode(w, Math.cos(a), Math.sin(a), rnd.next() < 0.05);
    },
  };
}

/** Steering inputs at 10 Hz: the rooms hold a stick until the next input. DEV_MODE only. */
export const agarBots: BotSpec = {
  inputEveryMs: 100,
  create: (index) => steeringBrain(index, "agar", (w, dx, dy, boost) => encodeAgarInput(w.reset(), { dx, dy, boost })),
};

/** Same wandering stick as agar's, in the movement room's encoding. */
export const movementBots: BotSpec = {
  inputEveryMs: 100,
  create: (index) => steeringBrain(index, "movement", (w, dx, dy, sprint) => encodeMovementInput(w.reset(), { dx, dy, sprint })),
};

/**
 * fps moves carry their own duration and are charged to a move budget, so a bot sends one move
 * per input interval whose `dtMs` is that interval: exactly the time it had.
 */
export function fpsBots(inputEveryMs: number): BotSpec {
  return {
    inputEveryMs,
    create: (index) => {
      const rnd = new Random(seedFrom(`fps-bot-${index}`));
      const wander = new Wander(rnd);
      const w = new FrameWriter(32);
      return {
        next() {
          const a = wander.step();
          const aim = ((a % (Math.PI * 2)) + Math.PI * 2) % (Math.PI * 2);
          return encodeFpsMove(w.reset(), { dx: Math.cos(a), dy: Math.sin(a), dtMs: inputEveryMs, aim });
        },
      };
    },
  };
}

/** The cell a ttt bot plays: win if it can, else block, else centre, else a random free cell. */
export function tttBotMove(board: Board, me: Mark, random: () => number): number | null {
  const other: Mark = me === "X" ? "O" : "X";
  for (const who of [me, other]) {
    for (const line of TTT_LINES) {
      const marks = line.map((c) => board[c]);
      if (marks.filter((m) => m === who).length === 2 && marks.includes(null)) return line[marks.indexOf(null)]!;
    }
  }
  if (board[4] === null) return 4;
  const free = board.flatMap((m, i) => (m === null ? [i] : []));
  return free.length === 0 ? null : free[Math.floor(random() * free.length)]!;
}

/**
 * A ttt opponent: reads its views (JSON rooms send them to bots) and moves when it is its turn.
 * Allowed in production: a room of two seats, so a bot can only ever fill the empty one.
 */
export const tttBots: BotSpec = {
  inputEveryMs: 600,
  create: (index) => {
    const rnd = new Random(seedFrom(`ttt-bot-${index}`));
    let view: TttView | null = null;
    let askedRematchFor = -1;
    return {
      receive(text) {
        const m = JSON.parse(text) as { t?: string; state?: TttView };
        if (m.t === "state" && m.state) view = m.state;
      },
      next() {
        const v = view;
        if (!v || !v.you) return null;
        if (v.status === "playing" && v.turn === v.you) {
          const cell = tttBotMove(v.board, v.you, () => rnd.next());
          return cell === null ? null : { cell };
        }
        if ((v.status === "won" || v.status === "draw") && askedRematchFor !== v.round) {
          askedRematchFor = v.round;
          return { rematch: true };
        }
        return null;
      },
    };
  },
  allowInProduction: true,
};
