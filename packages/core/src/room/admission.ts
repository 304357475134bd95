/**
 * Admission per identity: what one caller (a verified ticket's player id, or the remote address
 * a host passes) may cost the room before anyone else gets a turn. Without it the room's
 * limits are shared buckets, and one ticket holder can spend them all: 300 silent sockets fill
 * the pending cap, a hello/leave loop drains the join bucket. Here each key gets its own pending
 * cap, its own join bucket (checked before the room's, so its excess never drains the shared
 * one) and a cooldown after an abuse kick. Sockets with no key are limited by the room-wide
 * rules only.
 */
import { CloseCode } from "@tikron/protocol";
import type { AdmissionRefusal } from "../host";
import type { RoomOptions } from "../roomOptions";
import { RoomStats } from "../roomStats";
import { TokenBucket } from "../tokenBucket";
import type { RoomBans } from "./bans";

/**
 * A socket's admission to the room (`HostedRoom.admitSocket`): refused while its key is banned
 * (403, `banned`), else by {@link Admission.check} with `pending` sockets not yet seated; each
 * refusal counted in `refused`.
 */
export function admitToRoom(d: { readonly bans: RoomBans; readonly admission: Admission }, stats: RoomStats, key: string | undefined, pending: number, now: number): AdmissionRefusal | null {
  const ban = d.bans.check(key, now);
  if (ban) {
    RoomStats.bump(stats.refused, "banned");
    const reason = ban.reason === "" ? "banned from this room" : `banned from this room: ${ban.reason}`;
    return { status: 403, counter: "banned", closeCode: CloseCode.banned, reason, retryAfterMs: ban.until - now };
  }
  const refusal = d.admission.check(key, pending, now);
  if (refusal) RoomStats.bump(stats.refused, refusal.counter);
  return refusal;
}

/**
 * The address a host should limit a caller by, or undefined for none. Loopback addresses are
 * not limited: every local client (load tests, tools) shares one, and local runs are not
 * hostile; hostile tests on loopback identify their clients with tickets instead.
 */
export function admissionAddress(address: string | null | undefined): string | undefined {
  if (!address) return undefined;
  const a = address.trim().toLowerCase();
  if (a === "" || a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.") || a === "localhost") return undefined;
  return a;
}

interface KeyState {
  pending: number;
  joins: TokenBucket;
  cooldownUntil: number;
}

/** Keys kept before idle ones are swept (a key is idle with no pending socket and no cooldown). */
const SWEEP_ABOVE = 1024;

/** Per-key pending sockets, join rate and abuse cooldown. Time comes in from the room's clock. */
export class Admission {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly options: RoomOptions) {}

  /**
   * Whether one more socket from `key` may wait for its hello. `pendingInRoom` is the room's
   * count of sockets that have not said hello. Null means admitted (then the caller must
   * {@link opened} it).
   */
  check(key: string | undefined, pendingInRoom: number, now: number): AdmissionRefusal | null {
    if (pendingInRoom >= this.options.maxPendingSockets) {
      return { status: 503, counter: "socket_backlog", closeCode: CloseCode.join_throttled, reason: "too many sockets waiting to join this room", retryAfterMs: 1000 };
    }
    if (key === undefined) return null;
    const s = this.keys.get(key);
    if (!s) return null;
    if (s.cooldownUntil > now) {
      return { status: 429, counter: "cooldown", closeCode: CloseCode.join_throttled, reason: "kicked for abuse; wait before coming back", retryAfterMs: s.cooldownUntil - now };
    }
    if (s.pending >= this.options.maxPendingPerIdentity) {
      return { status: 429, counter: "identity_backlog", closeCode: CloseCode.join_throttled, reason: "too many of your sockets are waiting to join", retryAfterMs: 1000 };
    }
    // A caller whose own join bucket is empty would be refused at its hello anyway; refusing
    // before the upgrade costs the room an HTTP answer instead of a socket, a hello and a close.
    const wait = s.joins.waitMs(now);
    if (wait > 0) return { status: 429, counter: "identity_join_throttled", closeCode: CloseCode.join_throttled, reason: "you are joining too often", retryAfterMs: Math.max(wait, 100) };
    return null;
  }

  /** A socket from `key` was accepted and waits for its hello. */
  opened(key: string | undefined, now: number): void {
    if (key !== undefined) this.state(key, now).pending++;
  }

  /** A socket from `key` said hello or went away before it did. */
  settled(key: string | undefined): void {
    if (key === undefined) return;
    const s = this.keys.get(key);
    if (s && s.pending > 0) s.pending--;
  }

  /**
   * Whether `key` may take a new seat now (its own join bucket). Returns the ms to wait, or 0
   * when the join may go on to the room's shared bucket.
   */
  joinWaitMs(key: string | undefined, now: number): number {
    if (key === undefined) return 0;
    const s = this.state(key, now);
    if (s.cooldownUntil > now) return s.cooldownUntil - now;
    return s.joins.take(now) ? 0 : Math.max(s.joins.waitMs(now), 100);
  }

  /** `key` was kicked for abuse: refuse its sockets and joins for `abuseCooldownMs`. */
  kicked(key: string | undefined, now: number): void {
    if (key !== undefined) this.state(key, now).cooldownUntil = now + this.options.abuseCooldownMs;
  }

  /** Keys tracked (for tests and stats). */
  get size(): number {
    return this.keys.size;
  }

  private state(key: string, now: number): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      if (this.keys.size >= SWEEP_ABOVE) this.sweep(now);
      s = { pending: 0, joins: new TokenBucket(this.options.identityJoinRatePerSec, this.options.identityJoinBurst, now), cooldownUntil: 0 };
      this.keys.set(key, s);
    }
    return s;
  }

  /** Forgets keys that hold nothing: no pending socket, no cooldown, a join bucket refilled. */
  private sweep(now: number): void {
    for (const [key, s] of this.keys) {
      if (s.pending === 0 && s.cooldownUntil <= now && s.joins.waitMs(now, this.options.identityJoinBurst) === 0) this.keys.delete(key);
    }
  }
}
