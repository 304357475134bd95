import type { WebSocketConstructor } from "@tikron/client";
import { ROOM_OVERRIDE_KEYS } from "@tikron/protocol";

/**
 * Picks the room-creation overrides a DEV_MODE host accepts (`?world=800&aoi=2000`, ...; the
 * protocol's {@link ROOM_OVERRIDE_KEYS}) out of the page's query string, in their order there.
 * The page forwards them to the join URL, so a demo or test can make a small world where
 * everybody sees everybody. They only take effect for the join that creates the room;
 * production gateways refuse them.
 */
export function pickOverrides(search: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of search) if (ROOM_OVERRIDE_KEYS.includes(key)) out.append(key, value);
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
