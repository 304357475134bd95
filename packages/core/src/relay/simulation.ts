/**
 * The simulation of a relayed room (`RelaySimulation`): the room that runs the game and its
 * seats, whose clients are reached through relays.
 */
import { BinaryReader, DecodeError, FrameWriter, PROTOCOL_VERSION, encodeHello, isDecodeError, type SchemaDecl } from "@tikron/protocol";
import { systemClock, type Clock } from "../clock";
import type { RoomInit } from "../roomInit";
import type { InboundInput } from "../room/inbound";
import { Room } from "../room";
import { RoomStats } from "../roomStats";
import type { SyncWorld } from "../sync/syncWorld";
import { WorldFeed } from "../sync/worldFeed";
import type { RelayPort, RelayReceiver } from "./relayPort";
import { readRelayReport, relayedStats, type RelayStatsReport } from "./relayReport";
import { RelayKind, readBytes, readClaimsField, readClientData, readOptional } from "./relayWire";
import { RelayChannel, RelayedConnection, SimulationFlusher } from "./simulationFlusher";

/**
 * A room whose clients sit behind relays. It is the single room in all but its sockets: seats,
 * tokens, reservations, the cap, reconnection windows, admission, bans and the input intake
 * are the room's own ({@link room}); each client is a `RelayedConnection` the room speaks to as
 * to any socket. What differs is the flush: one world feed update, and per relay one message
 * with it and that relay's players' acks, events and notices (relay/simulationFlusher.ts).
 *
 * From a relay it takes sockets opening and closing, the messages the room answers (hello,
 * stats, game messages, leave) and, once per tick, the inputs of all its clients, which go
 * through the room's intake as a socket's would; and, on a relay's new link, the clients it
 * kept across a lost one, each asking for its seat back with its token (`Resume`).
 */
export class RelaySimulation<D extends SchemaDecl = SchemaDecl> {
  /** The room: what a host drives (ticks, stats, checkpoints, the operator's actions). */
  readonly room: Room;
  /** The feed the relays' mirrors follow. */
  readonly feed: WorldFeed<D>;
  private readonly relays: RelayChannel[] = [];
  private readonly clock: Clock;
  private readonly out = new FrameWriter(1 << 12);
  /** The hello a resumed client says (see {@link resume}). */
  private readonly hello = new FrameWriter(256);
  /** One input row's entries, reused (grows to the longest frame). */
  private readonly entries: { seq: number; payload: unknown }[] = [];

  /**
   * @param init The room, as a host makes it; its game must sync binary.
   * @param world The game's world (the one its `sync.encoder` encodes), which the feed follows.
   */
  constructor(init: RoomInit, world: SyncWorld<D>) {
    if (init.game.sync.mode !== "binary") throw new TypeError("a relayed room's game must sync binary");
    this.feed = new WorldFeed(world);
    const encoder = init.game.sync.encoder;
    const clock = (this.clock = init.clock ?? systemClock);
    this.room = new Room(
      init,
      (deps) => new SimulationFlusher(encoder, this.feed, this.relays, deps, this.out),
      (own) => relayedStats(own, this.reports(clock.now())),
    );
  }

  /** Relays connected so far. */
  get relayCount(): number {
    return this.relays.length;
  }

  /**
   * Connects a relay: `port` carries the simulation's messages to it; what the relay sends
   * goes to the returned receiver. Its first flush carries a snapshot.
   */
  connectRelay(port: RelayPort): RelayReceiver {
    const channel = new RelayChannel(port, this.out);
    this.relays.push(channel);
    return (data) => this.receive(channel, data);
  }

  /**
   * Forgets a relay that is gone (its object died or started again), by the port it was
   * connected with: each of its clients is a socket that dropped (1006), so their seats are held
   * for the reconnection window and they come back through any relay. Nothing more is sent
   * through that port. Returns how many clients it had.
   */
  disconnectRelay(port: RelayPort): number {
    const i = this.relays.findIndex((c) => c.port === port);
    if (i < 0) return 0;
    const channel = this.relays.splice(i, 1)[0]!;
    // Emptied first: a close the room sends back finds no client and sends nothing.
    const dropped = [...channel.clients.values()];
    channel.clients.clear();
    for (const connId of dropped) this.room.closed(connId, 1006);
    return dropped.length;
  }

