import { BinaryWriter, MAX_INPUTS_PER_FRAME, checkInputPayload, encodeInputs, type AnyGameTypes, type ClientDialect, type InputEntry } from "@tikron/protocol";
import type { ConnectionStats } from "./stats";

/** The input side of a connection (see {@link inputSender}). */
export interface InputSender {
  /** `RoomConnection.sendInput`: the input's sequence number, or -1 (nothing sent) when `joined` is false. */
  send(input: unknown, joined: boolean): number;
  /** Sends the batch now if it can; what cannot be sent is dropped, never kept for later. */
  flush(): void;
  /** Discards queued inputs unsent: after a drop they belong to the previous seat's timeline. */
  drop(): void;
  /** A welcome: queued inputs are dropped and sequence numbers go on above the last one the room applied, never reusing one. */
  rejoined(lastSeq: number): void;
}

/**
 * Sequence numbers (strictly increasing for the life of the connection), the game's input
 * encoding and the batches of `batchInputsMs` (`batchMs` > 0, binary rooms: an input waits at
 * most that long and leaves with the others in one INPUT frame). Written in `dialect`, sent
 * through `post`, which answers false (sending nothing) while the connection is not joined.
 */
export function inputSender(
  game: AnyGameTypes | null,
  dialect: ClientDialect,
  batchMs: number,
  now: () => number,
  stats: ConnectionStats,
  post: (data: string | Uint8Array) => boolean,
): InputSender {
  let nextSeq = 1;
  // Reused by the game's input encoder (allocated on the first typed input), and by batches,
  // whose payloads are copies by then.
  let writer: BinaryWriter | undefined;
  const batch: InputEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastBatchAt = -Infinity;
  const drop = (): void => {
    clearTimeout(timer);
    timer = undefined;
    batch.length = 0;
  };
  const flush = (): void => {
    if (batch.length > 0 && post(encodeInputs((writer ??= new BinaryWriter(64)).reset(), batch).toBytes())) lastBatchAt = now();
    drop();
  };
  return {
    send(input, joined) {
      if (!joined) return -1;
      const payload = game ? game.encodeInput(input, (writer ??= new BinaryWriter(64))) : input;
      const seq = nextSeq;
      // Encode (or check) before taking the number: a payload that throws costs no seq.
      if (batchMs > 0) {
        batch.push({ seq, payload: checkInputPayload(payload).slice() });
        const sinceLast = now() - lastBatchAt;
        if (batch.length >= MAX_INPUTS_PER_FRAME || sinceLast >= batchMs) flush();
        else timer ??= setTimeout(flush, batchMs - sinceLast);
      } else {
        post(dialect.input(seq, payload));
      }
      nextSeq++;
      stats.inputsSent++;
      return seq;
    },
    flush,
    drop,
    rejoined(lastSeq) {
      drop();
      nextSeq = Math.max(nextSeq, lastSeq + 1);
    },
  };
}
