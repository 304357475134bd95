/**
 * A relay (`RelayRoom`): the sockets of some of a relayed room's clients and the per-client
 * work of its flush, next to a simulation (relay/simulation.ts) that runs the game and seats.
 */
import { BinaryReader, CloseCode, DecodeError, FrameWriter, isDecodeError, type SchemaDecl, type SpectateRequest } from "@tikron/protocol";
import type { BusyMeter } from "../busyMeter";
import { systemClock, type Clock } from "../clock";
import type { AdmissionRefusal, Connection } from "../host";
import type { SocketRoom } from "../hostedRoom";
import { playerRecord, type PlayerClaims } from "../player";
import { Admission } from "../room/admission";
import { newSeat, sendTo, type ClientLink, type Seat } from "../room/clientLink";
import { BinaryFlusher } from "../room/flushers";
import type { Inbound } from "../room/inbound";
import { RecentErrors } from "../room/recentErrors";
import { RoomSockets } from "../room/roomSockets";
import { SessionTracker } from "../room/sessionTracker";
import { SlicedFlush } from "../room/slicedFlush";
import { resolveRoomOptions, type RoomOptions } from "../roomOptions";
import { RoomStats } from "../roomStats";
import { MirrorWorld } from "../sync/mirrorWorld";
import { InputPhase } from "./inputPhase";
import type { RelayPort } from "./relayPort";
import { RELAY_REPORT_MS, writeRelayReport } from "./relayReport";
import { RelayKind, readBytes, readClientData, writeClaims, writeClientData, writeOptional } from "./relayWire";
import type { RelayInit } from "./relayInit";
import { SpectatorHub } from "../spectate/spectatorHub";

export type { RelayInit } from "./relayInit";

/**
 * The socket side of a relayed room. A host hands it client `Connection`s as it would a room's:
 * it is a {@link SocketRoom}, so one socket table serves both; the relay does the socket's edge with the
 * room's own sockets (room/roomSockets.ts: size check, message budget, dialect, decoding),
 * answers what is the socket's business (pings, receipts, keepalives), forwards what the
 * simulation answers (hello, stats, game messages, leave), and sends its clients' inputs to the
 * simulation in one message per tick, just before the simulation's tick (relay/inputPhase.ts).
 *
 * Per flush it takes the simulation's message ({@link receive}): the world feed update goes to
 * its `MirrorWorld`, its players' acks, events and notices to their seats here, and every
 * client gets the FRAME the single room would send it, through the room's own binary flusher
 * over the mirror's encoder, in slices like the room's flush. A mirror that lost its place
 * asks for a snapshot and its clients wait (their acks and events with them) until it comes.
 *
 * Its link to the simulation may be lost and made again (the simulation's object restarted from
 * its checkpoint): {@link unlinked} keeps the seated clients' sockets, {@link relinked} asks the
 * new simulation for each one's seat back with its token, and each client is welcomed into it
 * before its first frame of the new world (the welcome clears the client's view, so it holds no
 * entity of the old one).
 */
export class RelayRoom<D extends SchemaDecl = SchemaDecl> implements SocketRoom {
  /** The relay's counters (its sockets' messages, frames, errors), apart from the simulation's. */
  readonly stats = new RoomStats();
  /** The relay's copy of the simulation's world. */
  readonly mirror: MirrorWorld<D>;
  /** Spectators on this relay (core/src/spectate), fed the world stream it gets: not the simulation's cost. */
  readonly spectators: SpectatorHub;
  /** The resolved options the relay's sockets and flushes run with. */
  readonly options: RoomOptions;
  private readonly clock: Clock;
  private port: RelayPort;
  /** Clock time the frames' times count from: the simulation's times are written as given. */
  private readonly epoch: number;
  private readonly writer = new FrameWriter(4096);
  private readonly out = new FrameWriter(1 << 12);
  private readonly sockets: RoomSockets;
  private readonly admission: Admission;
  private readonly flusher: BinaryFlusher;
  private readonly flushing: SlicedFlush;
  /** When this tick's inputs go: just before the simulation's tick (relay/inputPhase.ts). */
  private readonly inputPhase: InputPhase;
  /** Seats of this relay's clients, in the order they took them. */
  private readonly seats: Seat[] = [];
  /** This tick's input rows (`clientId`, count, `(seq, payload)`s) and how many. */
  private readonly inputs = new FrameWriter(1 << 12);
  private inputRows = 0;
  /** The last input row's client and its last seq: a sent batch's probe. */
  private lastRowLink: ClientLink | null = null;
  private lastRowSeq = 0;
  /**
   * The last batch sent for a tick of the simulation, as one of its inputs: when that seq is
   * acked by the flush of that tick, the batch made it (`InputPhase.landed`).
   */
  private probeSeat: Seat | null = null;
  private probeSeq = 0;
  private probeTick = 0;
  /** The message being handled, for forwarding it as it came. */
  private raw: Uint8Array | string = "";
  /** A close the simulation asked for: not reported back to it. */
  private closingForSimulation = false;
  private snapshotAsked = false;
  private disposed = false;
  /** The relay's index and meter, for its reports ({@link report}). */
  private readonly index: number;
  private readonly busy: BusyMeter | undefined;
  /** Clock time of the last report (relay/relayReport.ts). */
  private reportedAt = -Infinity;
  /** False from a lost link ({@link unlinked}) until a new one ({@link relinked}). */
  private linked = true;
  /**
   * Seats of the old link whose clients wait for the simulation to seat them again: no frames
   * go to them and nothing they send goes on until it does.
   */
  private readonly waiting = new Set<Seat>();