  /** One message from a relay. A message that does not decode is counted and dropped. */
  private receive(channel: RelayChannel, data: Uint8Array): void {
    try {
      this.read(channel, new BinaryReader(data));
    } catch (e) {
      if (!isDecodeError(e)) throw e;
      RoomStats.bump(this.room.stats.errors, "relay_bad_message");
      console.error(`[room ${this.room.kind}:${this.room.roomId}] relay message: ${e.message}`);
    }
  }

  private read(channel: RelayChannel, r: BinaryReader): void {
    const { room } = this;
    const kind = r.u8();
    switch (kind) {
      case RelayKind.Open: {
        const clientId = r.varuint();
        const identity = readOptional(r);
        const address = readOptional(r);
        const reservation = readOptional(r);
        const claims = readClaimsField(r);
        const refusal = room.admitSocket(identity, address);
        if (refusal) return channel.refuse(clientId, refusal.closeCode, refusal.reason);
        channel.clients.set(clientId, room.open(new RelayedConnection(channel, clientId), identity, address, reservation, claims));
        return;
      }
      case RelayKind.Forward: {
        const connId = channel.clients.get(r.varuint());
        const data = readClientData(r);
        if (connId !== undefined) room.message(connId, data);
        return;
      }
      case RelayKind.Inputs:
        return this.inputs(channel, r);
      case RelayKind.Closed: {
        const clientId = r.varuint();
        const code = r.varuint();
        const byRelay = r.u8() === 1;
        const reason = r.string();
        const connId = channel.clients.get(clientId);
        if (connId === undefined) return;
        channel.clients.delete(clientId);
        // The relay's own close (abuse, a slow reader) counts as the room's: an abuse kick frees
        // the seat. A close by the client holds it, as a dropped socket's.
        if (byRelay) room.closeRelayed(connId, code, reason);
        else room.closed(connId, code);
        return;
      }
      case RelayKind.WantSnapshot:
        channel.wantsSnapshot = true;
        return;
      case RelayKind.Report:
        channel.report = readRelayReport(r);
        channel.reportAt = this.clock.now();
        return;
      case RelayKind.Resume:
        return this.resume(channel, r);
      default:
        throw new DecodeError("unknown_kind", `relay message kind ${kind}`);
    }
  }

  /** The last report of every linked relay, aged as of `now`. */
  private reports(now: number): RelayStatsReport[] {
    const out: RelayStatsReport[] = [];
    for (const c of this.relays) if (c.report) out.push({ ...c.report, ageMs: Math.max(0, now - c.reportAt) });
    return out;
  }

  /**
   * A client its relay kept across a lost link: a socket that opens and says hello with its
   * seat's token, so the room's own hello decides (its seat resumed with a welcome, or whatever
   * the room answers a token it does not hold). Not admitted again: the socket was admitted
   * when it opened, and a ban is checked at the hello.
   */
  private resume(channel: RelayChannel, r: BinaryReader): void {
    const clientId = r.varuint();
    const identity = readOptional(r);
    const admissionKey = readOptional(r);
    const token = r.string(256);
    const name = r.string(256);
    const claims = readClaimsField(r);
    if (channel.clients.has(clientId)) return;
    const connId = this.room.open(new RelayedConnection(channel, clientId), identity, admissionKey, undefined, claims);
    channel.clients.set(clientId, connId);
    // Its own writer: the answers (Seated, the welcome) go out through `out` while it is read.
    // No join options: a seat the room holds keeps its own; one it does not is a new seat with none.
    this.room.message(connId, encodeHello(this.hello.reset(), { version: PROTOCOL_VERSION, token, name, options: "" }).peek());
  }

  /** A tick's inputs: per row one client's frame of inputs, taken by the room's intake as that frame. */
  private inputs(channel: RelayChannel, r: BinaryReader): void {
    const { entries } = this;
    for (let rows = r.varuint(); rows > 0; rows--) {
      const connId = channel.clients.get(r.varuint());
      const count = r.varuint();
      for (let i = 0; i < count; i++) {
        const e = entries[i] ?? (entries[i] = { seq: 0, payload: null });
        e.seq = r.varuint();
        e.payload = readBytes(r);
      }
      if (connId !== undefined) this.room.relayedInputs(connId, entries as readonly InboundInput[], count);
    }
    for (let i = 0; i < entries.length; i++) entries[i]!.payload = null;
  }
}
