/**
 * The slice of the WebSocket API the SDK uses. Browsers' and Node 22's global `WebSocket` and
 * the `ws` package all fit it, as does an in-process fake for tests.
 */
export interface WebSocketLike {
  /** Set to `arraybuffer` by the SDK. */
  binaryType: string;
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Sends one message. */
  send(data: string | Uint8Array): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  // `any` parameters keep the DOM, undici and `ws` event types all assignable.
  /** Called once the socket is open. */
  onopen: ((ev: any) => void) | null;
  /** Called with each message (`ev.data`). */
  onmessage: ((ev: any) => void) | null;
  /** Called once closed (`ev.code`, `ev.reason`). */
  onclose: ((ev: any) => void) | null;
  /** Called on a transport error (a close follows). */
  onerror: ((ev: any) => void) | null;
}

/** A WebSocket constructor: `globalThis.WebSocket`, `ws`'s `WebSocket`, or a test fake. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same in every implementation). */
export const WS_OPEN = 1;

/** What {@link watchSocket} reports about one socket. */
export interface SocketWatcher {
  /** The socket opened. */
  open(): void;
  /** A message arrived (an ArrayBuffer for binary, a string for text). */
  message(data: unknown): void;
  /** The close code (1006 when the implementation gave none) and reason. */
  close(code: number, reason: string): void;
}

/**
 * Wires a socket's handlers to `watcher` (binary frames as ArrayBuffers). An `error` is always
 * followed by a `close`, which carries the code, so errors are not reported separately.
 */
export function watchSocket(ws: WebSocketLike, watcher: SocketWatcher): void {
  ws.binaryType = "arraybuffer";
  ws.onopen = () => watcher.open();
  ws.onmessage = (ev: { data: unknown }) => watcher.message(ev.data);
  ws.onclose = (ev: { code?: number; reason?: string }) =>
    watcher.close(typeof ev?.code === "number" ? ev.code : 1006, typeof ev?.reason === "string" ? ev.reason : "");
  ws.onerror = () => {};
}

/** Removes every handler: nothing the socket does afterwards reaches its former owner. */
export function unwatchSocket(ws: WebSocketLike): void {
  ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
}

/** Closes a socket, ignoring implementations that throw for a socket still connecting or closing. */
export function closeQuietly(ws: WebSocketLike, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closing, or never opened: nothing left to close.
  }
}
