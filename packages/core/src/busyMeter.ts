/**
 * `BusyMeter`: how long one object (a room, a relayed room's simulation, one of its relays) ran
 * its own code, apart from whatever else shares its thread.
 *
 * Why: under `wrangler dev` every Durable Object runs on one workerd thread, so the process CPU
 * a load run reads is the sum of all of them. On the edge each object has a thread of its own
 * and its CPU is what it runs; summing the time spent inside each object's entries (requests,
 * socket events, the link between objects, alarms, the room's timers) predicts that. Where it
 * does not: it leaves out workerd's own work outside JavaScript (socket reads and writes,
 * framing), which a single room does all of and a simulation object little of, so the ratio
 * of a simulation's time to a single room's errs on the side of the single room. Locally
 * `performance.now()` advances during execution; inside deployed Workers it advances only
 * across I/O and reads ~0 here, so the figure is a local measurement only (see `TIMING_NOTE`).
 * Local workerd's clock ticks in whole milliseconds: an entry shorter than that reads 0 or 1 ms
 * by where it falls between ticks, which over thousands of entries adds up to their real time
 * (each reads 1 with a chance equal to its length in ms), not per entry.
 */
import { runNextTask, type Clock } from "./clock";
import { perfNow } from "./durationStats";

/** An object's own time as `tk:stats` reports it under `busy`. */
export interface BusyReading {
  /** Milliseconds spent inside the object's entries since it started metering. */
  ms: number;
  /**
   * {@link ms} by the kind of entry it was spent in (the outermost one's label: `request`,
   * `rpc`, `socket`, `timer`, …; what each host labels is its own), so a join's part of an
   * object's time can be told from its steady play.
   */
  entries?: Record<string, number>;
  /** Share of the last {@link windowMs} (or of the time since the meter started, when shorter) spent inside them: 1 = one thread busy all the time. */
  share: number;
  /** The window `share` covers, ms. */
  windowMs: number;
}

/**
 * The meters with an entry open, most recent last: objects that share a thread (every object of
 * a local `wrangler dev`, the rooms of a Node host) share this module, so an entry counts only
 * while it is the latest (time an object spends awaiting inside `during` while another object
 * runs is the other's).
 */
const running: BusyMeter[] = [];

/** The window `BusyReading.share` covers by default. */
export const BUSY_WINDOW_MS = 10_000;
/** Busy time is kept per second of the window. */
const SLOT_MS = 1000;

/**
 * Adds up the time spent inside an object's entries: {@link enter} when a host event starts
 * running the object's code, {@link exit} when it returns. Nested entries (a timer fired from
 * inside a metered call, a socket handler calling into the room) count once, from the
 * outermost enter to its exit. Recording allocates nothing.
 */
export class BusyMeter {
  private depth = 0;
  private enteredAt = 0;
  private total = 0;
  /** The label of the outermost entry running (its time goes under it). */
  private label = "other";
  /** An entry is open but another meter's runs meanwhile (see {@link enter}). */
  private paused = false;
  /** Busy ms by the label of the outermost entry. */
  private readonly byLabel = new Map<string, number>();
  private readonly startedAt: number;
  /** Busy ms per second slot of the window, and which second each slot holds. */
  private readonly slots: Float64Array;
  private readonly slotSecond: Float64Array;

  /**
   * @param now the time source (ms): `performance.now()` by default; tests pass a fake.
   * @param windowMs the window of {@link reading}'s share (whole seconds).
   */
  constructor(
    private readonly now: () => number = perfNow,
    readonly windowMs = BUSY_WINDOW_MS,
  ) {
    const n = Math.max(1, Math.ceil(windowMs / SLOT_MS));
    this.slots = new Float64Array(n);
    this.slotSecond = new Float64Array(n).fill(-1);
    this.startedAt = now();
  }

  /**
   * Work of the object starts (a host event entered it); `label` names the kind of entry (see
   * {@link BusyReading.entries}; an entry inside another counts under the outer one's).
   */
  enter(label = "other"): void {
    if (this.depth++ === 0) {
      // Another meter's entry still open (one awaiting inside `during`) stops counting while
      // this one runs: the thread is this object's now.
      running.at(-1)?.pause();
      running.push(this);
      this.enteredAt = this.now();
      this.paused = false;
      this.label = label;
    }
  }