  constructor(init: RelayInit<D>) {
    const base = init.clock ?? systemClock;
    const clock = (this.clock = init.busy ? init.busy.clock(base) : base);
    this.port = init.port;
    this.epoch = clock.now();
    const options = (this.options = resolveRoomOptions(init.options));
    const { stats, writer } = this;
    this.mirror = new MirrorWorld(init.schema, init.world);
    const wantSnapshot = () => this.port.send(this.out.reset().u8(RelayKind.WantSnapshot).peek());
    this.spectators = new SpectatorHub({ ...init, options, stats, clock, epoch: null, syncIntervalMs: () => options.syncIntervalMs, wantSnapshot });
    this.sockets = new RoomSockets({
      kind: init.kind,
      roomId: init.roomId,
      clock,
      options,
      stats,
      writer,
      sessions: new SessionTracker(init.kind, init.roomId, clock, stats, {}),
      admission: (this.admission = new Admission(options)),
      recentErrors: new RecentErrors(),
      seatLost: (seat) => this.seatLost(seat),
    });
    const mirror = this.mirror;
    this.flusher = new BinaryFlusher(mirror.encoder, { options, stats, writer, epoch: this.epoch, gate: this.sockets }, () => mirror.flushIndex);
    this.flushing = new SlicedFlush({ flusher: this.flusher, stats, clock, sliceClients: () => options.flushSliceClients, finished: () => {} });
    this.inputPhase = new InputPhase(clock, options.tickMs, (forTick) => this.sendBatch(forTick));
    this.index = init.index ?? 0;
    this.busy = init.busy;
  }

  /** How long before the simulation's predicted tick this relay sends its input batch now, ms (relay/inputPhase.ts). */
  get inputLeadMs(): number {
    return this.inputPhase.leadMs;
  }

  /** Clients seated through this relay. */
  get seatedCount(): number {
    return this.seats.length;
  }

  /** Clients kept across a lost link, waiting to be seated again. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** Whether the relay has a link to a simulation (false from {@link unlinked} to {@link relinked}). */
  get isLinked(): boolean {
    return this.linked;
  }

  // ---- what a host calls, as on a room (SocketRoom, hostedRoom.ts) -------------------------

  /**
   * The relay's own admission of a socket (per-caller limits; none while its link is down: the
   * caller retries once the room is back); bans and the cap are the simulation's.
   */
  admitSocket(identity?: string, address?: string): AdmissionRefusal | null {
    if (!this.linked) {
      RoomStats.bump(this.stats.refused, "relinking");
      return { status: 503, counter: "relinking", closeCode: CloseCode.join_throttled, reason: "the room is restarting; retry", retryAfterMs: 1000 };
    }
    const pending = this.sockets.size - this.seats.length;
    const refusal = this.admission.check(identity ?? address, pending, this.clock.now());
    if (refusal) RoomStats.bump(this.stats.refused, refusal.counter);
    return refusal;
  }

