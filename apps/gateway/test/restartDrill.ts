/**
 * The restart drill's players and checks (restartDrill.integration.test.ts): agar players on
 * the SDK that remember every state of their own cell they were shown, so after a restart each
 * can tell whether the cell it got back is one it had a moment ago (the checkpoint's), and a
 * pair of tic-tac-toe players whose board must come back unchanged. Also the "code change" of a
 * deploy: a copy of a frozen gateway whose bundle runs one more statement.
 */
import { appendFileSync, cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { connect, errorName } from "@tikron/client";
import { agarTypes, tttTypes } from "@tikron/games/schemas";
import type { FrozenWorker } from "./hardeningWorker";

/** Reconnecting fast and for as long as it takes: the drill times the room, not the SDK's patience. */
const RECONNECT = { baseMs: 100, maxMs: 500, maxAttempts: Infinity };
/** How often a drill player sends its steering (a state on the server: the latest one wins). */
const INPUT_EVERY_MS = 100;
/** How often it picks a new direction. */
const TURN_EVERY_MS = 1500;

const joinAgar = (url: string, room: string, name: string) => connect(url, { game: agarTypes, room, name, reconnect: RECONNECT });
const joinTtt = (url: string, room: string, name: string) => connect(url, { game: tttTypes, room, name, reconnect: RECONNECT });

/** One state of a player's own cell as it was shown to the player. */
export interface OwnCell {
  /** `performance.now()` when the frame showing it arrived. */
  at: number;
  /** Entity id of the cell. */
  id: number;
  x: number;
  y: number;
  r: number;
  score: number;
}

/** A welcome as the drill records it. */
export interface DrillWelcome {
  at: number;
  playerId: number;
  reconnected: boolean;
  roomEpoch: number;
}

/** One agar player of the drill (the SDK, reconnecting by itself with its token). */
export class DrillPlayer {
  readonly conn: ReturnType<typeof joinAgar>;
  /** Every state of its own cell it was shown, oldest first. */
  readonly seen: OwnCell[] = [];
  readonly welcomes: DrillWelcome[] = [];
  /** The first own cell shown after each welcome, by welcome index. */
  readonly firstAfterWelcome: OwnCell[] = [];
  readonly errors: string[] = [];
  #own = -1;
  #dx = 0;
  #dy = 0;
  #steering: ReturnType<typeof setInterval> | null = null;
  #turning: ReturnType<typeof setInterval> | null = null;

  constructor(url: string, room: string, name: string, random: () => number) {
    this.conn = joinAgar(url, room, name);
    this.conn.on("welcome", (w) => {
      this.welcomes.push({ at: performance.now(), playerId: w.playerId, reconnected: w.reconnected, roomEpoch: w.roomEpoch });
      this.#own = -1;
      // Steering waits for the first frame after a welcome, so that frame shows the cell exactly
      // as the room brought it back (one tick of new steering would move it first).
      this.#stopSteering();
    });
    this.conn.on("state", (f) => {
      const view = f.state;
      if (this.#own < 0) for (const e of view.values()) if (e.type === "player" && e.record.pid === this.conn.playerId) this.#own = e.id;
      const e = view.get(this.#own);
      if (e?.type !== "player") return;
      const cell: OwnCell = { at: performance.now(), id: e.id, x: e.record.x, y: e.record.y, r: e.record.r, score: e.record.score };
      this.seen.push(cell);
      if (this.firstAfterWelcome.length < this.welcomes.length) {
        this.firstAfterWelcome.push(cell);
        this.#startSteering();
      }
    });
    this.conn.on("error", (e) => this.errors.push(`${e.name ?? errorName(e.code)}: ${e.reason}`));
    const turn = () => {
      const a = random() * 2 * Math.PI;
      this.#dx = Math.cos(a);
      this.#dy = Math.sin(a);
    };
    turn();
    this.#turning = setInterval(turn, TURN_EVERY_MS);
  }

  /** The last state of its cell the player was shown before `restored` (by the server that went down), if any. */
  lastShownBefore(restored: OwnCell): OwnCell | undefined {
    const at = this.seen.indexOf(restored);
    return at > 0 ? this.seen[at - 1] : undefined;
  }

  /** The newest own cell seen before `t` (`performance.now()`), if any. */
  lastSeenBefore(t: number): OwnCell | undefined {
    for (let i = this.seen.length - 1; i >= 0; i--) if (this.seen[i]!.at < t) return this.seen[i];
    return undefined;
  }

  /** Stops steering and leaves the room for good. */
  close(): void {
    this.#stopSteering();
    if (this.#turning) clearInterval(this.#turning);
    this.conn.close();
  }

  #startSteering(): void {
    this.#stopSteering();
    this.#steering = setInterval(() => this.conn.sendInput({ dx: this.#dx, dy: this.#dy, boost: false }), INPUT_EVERY_MS);
  }

  #stopSteering(): void {
    if (this.#steering) clearInterval(this.#steering);
    this.#steering = null;
  }
}

/**
 * Whether `restored` is a state of its cell the player was shown by the server that went down
 * at `downAt`, from `windowMs` before it: the same entity, at the same place (to the schema's
 * 1/16 unit), with the same radius and score. What a restore from a checkpoint taken in that
 * window gives; a fresh spawn, a world from an older checkpoint or a lost score does not.
 * "Shown by that server" is every state before `restored` (the first after the welcome that
 * brought it back), not only those read before `downAt`: a client whose event loop runs late
 * (a loaded machine) reads frames the old server sent before it went down after `downAt`, and a
 * checkpoint may hold one of those, or one just past the last it read (below).
 */
export function continuesFrom(player: DrillPlayer, restored: OwnCell, downAt: number, windowMs: number): boolean {
  const shown = shownAs(player, restored);
  if (shown !== undefined) return shown.at >= downAt - windowMs;
  // Frames the old server sent just before it went down may never reach a client whose event
  // loop runs late (the socket dies with them): its checkpoint then holds a moment the player was
  // not shown yet, just past the last one it was: the same entity, at most a second of movement
  // (agar: 260 units/s) away, no smaller, no poorer. A fresh spawn is none of that.
  const last = player.lastShownBefore(restored);
  return last !== undefined && last.at >= downAt - windowMs && last.id === restored.id && Math.hypot(restored.x - last.x, restored.y - last.y) <= AHEAD_UNITS && restored.r >= last.r && restored.score >= last.score;
}

/** How far past the last state shown a checkpoint's cell may be: a second of agar's movement. */
const AHEAD_UNITS = 260;

/** The latest state of its cell the player was shown before `restored` that `restored` is (same entity, place, radius, score). */
export function shownAs(player: DrillPlayer, restored: OwnCell): OwnCell | undefined {
  const end = player.seen.indexOf(restored);
  for (let i = end - 1; i >= 0; i--) {
    const s = player.seen[i]!;
    if (s.id === restored.id && Math.abs(s.x - restored.x) < 0.07 && Math.abs(s.y - restored.y) < 0.07 && s.r === restored.r && s.score === restored.score) return s;
  }
  return undefined;
}

/** Two tic-tac-toe players (the turn-based game whose board a restart must not change). */
export class TttPair {
  private constructor(
    readonly x: ReturnType<typeof joinTtt>,
    readonly o: ReturnType<typeof joinTtt>,
  ) {}

  /** X seated first (the first player sits as X), then O. */
  static async seat(url: string, room: string): Promise<TttPair> {
    const x = joinTtt(url, room, "xena");
    await x.whenJoined();
    const o = joinTtt(url, room, "otto");
    await o.whenJoined();
    return new TttPair(x, o);
  }

  /** The board as each player last saw it. */
  boards(): [unknown, unknown] {
    return [this.x.state?.board, this.o.state?.board];
  }

  close(): void {
    this.x.close();
    this.o.close();
  }
}

/**
 * A deploy's code change: a copy of `worker` whose bundle runs one more statement when it loads
 * (it logs `build <tag>`), so the runtime loads a script it has not run before over the same
 * Durable Object storage.
 */
export function changedCopy(worker: FrozenWorker, tag: string): FrozenWorker {
  const dir = `${worker.dir}-${tag}`;
  cpSync(worker.dir, dir, { recursive: true });
  appendFileSync(join(dir, "bundle", "index.js"), `\n// ${tag}: the same gateway with one more statement, as a new deployment's code\nconsole.log(${JSON.stringify(`build ${tag}`)});\n`);
  return { configPath: join(dir, "wrangler.json"), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