  /** The work {@link enter} started returned (or threw). */
  exit(): void {
    if (this.depth === 0) return;
    if (--this.depth > 0) return;
    if (!this.paused) {
      const end = this.now();
      if (end > this.enteredAt) this.add(this.enteredAt, end);
    }
    const at = running.lastIndexOf(this);
    if (at >= 0) running.splice(at, 1);
    // The entry this one interrupted counts again.
    if (at === running.length) running.at(-1)?.resume();
  }

  /** Another meter's entry runs on the thread: what this one ran so far is counted, then nothing until {@link resume}. */
  private pause(): void {
    if (this.paused) return;
    const end = this.now();
    if (end > this.enteredAt) this.add(this.enteredAt, end);
    this.paused = true;
  }

  /** The entry that interrupted this one ended: counting goes on. */
  private resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.enteredAt = this.now();
  }

  /** Runs `fn` as one entry of the object. */
  run<R>(fn: () => R, label?: string): R {
    this.enter(label);
    try {
      return fn();
    } finally {
      this.exit();
    }
  }

  /** `fn` as an entry of the object: for a listener a host registers once (a socket's `message`). */
  wrap<A, R>(fn: (a: A) => R, label?: string): (a: A) => R {
    return (a) => {
      this.enter(label);
      try {
        return fn(a);
      } finally {
        this.exit();
      }
    };
  }

  /**
   * Runs async `fn` as one entry from its start until it settles, except while it waits in
   * {@link waiting}: for an entry that awaits (an RPC method that asks another object). Entries
   * in flight at once count once, as the time any of them was running, and not while another
   * meter's entry runs (objects sharing the thread): the time between their
   * awaits is the thread's, since awaiting anything but {@link waiting}'s I/O (a resolved
   * promise, a computed signature) lets nothing else in but microtasks.
   */
  async during<R>(fn: () => Promise<R>, label?: string): Promise<R> {
    this.enter(label);
    try {
      return await fn();
    } finally {
      this.exit();
    }
  }

  /** Waits for `io` (another object's answer, storage, a timer) inside {@link during} without counting the wait. */
  async waiting<R>(io: Promise<R>): Promise<R> {
    // Called outside any entry, it counts nothing either way.
    const inside = this.depth > 0;
    const label = this.label;
    if (inside) this.exit();
    try {
      return await io;
    } finally {
      if (inside) this.enter(label);
    }
  }

  /** `inner` with every timer and next task it runs counted as an entry labelled `label` (the clock a room runs on). */
  clock(inner: Clock, label = "timer"): Clock {
    return {
      now: () => inner.now(),
      setTimer: (fn, delayMs) => inner.setTimer(() => this.run(fn, label), delayMs),
      clearTimer: (handle) => inner.clearTimer(handle),
      nextTask: (fn) => runNextTask(inner, () => this.run(fn, label)),
    };
  }

  /** Milliseconds spent inside entries so far (an entry still running is not counted yet). */
  get ms(): number {
    return this.total;
  }

  /** The total and the share of the recent window spent busy. */
  reading(): BusyReading {
    const at = this.now();
    const n = this.slots.length;
    const second = Math.floor(at / SLOT_MS);
    let busy = 0;
    for (let i = 0; i < n; i++) if (this.slotSecond[i]! > second - n) busy += this.slots[i]!;
    const from = Math.max(this.startedAt, (second - n + 1) * SLOT_MS);
    const covered = at - from;
    const entries: Record<string, number> = {};
    for (const [k, v] of this.byLabel) entries[k] = round3(v);
    return { ms: round3(this.total), entries, share: covered > 0 ? Math.round((busy / covered) * 1e4) / 1e4 : 0, windowMs: n * SLOT_MS };
  }

  /** Adds the busy interval [from, to) to the total, its label's, and the seconds it covers. */
  private add(from: number, to: number): void {
    this.total += to - from;
    this.byLabel.set(this.label, (this.byLabel.get(this.label) ?? 0) + (to - from));
    const n = this.slots.length;
    // Only the window's seconds are kept: an entry longer than the window fills it.
    let t = Math.max(from, to - n * SLOT_MS);
    while (t < to) {
      const second = Math.floor(t / SLOT_MS);
      const end = Math.min(to, (second + 1) * SLOT_MS);
      const i = ((second % n) + n) % n;
      if (this.slotSecond[i] !== second) {
        this.slotSecond[i] = second;
        this.slots[i] = 0;
      }
      this.slots[i]! += end - t;
      t = end;
    }
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