  /** A spectator's socket (core/src/spectate): its id, or -1 when refused and closed. */
  spectate(conn: Connection, request: SpectateRequest): number {
    return this.spectators.open(conn, request, this.clock.now());
  }

  /** A socket was accepted: the simulation hears of it and takes it as one of its own (its claims with it). */
  open(conn: Connection, identity?: string, address?: string, reservation?: string, claims?: PlayerClaims): number {
    let clientId = 0;
    const relay = this;
    // The relay's own closes (abuse, a slow reader, no hello) are the simulation's to hear too.
    const socket: Connection = {
      send: (data) => conn.send(data),
      close(code, reason) {
        conn.close(code, reason);
        if (!relay.closingForSimulation) relay.sendClosed(clientId, code, true, reason);
      },
      bufferedAmount: () => conn.bufferedAmount(),
    };
    const link = this.sockets.open(socket, identity, address, reservation);
    link.claims = claims;
    clientId = link.connId;
    // Input batches go once per tick while the relay has sockets (it stops when the last goes).
    this.inputPhase.start();
    const w = this.out.reset().u8(RelayKind.Open).varuint(clientId);
    writeOptional(w, identity);
    writeOptional(w, address);
    writeOptional(w, reservation);
    writeClaims(w, claims);
    this.port.send(w.peek());
    return clientId;
  }

  /** One message from a client socket. */
  message(connId: number, data: Uint8Array | ArrayBuffer | string): void {
    if (SpectatorHub.owns(connId)) return this.spectators.message(connId, data, this.clock.now());
    const link = this.sockets.get(connId);
    if (!link || link.closed) return;
    const now = this.clock.now();
    const m = this.sockets.arrive(link, (this.raw = data instanceof ArrayBuffer ? new Uint8Array(data) : data), now);
    try {
      if (m !== null) this.handle(link, m, now);
    } catch (e) {
      this.sockets.dispatchFailed(link, e);
    } finally {
      if (m !== null) this.sockets.release();
      this.raw = "";
    }
  }

  /** A client socket closed. */
  closed(connId: number, code: number, _reason = ""): void {
    if (SpectatorHub.owns(connId)) return this.spectators.closed(connId);
    const link = this.sockets.get(connId);
    if (link && !link.closed) this.sendClosed(connId, code, false, "");
    this.sockets.closed(connId, code);
    if (this.sockets.size === 0) this.reportDue(true);
  }

  /** Stops the relay: its input batches, and its sockets closed with `code`. */
  dispose(code: number, reason: string): void {
    if (this.disposed) return;
    this.disposed = true;
    this.inputPhase.stop();
    this.flushing.finish();
    this.sockets.closeAll(code, reason);
  }

  /**
   * The link to the simulation is lost (its object restarted or failed). Seated clients keep
   * their sockets and wait for {@link relinked}; their inputs and messages meanwhile are dropped
   * (a welcome tells the client which of its inputs the restored seat applied). Sockets without
   * a seat have nothing to keep and are closed with `going_away`. Returns how many clients wait.
   */
  unlinked(): number {
    if (this.disposed || !this.linked) return this.waiting.size;
    this.linked = false;
    this.flushing.finish();
    this.inputs.reset();
    this.inputRows = 0;
    this.snapshotAsked = false;
    for (const seat of this.seats) {
      this.flusher.detach(seat);
      seat.events.length = seat.notices.length = 0;
      this.waiting.add(seat);
    }
    this.seats.length = 0;
    // Unlinked: their closes are not reported (nobody to report them to).
    this.sockets.closeUnseated(CloseCode.going_away, "the room restarted; reconnect");
    return this.waiting.size;
  }

  /**
   * A new link to the simulation (back from its checkpoint, or the same one after a broken
   * link): each waiting client asks for its seat back with its token (`RelayKind.Resume`).
   * The simulation answers as a room answers a hello: `Seated` (a fresh baseline here) and a
   * welcome, which clears the client's view before the first frame of the world it comes back to.
   */
  relinked(port: RelayPort): void {
    if (this.disposed) return;
    this.port = port;
    this.linked = true;
    for (const seat of this.waiting) {
      const link = seat.link!;
      const w = this.out.reset().u8(RelayKind.Resume).varuint(link.connId);
      writeOptional(w, link.identity);
      writeOptional(w, link.admissionKey);
      w.string(seat.token).string(seat.name);
      writeClaims(w, link.claims);
      port.send(w.peek());
    }
  }

