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

/** One connection's batch of binary inputs (made by an {@link InputBatching}). */
export interface InputBatch {
  /** Queues input `seq` (a copy of `payload`), or sends the batch with it when it is due. */
  push(seq: number, payload: unknown): void;
  /** Sends the batch now if it can; what cannot be sent is dropped, never kept for later. */
  flush(): void;
  /** Discards queued inputs unsent. */
  drop(): void;
}

/**
 * Input batching for a binary room's connection, the `batchInputs` option of `connect`: made by
 * {@link inputBatching}, bound by the connection to its socket and clock.
 */
export type InputBatching = (post: (data: Uint8Array) => boolean, now: () => number) => InputBatch;

/**
 * Sends a binary room's inputs in batches at most every `intervalMs` (`connect(url, { …,
 * batchInputs: inputBatching(16) })`): the first input after a quiet interval goes out at once;
 * later ones wait and leave together in one INPUT frame (up to 16), so a client sending faster
 * than the room ticks costs the room fewer incoming messages (each is billed and counts against
 * the object's request rate). The room drains inputs per tick anyway, so an interval up to the
 * room's `tickMs` adds little latency. Queued inputs are dropped, never replayed, if the
 * connection drops; `flushInputs()` sends the batch now. Payloads are copied: callers may reuse
 * their buffer. JSON rooms send each input at once.
 */
export function inputBatching(intervalMs: number): InputBatching {
  return (post, now) => {
    const writer = new BinaryWriter(64);
    const batch: InputEntry[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastBatchAt = -Infinity;
    const drop = (): void => {
      clearTimeout(timer);
      timer = undefined;
      batch.length = 0;
    };
    const flush = (): void => {
      if (batch.length > 0 && post(encodeInputs(writer.reset(), batch).toBytes())) lastBatchAt = now();
      drop();
    };
    return {
      push(seq, payload) {
        batch.push({ seq, payload: checkInputPayload(payload).slice() });
        const sinceLast = now() - lastBatchAt;
        if (batch.length >= MAX_INPUTS_PER_FRAME || sinceLast >= intervalMs) flush();
        else timer ??= setTimeout(flush, intervalMs - sinceLast);
      },
      flush,
      drop,
    };
  };
}

/**
 * Sequence numbers (strictly increasing for the life of the connection), the game's input
 * encoding, and the `batch` when the page opted into one (binary rooms). Written in `dialect`,
 * sent through `post`, which answers false (sending nothing) while the connection is not joined.
 */
export function inputSender(
  game: AnyGameTypes | null,
  dialect: ClientDialect,
  batch: InputBatch | undefined,
  stats: ConnectionStats,
  post: (data: string | Uint8Array) => boolean,
): InputSender {
  let nextSeq = 1;
  // Reused by the game's input encoder (allocated on the first typed input).
  let writer: BinaryWriter | undefined;
  return {
    send(input, joined) {
      if (!joined) return -1;
      const payload = game ? game.encodeInput(input, (writer ??= new BinaryWriter(64))) : input;
      const seq = nextSeq;
      // Encode (or check) before taking the number: a payload that throws costs no seq.
      if (batch) batch.push(seq, payload);
      else post(dialect.input(seq, payload));
      nextSeq++;
      stats.inputsSent++;
      return seq;
    },
    flush: () => batch?.flush(),
    drop: () => batch?.drop(),
    rejoined(lastSeq) {
      batch?.drop();
      nextSeq = Math.max(nextSeq, lastSeq + 1);
    },
  };
}
