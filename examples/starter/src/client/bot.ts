/**
 * The bots of `npm run bots` (scripts/bots.ts seats and stops them): which game they join and how
 * one plays it. It lives with the game's code, so a game of your own changes this file and nothing
 * in scripts/. A bot is a client like the page: a seat from the matchmaker, the game's declaration
 * (`tagGame`) for its inputs, view and events; only the steering is its own.
 */
import { closeName, type MatchClient } from "@tikron/client";
import { TAG_RULES, tagGame, type TagInput } from "../shared/tag";

/** How often a bot looks at the room and steers (ms). */
const THINK_MS = 100;
/** A bot that is not "it" runs from "it" once it is this close (world units). */
const FLEE_RADIUS = TAG_RULES.world / 4;
/** A wandering bot keeps a direction this long (ms). */
const WANDER_MS = 1_500;
/** Closer than this to a wall (world units), a runner turns back inside. */
const WALL = TAG_RULES.tagRadius * 2;

/** What a bot sees of a player (its own record among them). */
export interface Seen {
  x: number;
  y: number;
  it: boolean;
}

/** −1, 0 or 1: which way to go along one axis to grow `delta`, with a dead zone so a bot does not jitter. */
function toward(delta: number): -1 | 0 | 1 {
  return delta > 4 ? 1 : delta < -4 ? -1 : 0;
}

/** True when a runner at `at` on an axis is at a wall and `d` heads into it. */
function intoWall(at: number, d: -1 | 0 | 1): boolean {
  return (at < WALL && d < 0) || (at > TAG_RULES.world - WALL && d > 0);
}

/** An axis turned back inside the arena when the runner is at a wall (a wanderer turns around). */
function insideAxis(at: number, d: -1 | 0 | 1): -1 | 0 | 1 {
  if (at < WALL && d <= 0) return 1;
  if (at > TAG_RULES.world - WALL && d >= 0) return -1;
  return d;
}

/** Along an axis toward the arena's larger side: where a runner pinned to a wall slides. */
function slide(at: number): -1 | 1 {
  return at > TAG_RULES.world / 2 ? -1 : 1;
}

/**
 * One bot's steering: "it" chases the nearest player; the others run from "it" when it comes
 * close (turning along a wall instead of into it), and wander otherwise.
 */
export class TagBrain {
  #wander: TagInput = { dx: 0, dy: 0 };
  #wanderUntil = 0;

  /** `random` picks wandering directions (tests pass a seeded one). */
  constructor(private readonly random: () => number = Math.random) {}

  /** The steering for what the bot sees at `now` (ms): itself, and every player (itself among them). */
  think(me: Seen, players: Iterable<Seen>, now: number): TagInput {
    if (me.it) {
      let target: Seen | undefined;
      let best = Infinity;
      for (const p of players) {
        const d = Math.hypot(p.x - me.x, p.y - me.y);
        if (!p.it && d < best) [target, best] = [p, d];
      }
      if (target) return { dx: toward(target.x - me.x), dy: toward(target.y - me.y) };
    } else {
      for (const p of players) {
        if (!p.it || Math.hypot(p.x - me.x, p.y - me.y) > FLEE_RADIUS) continue;
        // Straight away, unless a wall is in the way: then along it.
        let dx = toward(me.x - p.x);
        let dy = toward(me.y - p.y);
        const pinnedX = intoWall(me.x, dx);
        const pinnedY = intoWall(me.y, dy);
        if (pinnedX) dx = 0;
        if (pinnedY) dy = 0;
        if (dx === 0 && dy === 0) {
          if (pinnedX || !pinnedY) dy = slide(me.y);
          else dx = slide(me.x);
        }
        return { dx, dy };
      }
    }
    if (now >= this.#wanderUntil) {
      const pick = () => (Math.floor(this.random() * 3) - 1) as -1 | 0 | 1;
      this.#wander = { dx: pick(), dy: pick() };
      this.#wanderUntil = now + WANDER_MS;
    }
    this.#wander = { dx: insideAxis(me.x, this.#wander.dx), dy: insideAxis(me.y, this.#wander.dy) };
    return this.#wander;
  }
}

/** A seated bot. */
export interface Bot {
  /** The room it plays in. */
  readonly room: string;
  /** Leaves the room (its seat is freed at once) and stops playing. */
  leave(): void;
}

/**
 * Seats a bot named `name` through the matchmaker (the fullest open room, or a new one) and plays
 * until {@link Bot.leave}; `gone` hears why when the room ends the bot's connection for good
 * (kicked, the room closed). Rejects as `joinOrCreate` does (a `JoinError`) when no seat is found.
 */
export async function playBot(mm: MatchClient, name: string, gone: (why: string) => void): Promise<Bot> {
  const conn = await mm.joinOrCreate(tagGame, { name });
  const brain = new TagBrain();
  let mine = -1;
  let sent: TagInput = { dx: 0, dy: 0 };
  conn.on("event", (e) => {
    if (e.body.kind === "youAre") mine = e.body.entity;
  });
  const timer = setInterval(() => {
    const view = conn.state;
    const me = view.get(mine)?.record;
    if (!me || conn.status !== "joined") return;
    const input = brain.think(me, [...view.values()].map((e) => e.record), Date.now());
    // Steering is a state: sent when it changes, as the page does.
    if (input.dx === sent.dx && input.dy === sent.dy) return;
    sent = input;
    conn.sendInput(input);
  }, THINK_MS);
  conn.on("close", (c) => {
    if (c.willReconnect || c.deliberate) return;
    clearInterval(timer);
    gone(`${closeName(c.code)} (${c.code})${c.reason ? `: ${c.reason}` : ""}`);
  });
  return {
    room: conn.room,
    leave() {
      clearInterval(timer);
      conn.close();
    },
  };
}
