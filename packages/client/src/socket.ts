/**
 * The slice of the WebSocket API the SDK uses. Browsers' and Node 22's global `WebSocket` and
 * the `ws` package all fit it, as does an in-process fake for tests.
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  // `any` parameters keep the DOM, undici and `ws` event types all assignable.
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: any) => void) | null;
  onclose: ((ev: any) => void) | null;
  onerror: ((ev: any) => void) | null;
}

/** A WebSocket constructor: `globalThis.WebSocket`, `ws`'s `WebSocket`, or a test fake. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same in every implementation). */
export const WS_OPEN = 1;
