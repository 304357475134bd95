/**
 * One thread's matched players (`run --match`): at its planned join a player asks the matchmaker
 * for a seat, and only once answered does it exist as a simulated player, in the room the answer
 * names (rooms are made here as answers name them), joining with the reservation; its planned
 * leave is a LEAVE, or the end of its wish for a seat when it has none yet.
 */
import { ANY_ROOM } from "@tikron/cloudflare/ticket";
import type { ResolvedConfig } from "../load/config";
import type { PlannedClient } from "../load/loadPlan";
import { MatchMetrics } from "../metrics/matchMetrics";
import { RoomMetrics } from "../metrics/roomMetrics";
import { httpBase, requestSeat, seatUrl, type MatchTarget } from "../players/matchRequest";
import type { SimSocket } from "../players/simSocket";
import { ticketPlayerId, type TicketSource } from "../players/tickets";
import { Rng, playerSeed } from "../scenarios/rng";

/** One planned session of a matched player: its socket once it has a seat, or that it left before. */
export interface MatchedSession {
  readonly plan: PlannedClient;
  socket: SimSocket | null;
  /** The session ended before a seat was answered. */
  gone: boolean;
}

/** What the matched players of a thread need from the thread's run. */
export interface MatchJoinDeps {
  config: ResolvedConfig;
  /** The thread's rooms: a room the matchmaker names for the first time is appended here. */
  rooms: RoomMetrics[];
  /** The thread's players: each is appended once it has its seat. */
  clients: SimSocket[];
  /** Counters every room reports, even at 0 (the scenario's). */
  scenarioCounters: readonly string[];
  /** Makes the player of `index` for a room and its seat's URL. */
  create(index: number, room: RoomMetrics, url: string, rng: Rng): SimSocket;
  /** A room appeared (the live sampler watches it from now on). */
  onRoom?(room: RoomMetrics): void;
  /** Match tickets (production); null in DEV_MODE. */
  tickets: TicketSource | null;
  /** True once the run's window has ended: no more seats are taken. */
  ended(): boolean;
}

/** The matched players of one thread and what their match requests measured. */
export class MatchJoins {
  readonly metrics = new MatchMetrics();
  private readonly byId = new Map<string, RoomMetrics>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly target: MatchTarget;

  constructor(private readonly d: MatchJoinDeps) {
    const cfg = d.config;
    this.target = { httpBase: httpBase(cfg.url), kind: cfg.roomKind, query: cfg.query, timeoutMs: cfg.connectTimeoutMs };
  }

  /** The session's planned join: ask for a seat, then join it. */
  arrive(s: MatchedSession): void {
    const p = this.seat(s).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** The session's planned leave: LEAVE when seated, else give up the wish for a seat. */
  leave(s: MatchedSession, timeoutMs: number): void {
    if (s.socket) void s.socket.leave(timeoutMs, true);
    else s.gone = true;
  }

  /** Waits (at most `ms`) for the match requests still in flight to settle. */
  async settle(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all([...this.inFlight]), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private async seat(s: MatchedSession): Promise<void> {
    const { config: cfg, tickets } = this.d;
    const m = this.metrics;
    const pc = s.plan;
    if (pc.player !== undefined) m.counters.rejoins++;
    let authorization: string | null = null;
    if (tickets) {
      try {
        authorization = await tickets.ticket(cfg.roomKind, ANY_ROOM, ticketPlayerId(cfg.runId, pc.player ?? pc.index));
      } catch (e) {
        return m.unmatched(`ticket:${e instanceof Error ? e.message.slice(0, 40) : "error"}`);
      }
    }
    const gone = (): string | null => (s.gone ? "session_ended" : this.d.ended() ? "run_ended" : null);
    const requestedAt = performance.now();
    const seat = await requestSeat(this.target, m, authorization, gone);
    if (typeof seat === "string") return m.unmatched(seat);
    // Answered too late to be used: the seat held for it goes unused (and shows in the room's
    // reservations as expired or pending).
    const why = gone();
    if (why !== null) return m.unmatched(why);
    const room = this.room(seat.roomId);
    room.counters.planned++;
    if (seat.created) room.counters.matchCreated++;
    const c = this.d.create(pc.index, room, seatUrl(cfg.url, seat), new Rng(playerSeed(cfg.seed, pc.index)));
    c.seatRequestedAt = requestedAt;
    this.d.clients.push(c);
    s.socket = c;
    c.connect();
  }

  private room(id: string): RoomMetrics {
    let room = this.byId.get(id);
    if (room) return room;
    room = new RoomMetrics(id);
    for (const c of this.d.scenarioCounters) room.scenario[c] = 0;
    this.byId.set(id, room);
    this.d.rooms.push(room);
    this.d.onRoom?.(room);
    return room;
  }
}
