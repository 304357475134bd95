/**
 * How a simulation's flush reaches its relays (`SimulationFlusher`): the world feed's update
 * once, and per relay one message with it and that relay's players' acks, events and notices.
 * The relays encode and send the frames (relay/relayRoom.ts).
 */
import { FrameWriter, type EventSchema } from "@tikron/protocol";
import type { Connection } from "../host";
import { takeReceipt, type Seat } from "../room/clientLink";
import { BinaryFlusher, takeAck, type FlushDeps, type Flusher } from "../room/flushers";
import type { StateEncoder } from "../stateEncoder";
import type { WorldFeed } from "../sync/worldFeed";
import type { RelayPort } from "./relayPort";
import type { RelayStatsReport } from "./relayReport";
import { RelayKind, writeByteList, writeClientData, writeSection } from "./relayWire";

/** The simulation's record of one relay: its port, its clients, and this flush's rows for it. */
export class RelayChannel {
  /** The relay's client ids → the simulation room's connection ids. */
  readonly clients = new Map<number, number>();
  /** This flush's rows (`clientId`, ack, events, notices) and how many. */
  readonly rows = new FrameWriter(1024);
  rowCount = 0;
  /** The relay's mirror needs a snapshot: the next flush carries one. */
  wantsSnapshot = true;
  /** The relay's last report of its counters (relay/relayReport.ts), and when it came (clock ms). */
  report: RelayStatsReport | null = null;
  reportAt = 0;

  constructor(
    readonly port: RelayPort,
    /** The simulation's writer for messages to relays, reused (a port copies what it keeps). */
    private readonly out: FrameWriter,
  ) {}

  /**
   * Tells the relay its client took a seat as `playerId`, with the seat's token and name: what
   * the relay asks the seat back with if its link is lost and made again (`RelayKind.Resume`).
   */
  seated(clientId: number, playerId: number, token: string, name: string): void {
    this.port.send(this.out.reset().u8(RelayKind.Seated).varuint(clientId).varuint(playerId).string(token).string(name).peek());
  }

  /** Passes a message for one client through the relay, as the single room would send it. */
  toClient(clientId: number, data: Uint8Array | string): void {
    const w = this.out.reset().u8(RelayKind.ToClient).varuint(clientId);
    writeClientData(w, data);
    this.port.send(w.peek());
  }

  /** Has the relay close its client's socket (unless the relay closed it already). */
  close(clientId: number, code: number, reason: string): void {
    if (this.clients.delete(clientId)) this.refuse(clientId, code, reason);
  }

  /** Has the relay close a socket the simulation did not take (refused at the door). */
  refuse(clientId: number, code: number, reason: string): void {
    this.port.send(this.out.reset().u8(RelayKind.Close).varuint(clientId).varuint(code).string(reason).peek());
  }
}

/**
 * A client behind a relay, as the simulation's room sees it: a `Connection` whose messages go
 * to the relay for that client, and whose close has the relay close the socket.
 */
export class RelayedConnection implements Connection {
  constructor(
    /** The relay the client's socket is on. */
    readonly channel: RelayChannel,
    /** The relay's id of the socket. */
    readonly clientId: number,
  ) {}

  send(data: Uint8Array | string): void {
    this.channel.toClient(this.clientId, data);
  }

  close(code: number, reason: string): void {
    this.channel.close(this.clientId, code, reason);
  }

  /** Backpressure is the relay's business (it holds the socket). */
  bufferedAmount(): number {
    return 0;
  }
}

/**
 * A simulation's flusher. At the start of a flush the world is quantized and its feed update
 * written once; each seat behind a relay adds a row for its relay when it has an ack, events or
 * notices; at the end every relay gets one message: the rows, the update, and a snapshot when
 * it asked for one. No per-client encoding here: that is the relays' work, so every seat is
 * cheap and the flush is one slice.
 */
export class SimulationFlusher implements Flusher {
  readonly dialect = "binary";
  private flushIndex = -1;
  private tick = 0;
  private time = 0;
  private readonly update = new FrameWriter(1 << 12);
  private readonly snapshot = new FrameWriter(1 << 12);
  private snapshotWritten = false;
  /** Ack-only frames (`queueInputs` off) are the single room's, passed through the relay. */
  private readonly frames: BinaryFlusher;

  constructor(
    private readonly encoder: StateEncoder,
    private readonly feed: Pick<WorldFeed, "writeUpdate" | "writeSnapshot">,
    private readonly relays: readonly RelayChannel[],
    private readonly d: FlushDeps,
    private readonly out: FrameWriter,
  ) {
    this.frames = new BinaryFlusher(encoder, d);
  }

  get schemaHash(): number {
    return this.encoder.schemaHash;
  }

  get events(): EventSchema | null {
    return this.encoder.events ?? null;
  }

  attach(seat: Seat): void {
    const conn = seat.link?.connection;
    if (conn instanceof RelayedConnection) conn.channel.seated(conn.clientId, seat.playerId, seat.token, seat.name);
  }

  detach(): void {}

  stateChanged(): void {}

  beginFlush(tick: number, now: number): void {
    this.flushIndex++;
    this.tick = tick;
    this.time = Math.max(0, Math.round(now - this.d.epoch));
    this.encoder.beginFlush(this.flushIndex);
    this.feed.writeUpdate(this.update.reset(), this.flushIndex);
    // Right after the update, before joins in this flush can move the world: the one moment a
    // snapshot may be written.
    this.snapshotWritten = false;
    const relays = this.relays;
    for (let i = 0; i < relays.length; i++) {
      const r = relays[i]!;
      r.rows.reset();
      r.rowCount = 0;
      if (r.wantsSnapshot && !this.snapshotWritten) {
        this.feed.writeSnapshot(this.snapshot.reset());
        this.snapshotWritten = true;
      }
    }
  }

  flushSeat(seat: Seat, _index: number, _now: number): boolean {
    const link = seat.link;
    if (!link) return false;
    const conn = link.connection;
    if (!(conn instanceof RelayedConnection)) {
      // The room's bots: nobody reads their frames.
      seat.events.length = seat.notices.length = 0;
      return false;
    }
    // The relay holds the socket and its backlog; here every message counts as delivered, so
    // the room's own backpressure never skips a reply to this client.
    takeReceipt(link, link.sentMessages % 0x100000000, link.sentBytes % 0x100000000);
    const ack = takeAck(seat, this.d.stats);
    const { events, notices } = seat;
    if (ack === 0 && events.length === 0 && notices.length === 0) return false;
    const r = conn.channel;
    r.rowCount++;
    r.rows.varuint(conn.clientId).varuint(ack);
    writeByteList(r.rows, events as Uint8Array[]);
    writeByteList(r.rows, notices);
    this.d.stats.notices += notices.length;
    events.length = notices.length = 0;
    return false;
  }

  endFlush(): void {
    const relays = this.relays;
    for (let i = 0; i < relays.length; i++) {
      const r = relays[i]!;
      const w = this.out.reset().u8(RelayKind.Flush).varuint(this.tick).varuint(this.time).varuint(r.rowCount);
      w.copyFrom(r.rows, 0, r.rows.offset);
      writeSection(w, this.update, this.update.offset);
      if (r.wantsSnapshot && this.snapshotWritten) {
        r.wantsSnapshot = false;
        w.u8(1);
        writeSection(w, this.snapshot, this.snapshot.offset);
      } else {
        w.u8(0);
      }
      r.port.send(w.peek());
    }
  }

  ackNow(seat: Seat, tick: number, now: number): void {
    this.frames.ackNow(seat, tick, now);
  }
}
