/**
 * The game's store (`ctx.store`): a small map of string keys to JSON values per room, which
 * hosts keep durable beside the room's checkpoint. The room holds it as JSON text (what a host
 * writes, and what every `get` parses a fresh copy from); hosts read it as a
 * {@link GameStoreSnapshot} when its version moved, and hand one back when they make the room.
 */

/** Most characters a store holds: every key plus the JSON text of every value (UTF-16 units). */
export const MAX_STORE_CHARS = 32 * 1024;
/** Longest key (UTF-16 units); keys are at least one character. */
export const MAX_STORE_KEY_CHARS = 128;

/**
 * What a game sees of its room's store. Values are JSON: `set` stores what `JSON.stringify`
 * makes of the value (so `NaN` reads back as `null`, a `Date` as its string) and `get` returns a
 * fresh copy, so changing a value read from the store changes nothing until it is `set` again.
 *
 * Durability: a change is saved with the room's next checkpoint, which hosts write right after
 * it (Cloudflare: in the same storage write as the checkpoint, batched per event); a restart
 * gives back what was saved before it. The store outlives sessions: when the last player leaves
 * it stays, and the next room under the same id starts with it. It is not a database: keep it to
 * things that change now and then (settings, totals, a best score, a round counter), not every
 * tick, and write results that grow to a binding (see `GameContext.defer`). The Node host and
 * `TestRoom` keep it in memory only.
 */
export interface GameStore {
  /** A copy of the value under `key`, or undefined. The type is the caller's claim, not checked. */
  get<T = unknown>(key: string): T | undefined;
  /** Whether `key` holds a value. */
  has(key: string): boolean;
  /**
   * Stores `value` under `key`. Setting the same JSON again is not a change.
   *
   * @throws TypeError for a key that is not 1–{@link MAX_STORE_KEY_CHARS} characters or a value
   * JSON cannot hold (undefined, a function, a BigInt, a cycle); RangeError when the store would
   * exceed {@link MAX_STORE_CHARS}. The store is unchanged then.
   */
  set(key: string, value: unknown): void;
  /** Removes `key`; returns whether it held a value. */
  delete(key: string): boolean;
  /** Every key, in the order they were first set. */
  keys(): string[];
  /** Keys held. */
  readonly size: number;
  /** Characters used of {@link MAX_STORE_CHARS}. */
  readonly chars: number;
}

/** A store as hosts keep it: each key with the JSON text of its value, in the store's key order. */
export interface GameStoreSnapshot {
  /** Format version. */
  v: 1;
  /** `[key, JSON text]` pairs (pairs, not an object: any key, and the order, survive). */
  entries: [string, string][];
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_STORE_KEY_CHARS) {
    throw new TypeError(`a store key is a string of 1-${MAX_STORE_KEY_CHARS} characters`);
  }
}

/**
 * The room's side of the store: the values as JSON text, what they weigh, and a version that
 * moves on every change (hosts save the store when it moved since their last write).
 */
export class RoomStore implements GameStore {
  readonly #values = new Map<string, string>();
  #chars = 0;
  #version = 0;

  /** @param changed called after every change (the room asks its host for a checkpoint) */
  constructor(private readonly changed: () => void) {}

  get size(): number {
    return this.#values.size;
  }

  get chars(): number {
    return this.#chars;
  }

  /** Moves on every change; hosts compare it with the version they last saved. */
  get version(): number {
    return this.#version;
  }

  get<T = unknown>(key: string): T | undefined {
    const text = this.#values.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  set(key: string, value: unknown): void {
    checkKey(key);
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (e) {
      throw new TypeError(`store value for "${key}" is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (text === undefined) throw new TypeError(`store value for "${key}" is not JSON (${typeof value})`);
    const old = this.#values.get(key);
    if (old === text) return;
    const chars = this.#chars - (old === undefined ? 0 : key.length + old.length) + key.length + text.length;
    if (chars > MAX_STORE_CHARS) throw new RangeError(`the store is full: "${key}" would make it ${chars} of ${MAX_STORE_CHARS} characters`);
    this.#values.set(key, text);
    this.#chars = chars;
    this.#bump();
  }

  delete(key: string): boolean {
    const old = this.#values.get(key);
    if (old === undefined) return false;
    this.#values.delete(key);
    this.#chars -= key.length + old.length;
    this.#bump();
    return true;
  }

  keys(): string[] {
    return [...this.#values.keys()];
  }

  /** The store as a host keeps it, or null when it is empty (the host deletes what it kept). */
  snapshot(): GameStoreSnapshot | null {
    if (this.#values.size === 0) return null;
    return { v: 1, entries: [...this.#values] };
  }

  /**
   * Fills an empty store from a {@link snapshot} a host kept (no change is reported: it is what
   * the host already has). Returns false, loading nothing, for a value that is not a snapshot
   * within the limits or whose values are not JSON text.
   */
  load(saved: unknown): boolean {
    const s = saved as Partial<GameStoreSnapshot> | null;
    if (!s || typeof s !== "object" || s.v !== 1 || !Array.isArray(s.entries)) return false;
    const entries: unknown[] = s.entries;
    const keys = new Set<string>();
    let chars = 0;
    for (const pair of entries) {
      if (!Array.isArray(pair) || pair.length !== 2) return false;
      const [key, text] = pair as unknown[];
      if (typeof key !== "string" || key.length === 0 || key.length > MAX_STORE_KEY_CHARS || keys.has(key) || typeof text !== "string") return false;
      keys.add(key);
      try {
        JSON.parse(text);
      } catch {
        return false;
      }
      chars += key.length + text.length;
    }
    if (chars > MAX_STORE_CHARS) return false;
    this.#values.clear();
    for (const [key, text] of entries as [string, string][]) this.#values.set(key, text);
    this.#chars = chars;
    return true;
  }

  #bump(): void {
    this.#version++;
    this.changed();
  }
}
