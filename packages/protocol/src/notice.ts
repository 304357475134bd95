import type { BinaryWriter } from "./binaryWriter";
import { Kind } from "./constants";
import type { ServerFields } from "./serverFields";

/*
 * A notice: a line of text the operator of a room sends every player in it ("server restarts in
 * 5 minutes", "this match is under review"), shown by the game as it likes. Server to client only,
 * rare, never on the tick path: plain text in both dialects.
 */

/** Longest notice text (UTF-16 units); the admin API refuses longer ones. */
export const MAX_NOTICE_CHARS = 500;

/** Longest notice a client reads: UTF-8 bytes in a binary frame (a UTF-16 unit takes at most 3). */
const MAX_NOTICE_BYTES = MAX_NOTICE_CHARS * 3;

/** A notice to every player of a room (see the module comment). */
export interface NoticeMessage {
  /** Discriminator. */
  kind: "notice";
  /** The text, at most {@link MAX_NOTICE_CHARS} UTF-16 units. */
  text: string;
}

/** Writes a NOTICE (`[0x87][string text]`); the caller checks the length. Returns `w`. */
export function encodeNotice<W extends BinaryWriter>(w: W, text: string): W {
  return w.u8(Kind.Notice).string(text);
}

/** Reads a notice's fields in either dialect (see `readServerBody`). */
export function readNotice(f: ServerFields): NoticeMessage {
  return { kind: "notice", text: f.string(MAX_NOTICE_BYTES, "text") };
}
