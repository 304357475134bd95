/**
 * A watch connection's socket: the page's own WebSocket with each BUNDLE (several frames in one
 * message, protocol bundle.ts; what a delayed spectator gets) split into its frames and played
 * out at their room times, so the connection above sees the frames one by one, spaced as they
 * were made, as an undelayed spectator's. Part of the watch entry: a page that only plays ships
 * none of it.
 */
import { frameTime, isBundle, readBundle } from "@tikron/protocol";
import type { WebSocketConstructor, WebSocketLike } from "./socket";

/** KIND_PONG: its arrival time is a clock sample, so it is never held behind frames. */
const PONG = 0x84;
/** The longest a frame is held after its bundle arrived (ms): bundles span 250 ms at most. */
const MAX_HOLD_MS = 1000;

/**
 * `Impl` with bundles split and played out (see the file's comment). Order is kept: a frame or
 * a welcome, error, reply or notice arriving while frames wait goes behind them (the others
 * are delivered at once, the waiting frames first); only a pong passes them.
 */
export function playOutBundles(Impl: WebSocketConstructor, now: () => number): WebSocketConstructor {

  return class implements WebSocketLike {
    readonly #ws: WebSocketLike;
    /** Frames waiting, with the local time each is due; delivered in order. */
    readonly #waiting: { due: number; data: Uint8Array }[] = [];
    #timer: ReturnType<typeof setTimeout> | undefined;
    onopen: ((ev: any) => void) | null = null;
    onmessage: ((ev: any) => void) | null = null;
    onclose: ((ev: any) => void) | null = null;
    onerror: ((ev: any) => void) | null = null;

    constructor(url: string) {
      const ws = (this.#ws = new Impl(url));
      ws.onopen = (ev) => this.onopen?.(ev);
      ws.onerror = (ev) => this.onerror?.(ev);
      ws.onclose = (ev) => {
        this.#deliver(Infinity);
        this.onclose?.(ev);
      };
      ws.onmessage = (ev: { data: unknown }) => this.#take(ev.data);
    }

    get binaryType(): string {
      return this.#ws.binaryType;
    }
    set binaryType(t: string) {
      this.#ws.binaryType = t;
    }
    get readyState(): number {
      return this.#ws.readyState;
    }
    send(data: string | Uint8Array): void {
      this.#ws.send(data);
    }
    close(code?: number, reason?: string): void {
      clearTimeout(this.#timer);
      this.#waiting.length = 0;
      this.#ws.close(code, reason);
    }

    #take(data: unknown): void {
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
      const at = now();
      const waiting = this.#waiting;
      const last = waiting.length > 0 ? waiting[waiting.length - 1]!.due : -Infinity;
      if (bytes && isBundle(bytes)) {
        const frames = readBundle(bytes);
        // One it cannot split goes up whole: the connection's decoder refuses it and drops the socket.
        if (!Array.isArray(frames)) return this.#emit(data);
        // A frame whose header does not read (-1) goes at once: the connection's decoder refuses it.
        const t0 = frameTime(frames[0]!);
        for (const f of frames) {
          const t = frameTime(f);
          const offset = t >= 0 && t0 >= 0 ? t - t0 : 0;
          waiting.push({ due: Math.max(last, at + (offset >= 0 && offset <= MAX_HOLD_MS ? offset : 0)), data: f });
        }
      } else if (waiting.length > 0 && bytes && bytes[0] === 0x82) {
        waiting.push({ due: Math.max(last, at), data: bytes });
      } else {
        if (!(bytes && bytes[0] === PONG)) this.#deliver(Infinity);
        return this.#emit(data);
      }
      this.#deliver(at);
    }

    /** Delivers the frames due by `t`, then waits for the next. */
    #deliver(t: number): void {
      clearTimeout(this.#timer);
      const waiting = this.#waiting;
      let n = 0;
      while (n < waiting.length && waiting[n]!.due <= t) n++;
      // Taken off first: a listener may close the socket (which empties the queue) mid-way.
      for (const w of waiting.splice(0, n)) this.#emit(w.data);
      if (waiting.length > 0) this.#timer = setTimeout(() => this.#deliver(now()), waiting[0]!.due - now());
    }

    #emit(data: unknown): void {
      this.onmessage?.({ data });
    }
  };
}
