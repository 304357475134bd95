/**
 * Builds a room URL: `${base}/rooms/${kind}/${room}` plus `?ticket=` (http(s) becomes ws(s)).
 * A query string on `base` (e.g. `?region=eu`) is kept, after the room path; a fragment is
 * dropped (WebSocket URLs may not carry one). The ticket travels as a query parameter because
 * browsers cannot set headers on a WebSocket.
 */
export function roomUrl(base: string, kind: string, room: string, ticket?: string): string {
  const [, head, query] = /^([^?#]*)\??([^#]*)/.exec(base)!;
  let url = `${head!.replace(/^http(s?):\/\//i, "ws$1://").replace(/\/+$/, "")}/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(room)}?${query}`;
  if (ticket) url += `${query ? "&" : ""}ticket=${encodeURIComponent(ticket)}`;
  return url.replace(/\?$/, "");
}
