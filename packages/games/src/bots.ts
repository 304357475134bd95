import type { BotBrain, BotSpec } from "@tikron/core";
import { FrameWriter, type InputSchema } from "@tikron/protocol";
import { agarInputs } from "./agar/agarInput";
import { fpsInputs, type FpsMove } from "./fps/fpsInput";
import { movementInputs } from "./movement/movementInput";
import { Random, seedFrom } from "./random";
import { TTT_LINES, type Board, type Mark } from "./ttt/tttRules";
import type { TttView } from "./ttt/tttView";

/**
 * Bot brains, one per game. Each speaks only through its game's own input codec (the bytes a
 * client would send: the declared inputs' `encode`), so bots obey every rule players do. The steering bots are blind (rooms
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

function steeringBrain<F extends string>(index: number, kind: string, inputs: InputSchema<{ dx: number; dy: number } & Record<F, boolean>>, flag: F): BotBrain {
  const rnd = new Random(seedFrom(`${kind}-bot-${index}`));
  const wander = new Wander(rnd);
  const w = new FrameWriter(32);
  const input = { dx: 0, dy: 0, [flag]: false } as { dx: number; dy: number } & Record<F, boolean>;
  return {
    next() {
      const a = wander.step();
      input.dx = Math.cos(a);
      input.dy = Math.sin(a);
      (input as Record<string, unknown>)[flag] = rnd.next() < 0.05;
      return inputs.encode(input, w);
    },
  };
}

/** Steering inputs at 10 Hz: the rooms hold a stick until the next input. DEV_MODE only. */
export const agarBots: BotSpec = {
  inputEveryMs: 100,
  create: (index) => steeringBrain(index, "agar", agarInputs, "boost"),
};

/** Same wandering stick as agar's, in the movement room's declaration. */
export const movementBots: BotSpec = {
  inputEveryMs: 100,
  create: (index) => steeringBrain(index, "movement", movementInputs, "sprint"),
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
      const move: FpsMove = { kind: "move", dx: 0, dy: 0, dtMs: inputEveryMs, aim: 0 };
      return {
        next() {
          const a = wander.step();
          move.dx = Math.cos(a);
          move.dy = Math.sin(a);
          // The declaration wraps any finite angle.
          move.aim = a;
          return fpsInputs.encode(move, w);
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
