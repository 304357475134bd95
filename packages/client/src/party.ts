import type { AnyGameTypes, JoinOptionsOf, PartyView, SeatReservation } from "@tikron/protocol";
import { JoinError } from "./joinError";
import type { MatchClient } from "./matchmaker";
import { joinSeat, type ConnectionOf, type JoinOptions, type MatchOptions } from "./seatJoin";

/**
 * A party member's options: the party to join, your name for the others, your rating for the
 * queue, your join options.
 */
export interface PartyOptions<G = string> {
  /** The code of the party to join, as typed (any case; dashes and spaces are ignored); none makes a new party. */
  code?: string;
  /** Your name as the other members see it (≤ 32 characters). */
  name?: string;
  /** Your rating: a party started into the queue is matched by its members' mean rating. */
  rating?: number;
  /**
   * Your join options (a team, a skin: what the game declares), checked when you make or join
   * the party (`bad_request` naming the option) and sent in your hello by {@link Party.join}
   * unless its own options give others.
   */
  joinOptions?: G extends AnyGameTypes ? JoinOptionsOf<G> : object;
}

/** How the leader starts a party: a match for every member at once (like `joinOrCreate` for all), or the game's queue. */
export type PartyStart =
  | (MatchOptions & {
      /** `joinOrCreate` (default), `create` or `join`, as for one player. */
      mode?: "joinOrCreate" | "create" | "join";
    })
  | {
      /** The game's queue: the party is one entry of its members' mean rating. */
      mode: "queue";
    };

/** Watches in a row that may fail (the network, the server away) before the party gives up. */
const MAX_WATCH_FAILURES = 10;

/**
 * Makes a party of `game` with you as its leader, or joins the one whose `code` you were given
 * (`options.code`); resolves once you are in it. Share `party.code`, follow `party.onChange`,
 * `party.start()` (the leader), then `party.join()`: every member lands in the same room.
 * Opt-in: a page that never calls it bundles none of it.
 *
 * @example
 * ```ts
 * const mm = matchmaker("https://play.example.com");
 * const p = await party(mm, tttGame, { name: "ann" });     // a friend: party(mm, tttGame, { code, name: "bob" })
 * p.onChange((v) => showMembers(v.members));
 * if (iAmLeader) await p.start();                          // or p.start({ mode: "queue" }), p.start({ filters: { mode: "duel" } })
 * const room = await p.join({ name: "ann" });              // a joined RoomConnection, typed by tttGame
 * ```
 */
export async function party<G extends AnyGameTypes | string>(mm: MatchClient, game: G, options: PartyOptions<G> = {}): Promise<Party<G>> {
  const { code, ...member } = options;
  const kind = encodeURIComponent(typeof game === "string" ? game : game.kind);
  const view = (await mm.request(`/${kind}/party${code === undefined ? "" : `/${encodeURIComponent(code.replace(/[\s-]/g, ""))}`}`, "POST", member)) as PartyView;
  return new Party(mm, game, view, member.joinOptions);
}

/**
 * Your place in a party (see {@link party}): the party as it now is ({@link view}: its code,
 * members, state, your seat once matched), kept up to date by a long poll until it is matched or
 * you leave; {@link start} for its leader; {@link join} for every member once it is matched, each
 * with its own connection options; {@link leave}, which gives back your seat only.
 */
export class Party<G extends AnyGameTypes | string = string> {
  /** The party as you last heard it. */
  declare view: PartyView;
  readonly #mm: MatchClient;
  readonly #game: G;
  readonly #joinOptions: object | undefined;
  readonly #listeners: ((view: PartyView) => void)[] = [];
  readonly #stop = new AbortController();
  readonly #seat: Promise<SeatReservation>;
  #settle!: [(seat: SeatReservation) => void, (e: unknown) => void];

  /** Made by {@link party}, from the matchmaker's first answer (and the member's join options, if any). */
  constructor(mm: MatchClient, game: G, view: PartyView, joinOptions?: object) {
    this.#mm = mm;
    this.#game = game;
    this.#joinOptions = joinOptions;
    this.view = view;
    this.#seat = new Promise((resolve, reject) => (this.#settle = [resolve, reject]));
    // Nobody may be waiting for the seat: a party that ends unmatched is no unhandled rejection.
    this.#seat.catch(() => {});
    this.#take(view);
    void this.#watch();
  }

  /** The code the others join with. */
  get code(): string {
    return this.view.code;
  }

  /** Calls `fn` with every new view of the party (members joining or leaving, its state, your seat); returns the unsubscribe function. */
  onChange(fn: (view: PartyView) => void): () => void {
    this.#listeners.push(fn);
    return () => void this.#listeners.splice(this.#listeners.indexOf(fn) >>> 0, 1);
  }

  /**
   * Starts the party (its leader only): resolves once every member has a seat in one room (the
   * view, with your seat), or rejects with the `JoinError` why none has (`no_room`,
   * `queue_timeout`, `cancelled`, …); the party is then open again.
   */
  async start(how: PartyStart = {}): Promise<PartyView> {
    return this.#take((await this.#ask("/start", "POST", how)) as PartyView);
  }

  /** Stops a start waiting in the queue (its leader only): the start rejects `cancelled`. */
  async cancel(): Promise<void> {
    await this.#ask("/start", "DELETE");
  }

  /** Your seat, once the party is matched; rejects when the party ends without one for you. */
  seat(): Promise<SeatReservation> {
    return this.#seat;
  }

  /**
   * Waits for the match and joins your seat: a joined connection, typed by the game declaration,
   * with your own connection options (name, …; the join options given to {@link party} unless
   * these name others). A refused join is not matched again alone: the party's room is the point.
   */
  async join(options?: JoinOptions<G>): Promise<ConnectionOf<G>> {
    return joinSeat(this.#game, await this.#seat, { joinOptions: this.#joinOptions, ...options } as JoinOptions<G>);
  }

  /** Leaves the party; a seat you had not used yet is given back (the others keep theirs). */
  async leave(): Promise<void> {
    this.#end(new JoinError("cancelled", 0, "you left the party"));
    await this.#ask("", "DELETE").catch(() => {});
  }

  #ask(path: string, method: string, body?: unknown, query = ""): Promise<unknown> {
    const v = this.view;
    return this.#mm.request(`/${encodeURIComponent(v.kind)}/party/${v.code}${path}?member=${v.member}${query}`, method, body, query ? this.#stop.signal : undefined);
  }

  #take(view: PartyView): PartyView {
    if (view.version > this.view.version) {
      this.view = view;
      for (const fn of this.#listeners.slice()) fn(view);
    }
    if (this.view.seat) {
      this.#settle[0](this.view.seat);
      this.#stop.abort();
    }
    return this.view;
  }

  #end(e: unknown): void {
    this.#settle[1](e);
    this.#stop.abort();
  }

  /** The long poll: asked again as soon as answered, until the party is matched, left or gone. */
  async #watch(): Promise<void> {
    for (let failures = 0; !this.#stop.signal.aborted; ) {
      try {
        this.#take((await this.#ask("", "GET", undefined, `&after=${this.view.version}`)) as PartyView);
        failures = 0;
      } catch (e) {
        if (this.#stop.signal.aborted) return;
        // A refusal that names no wait (not_found: the party ended, or you were dropped) is the end.
        const wait = e instanceof JoinError ? e.retryAfterMs : 1000;
        if (!wait || ++failures > MAX_WATCH_FAILURES) return this.#end(e);
        await new Promise((r) => setTimeout(r, Math.min(wait, 10_000)));
      }
    }
  }
}
