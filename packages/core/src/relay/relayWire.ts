/**
 * The messages between a simulation and its relays (binary; what an RPC or an internal
 * WebSocket carries between the objects). Every message starts with its {@link RelayKind}.
 * Clients are named by the relay's own connection id (`clientId`): a relay can only speak for
 * the sockets it opened, whatever player ids it has seen.
 */
import { BinaryReader, type FrameWriter } from "@tikron/protocol";
import { readClaims, type PlayerClaims } from "../player";

/** The first byte of a relay message. */
export const enum RelayKind {
  // relay → simulation
  /**
   * A socket opened: `clientId`, then identity, address, reservation (each: flag byte, string),
   * then the claims verified with the identity (flag byte, JSON text; see {@link writeClaims}).
   */
  Open = 1,
  /** A client message the simulation answers (hello, stats, game message, leave): `clientId`, text flag, the message. */
  Forward = 2,
  /** One tick's inputs of the relay's clients: count, then `(clientId, seq, payload)` rows. */
  Inputs = 3,
  /** A client's socket closed: `clientId`, code, whether the relay closed it (for its own reasons), reason. */
  Closed = 4,
  /** The relay's mirror lost its place: the next flush carries a snapshot. */
  WantSnapshot = 5,
  /**
   * A client the relay kept across a lost link asks for its seat back, on the relay's new link
   * (a simulation restarted from its checkpoint): `clientId`, identity and admission key (each:
   * flag byte, string), then the seat's token and name as {@link Seated} told them, then the
   * claims as `Open` carried them. The simulation takes it as a socket that opened and said
   * hello with that token.
   */
  Resume = 6,
  /**
   * The relay's counters, once a second (relay/relayReport.ts): index, then counts, flush
   * summaries, refusals and errors, its own time. Numbered from the end of the relay → simulation
   * range (1–15), so kinds added from its start do not meet it.
   */
  Report = 15,
  // simulation → relay
  /** A client took a seat: `clientId`, `playerId`, the seat's reconnection token and name (its baseline starts now). */
  Seated = 16,
  /** A message for one client as the single room would send it (welcome, error, reply): `clientId`, text flag, the message. */
  ToClient = 17,
  /** The simulation closes a client's socket: `clientId`, code, reason. */
  Close = 18,
  /**
   * One flush: tick, time, the rows of the relay's players with something to hear
   * (`clientId`, ack, events, notices), then the world feed update and, if asked, a snapshot.
   */
  Flush = 19,
}

/** Writes a client message (bytes or text) after its text flag. */
export function writeClientData(w: FrameWriter, data: Uint8Array | string): void {
  if (typeof data === "string") {
    w.u8(1).string(data);
  } else {
    w.u8(0).varuint(data.byteLength).bytes(data);
  }
}

/** Reads what {@link writeClientData} wrote; bytes are a view into the message. */
export function readClientData(r: BinaryReader): Uint8Array | string {
  return r.u8() === 1 ? r.string(1 << 20) : r.bytes(r.varuint());
}

/** Writes an optional string (flag byte, then the string). */
export function writeOptional(w: FrameWriter, s: string | undefined): void {
  if (s === undefined) w.u8(0);
  else w.u8(1).string(s);
}

/** Reads what {@link writeOptional} wrote. */
export function readOptional(r: BinaryReader): string | undefined {
  return r.u8() === 1 ? r.string(4096) : undefined;
}

/** Writes a list of byte strings (count, then length and bytes each). */
export function writeByteList(w: FrameWriter, list: readonly (Uint8Array | string)[]): void {
  w.varuint(list.length);
  for (let i = 0; i < list.length; i++) writeClientData(w, list[i]!);
}

/** Reads one length-prefixed byte string (a view into the message). */
export function readBytes(r: BinaryReader): Uint8Array {
  return r.bytes(r.varuint());
}

/** Writes the bytes `src[0, end)` of another writer, length first. */
export function writeSection(w: FrameWriter, src: FrameWriter, end: number): void {
  w.varuint(end);
  w.copyFrom(src, 0, end);
}

/** Writes a socket's verified claims (flag byte, then their JSON text): what makes its seat's `Player` record. */
export function writeClaims(w: FrameWriter, claims: PlayerClaims | undefined): void {
  writeOptional(w, claims === undefined ? undefined : JSON.stringify(claims));
}

/**
 * Reads what {@link writeClaims} wrote; a message that ends before them (a relay of a release
 * that sent none) has none. Claims that are not claims a room holds are dropped.
 */
export function readClaimsField(r: BinaryReader): PlayerClaims | undefined {
  const text = r.remaining > 0 ? readOptional(r) : undefined;
  if (text === undefined) return undefined;
  try {
    return readClaims(JSON.parse(text)) ?? undefined;
  } catch {
    return undefined;
  }
}
