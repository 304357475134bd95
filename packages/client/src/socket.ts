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
