/**
 * The seam between a room and the recorder of its match (`MatchRecorder`; here, beside the
 * recorders, so the host's contract names it without reaching into the room's internals): the few places where
 * something reaches the game from outside (a seat taken, held, taken back or freed, inputs, a
 * game message, a tick, a checkpoint restored, a socket adopted), the room's flush (its end, the
 * state messages it sent, the clients it held back) and the room's end. The recorder behind it
 * (`@tikron/core/replay`'s `LogRecorder`) writes the match log; a replay puts one in the room it
 * re-runs and compares what that room records with the log it replays.
 *
 * Every call is made where the room does the thing it names, in the order the room does them,
 * with the room's clock time; none may throw or call back into the room (a replay's
 * {@link MatchRecorder.gate} is the one exception, see there). Checkpoints and seat tickets
 * come as the JSON-able values the room made (its `RoomCheckpoint`, a `SeatTicket`): this file
 * imports nothing of the host's contract, which names it.
 */
import type { Game } from "../game";
import type { Player } from "../player";

/** One input as it reached the room's intake: its seq, and its payload (bytes, or a JSON room's value). */
export interface RecordedInput {
  /** Its sequence number, as sent. */
  readonly seq: number;
  /** The payload as it arrived. */
  readonly payload: unknown;
}

/** What the recorder reads of its room, handed over once when the room is made. */
export interface RecordedRoom {
  /** Clock time of room time 0. */
  readonly epoch: number;
  /** The game the room runs (its world digest: its encoder's, or its checkpoint's for JSON rooms). */
  readonly game: Game;
  /** Whether state messages reach the room's sockets through its own flusher (false for a relayed simulation: its relays encode them). */
  readonly framesSent: boolean;
  /** The room's checkpoint (a `RoomCheckpoint`) with the game's state whatever `checkpointMs` says. */
  checkpoint(): object;
}

/** What a gate reads of a socket: whose seat it holds, and whether it is closed. */
export interface GatedLink {
  /** The seat the socket holds, if any. */
  readonly seat: { readonly playerId: number } | null;
  /** Set once the socket is closed. */
  readonly closed: boolean;
}

/** The backpressure a flusher asks before each state message, as the room's sockets answer it. */
export interface StreamGateway<L extends GatedLink = GatedLink> {
  /** False when `link` is behind (its state is skipped) or was just closed 4004. */
  streamAllowed(link: L, now: number, readRuntime: boolean): boolean;
  /** Closes a client that does not read (4004); its seat is held. */
  slowConsumer(link: L): void;
}

/** What a room tells the recorder of its match (see the module comment). */
export interface MatchRecorder {
  /** The room was made; called once, from its constructor, before any other call. */
  begin(room: RecordedRoom): void;
  /**
   * A new seat for a hello, with the player record the game gets (`bound`: its identity is a
   * verified one the seat is bound to, else an anonymous one the room drew; `bot`: the room's
   * own bot player).
   */
  joined(player: Player, bound: boolean, bot: boolean, now: number): void;
  /**
   * The anonymous identity the next join without one is given, when the recorder has one to
   * hand (a replay: the identity the match drew); undefined: the room draws one.
   */
  anonymousIdentity?(): string | undefined;
  /** A hello took back a held (or connected: replaced) seat. */
  reconnected(playerId: number, now: number): void;
  /** A seat lost its socket and is held. */
  disconnected(playerId: number, now: number): void;
  /** A seat was freed for good. */
  left(playerId: number, now: number): void;
  /** A socket that survived a restart was put back on its seat (`Room.adopt`). */
  adopted(ticket: object, now: number): void;
  /** A checkpoint (a `RoomCheckpoint`) is about to be restored into the room (`Room.restoreCheckpoint`). */
  restored(checkpoint: object, now: number): void;
  /** A socket's inputs `entries[0, count)` reached the intake, as they arrived (before any check). */
  inputs(playerId: number, entries: readonly RecordedInput[], count: number, now: number): void;
  /** A game message is about to reach the game's `onMessage` (its payload's JSON text). */
  message(playerId: number, type: string, json: string, now: number): void;
  /** Tick `k` begins (before the flush it may finish and before any input is applied). */
  tick(k: number, now: number): void;
  /** A later slice of a flush begins, in a task of its own. */
  slice(now: number): void;
  /** A flush's first slice ended with seats left for later slices. */
  deferred(now: number): void;
  /** A state message (or a notice) went to a seated socket. */
  sent(playerId: number, data: Uint8Array | string): void;
  /** A flush sent to its last seat. */
  flushed(now: number): void;
  /**
   * The gate the room's flusher asks instead of the sockets' own. A recorder notes the clients
   * held back; a replay's answers from its log (and closes a client the log says was closed then).
   */
  gate<L extends GatedLink>(sockets: StreamGateway<L>): StreamGateway<L>;
  /** The room ended (`disposed` or `handed_over`); nothing is recorded after. */
  ended(reason: string, now: number): void;
}
