import type { WebSocketConstructor } from "@tikron/client";

/**
 * Room-creation overrides the gateway accepts in DEV_MODE (`?world=800&aoi=2000`, ...). The
 * page forwards these from its own URL to the join URL, so a demo or test can make a small
 * world where everybody sees everybody. They only take effect for the join that creates the
 * room; production gateways refuse them.
 */
export const FORWARDED_OVERRIDES: readonly string[] = ["world", "aoi", "tickMs", "syncIntervalMs", "cap"];

/** Picks the forwarded override keys out of the page's query string (in their order there). */
export function pickOverrides(search: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of search) if (FORWARDED_OVERRIDES.includes(key)) out.append(key, value);
  return out;
}

/**
 * A WebSocket implementation that appends `query` to every URL it opens. The SDK builds join
 * URLs itself and has no option for extra query keys, so the override rides on the socket
 * factory instead. With an empty query `Base` is returned as is.
 */
export function withQuery(Base: WebSocketConstructor, query: URLSearchParams): WebSocketConstructor {
  const extra = query.toString();
  if (extra === "") return Base;
  return class extends (Base as new (url: string) => object) {
    constructor(url: string) {
      super(url + (url.includes("?") ? "&" : "?") + extra);
    }
  } as unknown as WebSocketConstructor;
}
