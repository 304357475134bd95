import { matchError, type MatchError, type PartyState, type PartyView } from "@tikron/protocol";
import type { Clock, TimerHandle } from "../clock";
import type { PlayerClaims } from "../player";
import type { ReservedSeat } from "./seats";
import type { RoomCreation } from "./roomPort";

/** A party as one member sees it, before the host writes the seat as a join URL. */
export type PartyAnswer = Omit<PartyView, "kind" | "seat"> & {
  /** The member's seat, once matched. */
  seat?: ReservedSeat;
};

/** A member's seat once its party is matched: the answer it joins with, and what releases it. */
export interface MemberSeat extends ReservedSeat {
  /** The reservation id the room holds the seat under (to give it back if the member leaves). */
  reservationId: string;
}

/** One member of a party, as the matchmaker keeps it. */
export interface PartyMemberRecord {
  /** The member id: the secret the member names itself by. */
  id: string;
  /** The identity its seat is bound to. */
  identity: string;
  /** The identity was verified: only that identity may act as this member. */
  verified: boolean;
  /** Its display name. */
  name: string;
  /** The sign-in claims it was verified with (its seat's player gets them). */
  claims?: PlayerClaims;
  /** Its rating, if given. */
  rating?: number;
  /** The last time it asked about the party (matchmaker clock; not persisted). */
  seenAt: number;
  /** Its seat, once matched. */
  seat?: MemberSeat;
}

/** A party, as the matchmaker keeps it (and its host's store saves it). */
export interface PartyRecord {
  /** The code. */
  code: string;
  /** When it was made. */
  createdAt: number;
  /** Open: when the code stops working; matched: when the party is dropped (its seats have expired). */
  expiresAt: number;
  /** Bumped on every change members should see. */
  version: number;
  /** Where it is. */
  state: PartyState;
  /** Members in the order they joined; the first is the leader. */
  members: PartyMemberRecord[];
  /** Most members: the seat cap of the rooms it is matched into. */
  maxSize: number;
  /** DEV_MODE overrides of the request that made it: its rooms are made with them. */
  creation: RoomCreation;
  /** Why the last start failed. */
  error?: MatchError;
  /** The start in flight (`matching`). */
  start?: {
    /** The start's id: its outcome is the party's only while this is the start in flight. */
    id: string;
    /** The queue entry's id, when the party waits in the queue. */
    queueId?: string;
  };
}

/** Where a matchmaker keeps its parties across restarts (a host may keep none). */
export interface PartyStore {
  /** Every party saved (called once, before the first request). */
  load(): Promise<unknown[]>;
  /** Saves a party (written behind, like the directory). */
  put(party: PartyRecord): void;
  /** Forgets a party. */
  delete(code: string): void;
}

/** A member's long poll: answered with its view when the party changes, or when the hold ends. */
interface Waiter {
  memberId: string;
  answer: (party: PartyRecord | null | MatchError) => void;
  timer: TimerHandle;
}

/** How long a watch is held when nothing changes (ms): the client asks again at once. */
export const PARTY_WATCH_HOLD_MS = 20_000;

/** Checks a party read back from the host's store; null when it is not one. */
function readPartyRecord(v: unknown): PartyRecord | null {
  if (typeof v !== "object" || v === null) return null;
  const p = v as PartyRecord;
  const num = (n: unknown) => typeof n === "number" && Number.isFinite(n);
  if (typeof p.code !== "string" || !num(p.createdAt) || !num(p.expiresAt) || !num(p.version) || !num(p.maxSize)) return null;
  if (p.state !== "open" && p.state !== "matching" && p.state !== "matched") return null;
  if (!Array.isArray(p.members) || typeof p.creation !== "object" || p.creation === null) return null;
  for (const m of p.members) if (typeof m?.id !== "string" || typeof m.identity !== "string" || typeof m.name !== "string") return null;
  for (const m of p.members) if (m.claims !== undefined && (typeof m.claims !== "object" || m.claims === null)) return null;
  return p;
}

/**
 * The parties a matchmaker holds: by code, each member's long polls, and their saving. Changes go
 * through {@link changed} (the version moves, the store is written, every waiting member is
 * answered); what a change means is the party desk's.
 */
export class PartyBook {
  private readonly parties = new Map<string, PartyRecord>();
  private readonly waiters = new Map<string, Set<Waiter>>();

  constructor(
    private readonly clock: Clock,
    private readonly store?: PartyStore,
  ) {}

  /** Parties held. */
  get size(): number {
    return this.parties.size;
  }

  /**
   * Loads the saved parties. One saved while matching lost its start with the old instance: it
   * is open again, and its members are told why. Every member's idle time starts over.
   */
  async load(): Promise<void> {
    if (!this.store) return;
    const now = this.clock.now();
    for (const v of await this.store.load()) {
      const p = readPartyRecord(v);
      if (!p) continue;
      for (const m of p.members) m.seenAt = now;
      this.parties.set(p.code, p);
      if (p.state === "matching") {
        p.state = "open";
        delete p.start;
        p.error = matchError("unavailable", "the matchmaker restarted while the party was matching: start again", 500);
        this.changed(p);
      }
    }
  }

  /** The party of `code`, if held. */
  get(code: string): PartyRecord | undefined {
    return this.parties.get(code);
  }

  /** Every party (sweeps). */
  all(): IterableIterator<PartyRecord> {
    return this.parties.values();
  }

  /** Files a new party and saves it. */
  add(party: PartyRecord): void {
    this.parties.set(party.code, party);
    this.store?.put(party);
  }

  /** A change members should see: new version, saved, every waiting member answered. */
  changed(party: PartyRecord): void {
    party.version++;
    this.store?.put(party);
    const waiting = this.waiters.get(party.code);
    if (!waiting) return;
    this.waiters.delete(party.code);
    for (const w of waiting) {
      this.clock.clearTimer(w.timer);
      w.answer(party);
    }
  }

  /** Drops a party: its waiting members are answered (null: the party is gone). */
  remove(code: string): void {
    if (!this.parties.delete(code)) return;
    this.store?.delete(code);
    const waiting = this.waiters.get(code);
    this.waiters.delete(code);
    for (const w of waiting ?? []) {
      this.clock.clearTimer(w.timer);
      w.answer(null);
    }
  }

  /** Whether member `memberId` of party `code` has a watch held now (it is not idle). */
  watching(code: string, memberId: string): boolean {
    for (const w of this.waiters.get(code) ?? []) if (w.memberId === memberId) return true;
    return false;
  }

  /**
   * Holds a member's watch until the party changes or {@link PARTY_WATCH_HOLD_MS} passes:
   * resolves with the party then (null when it is gone; `unavailable` when the matchmaker stops).
   */
  wait(party: PartyRecord, memberId: string): Promise<PartyRecord | null | MatchError> {
    return new Promise((resolve) => {
      let set = this.waiters.get(party.code);
      if (!set) this.waiters.set(party.code, (set = new Set()));
      const w: Waiter = {
        memberId,
        answer: resolve,
        timer: this.clock.setTimer(() => {
          this.waiters.get(party.code)?.delete(w);
          resolve(this.parties.get(party.code) ?? null);
        }, PARTY_WATCH_HOLD_MS),
      };
      set.add(w);
    });
  }

  /** Answers every held watch `unavailable` (the matchmaker is going away: ask its next instance). */
  dispose(): void {
    for (const set of this.waiters.values()) {
      for (const w of set) {
        this.clock.clearTimer(w.timer);
        w.answer(matchError("unavailable", "the matchmaker is restarting; ask again", 500));
      }
    }
    this.waiters.clear();
  }
}