  /** Where every decoded client message goes: what {@link message} got through the sockets' guards. */
  private handle(link: ClientLink, m: Inbound, now: number): void {
    switch (m.kind) {
      case "inputs":
        return this.takeInputs(link, m.entries, m.count);
      case "ping":
      case "receipt":
      case "keepalive":
        return this.sockets.answerOwn(link, m, now);
      default: {
        // hello, stats, game messages, leave: the simulation's to answer, as the client sent them.
        // Not while the client waits for its seat back: the simulation does not know it yet.
        if (!this.linked || (link.seat !== null && this.waiting.has(link.seat))) return;
        const w = this.out.reset().u8(RelayKind.Forward).varuint(link.connId);
        writeClientData(w, this.raw);
        this.port.send(w.peek());
      }
    }
  }

  /** Sends this tick's inputs of every client, in one message (none when there are none). */
  sendInputs(): void {
    if (this.inputRows === 0) {
      if (this.sockets.size === 0) this.inputPhase.stop();
      return;
    }
    const w = this.out.reset().u8(RelayKind.Inputs).varuint(this.inputRows);
    w.copyFrom(this.inputs, 0, this.inputs.offset);
    this.inputs.reset();
    this.inputRows = 0;
    this.port.send(w.peek());
  }

  /** One message from the simulation. A message that does not decode is counted and dropped. */
  receive(data: Uint8Array): void {
    try {
      this.read(new BinaryReader(data));
    } catch (e) {
      if (!isDecodeError(e)) throw e;
      RoomStats.bump(this.stats.errors, "relay_bad_message");
      console.error(`[relay] simulation message: ${e.message}`);
    }
  }

  // ---- inside -------------------------------------------------------------------------------

  /**
   * Reports the relay's counters to the simulation (relay/relayReport.ts) with the first flush
   * after each {@link RELAY_REPORT_MS}, and once more (`final`) when its last socket is gone, so
   * the last report of an idle relay says so.
   */
  private reportDue(final = false): void {
    const now = this.clock.now();
    if (this.disposed || (!final && now - this.reportedAt < RELAY_REPORT_MS)) return;
    this.reportedAt = now;
    const { index, busy, stats } = this;
    this.port.send(writeRelayReport(this.out.reset(), { index, sockets: this.sockets.size, seated: this.seats.length, stats, busy: busy?.reading() }).peek());
  }

  private takeInputs(link: ClientLink, entries: readonly { seq: number; payload: unknown }[], count: number): void {
    if (!link.seat) return this.sockets.protocolError(link, "not_joined", "input before hello");
    // Dropped while the client waits for its seat back: its welcome says what the seat applied.
    if (!this.linked || this.waiting.has(link.seat)) return;
    const w = this.inputs;
    const rowStart = w.offset;
    w.varuint(link.connId).varuint(count);
    for (let i = 0; i < count; i++) {
      const { seq, payload } = entries[i]!;
      if (!(payload instanceof Uint8Array)) {
        w.offset = rowStart;
        return this.sockets.protocolError(link, "bad_frame", "inputs of a relayed room are binary");
      }
      w.varuint(seq).varuint(payload.byteLength).bytes(payload);
    }
    this.lastRowLink = link;
    this.lastRowSeq = entries[count - 1]!.seq;
    if (this.inputRows++ === 0) this.inputPhase.queued();
  }

  /** The batch for the simulation's tick `forTick` (-1: no phase known yet), its last input kept to see whether it made that tick. */
  private sendBatch(forTick: number): void {
    // Inputs the simulation applies on arrival (`queueInputs` off) are acked then, in frames of
    // their own, not in its flush: no tick to make, nothing to learn.
    const probe = this.inputRows > 0 && forTick >= 0 && this.options.queueInputs;
    const seat = probe ? (this.lastRowLink?.seat ?? null) : null;
    if (seat) {
      this.probeSeat = seat;
      this.probeSeq = this.lastRowSeq;
      this.probeTick = forTick;
    }
    this.sendInputs();
  }

  /**
   * After a flush of tick `tick` updated the acks: whether the probed batch made its tick. A
   * batch not acked by the first flush at or past its tick missed; one acked by a later flush
   * (a tick without a flush in between) says nothing either way.
   */
  private checkProbe(tick: number): void {
    const seat = this.probeSeat;
    if (seat === null || tick < this.probeTick) return;
    this.probeSeat = null;
    if (seat.link === null || seat.link.closed || seat.link.seat !== seat) return;
    const made = seat.lastProcessedSeq >= this.probeSeq;
    if (!made || tick === this.probeTick) this.inputPhase.landed(made);
  }

  private sendClosed(clientId: number, code: number, byRelay: boolean, reason: string): void {
    if (!this.linked) return;
    // The inputs a socket sent before it closed are the room's, as a room's own socket's are
    // (queued at arrival): they go first, while the simulation still knows whose they are.
    this.sendInputs();
    this.port.send(this.out.reset().u8(RelayKind.Closed).varuint(clientId).varuint(code).u8(byRelay ? 1 : 0).string(reason).peek());
  }

  private seatLost(seat: Seat): void {
    this.waiting.delete(seat);
    const i = this.seats.indexOf(seat);
    if (i >= 0) this.seats.splice(i, 1);
    this.flusher.detach(seat);
  }

  private read(r: BinaryReader): void {
    const kind = r.u8();
    switch (kind) {
      case RelayKind.Seated:
        return this.seated(r.varuint(), r.varuint(), r.string(256), r.string(256));
      case RelayKind.ToClient: {
        const link = this.sockets.get(r.varuint());
        const data = readClientData(r);
        if (link && !link.closed) sendTo(link, data);
        return;
      }
      case RelayKind.Close: {
        const link = this.sockets.get(r.varuint());
        const code = r.varuint();
        const reason = r.string();
        if (!link) return;
        this.closingForSimulation = true;
        try {
          this.sockets.close(link, code, reason);
        } finally {
          this.closingForSimulation = false;
        }
        if (this.sockets.size === 0) this.reportDue(true);
        return;
      }
      case RelayKind.Flush:
        return this.flush(r);
      default:
        throw new DecodeError("unknown_kind", `simulation message kind ${kind}`);
    }
  }

  private seated(clientId: number, playerId: number, token: string, name: string): void {
    const link = this.sockets.get(clientId);
    if (!link || link.closed) return;
    if (link.seat) this.seatLost(link.seat);
    // The relay's seat holds what its frames need (ack, events, notices, baseline) and the token
    // and name it asks the seat back with after a lost link; the reconnection window and the
    // seat itself are the simulation's.
    const seat = newSeat(playerRecord(playerId, name, link.identity ?? "", link.claims ?? {}, {}), token);
    seat.link = link;
    link.seat = seat;
    this.sockets.settled(link);
    this.flusher.attach(seat);
    this.seats.push(seat);
  }

  private flush(r: BinaryReader): void {
    // The flush still in slices encodes the mirror as it was: it ends before the mirror moves.
    this.flushing.finish();
    const tick = r.varuint();
    const time = r.varuint();
    // It left right after the simulation's tick: the phase the next input batches keep to.
    this.inputPhase.flushArrived(tick);
    for (let rows = r.varuint(); rows > 0; rows--) {
      const seat = this.sockets.get(r.varuint())?.seat ?? null;
      const ack = r.varuint();
      if (seat && ack > seat.lastProcessedSeq) seat.lastProcessedSeq = ack;
      for (let n = r.varuint(); n > 0; n--) {
        const event = readClientData(r);
        seat?.events.push(event);
      }
      for (let n = r.varuint(); n > 0; n--) {
        const notice = readClientData(r);
        seat?.notices.push(notice);
      }
    }
    this.checkProbe(tick);
    const { mirror } = this;
    const update = readBytes(r);
    const snapshot = r.u8() === 1 ? readBytes(r) : null;
    mirror.apply(update);
    if (snapshot && mirror.apply(snapshot) === "reset") {
      // Another world (the simulation restarted): every client starts from a fresh baseline.
      for (const seat of this.seats) this.flusher.attach(seat);
    }
    r.expectEnd();
    this.spectators.stream(tick, time, update, snapshot, this.clock.now());
    this.reportDue();
    if (!mirror.isSynced) {
      if (!this.snapshotAsked) this.port.send(this.out.reset().u8(RelayKind.WantSnapshot).peek());
      this.snapshotAsked = true;
      return;
    }
    this.snapshotAsked = false;
    this.flushing.run(this.seats, tick, this.epoch + time);
  }
}
