/**
 * Builds a room URL: `${base}/rooms/${kind}/${room}` plus `?ticket=`, `?reservation=` (a seat
 * reservation from the matchmaker) or `?token=` (a sign-in JWT), http(s) becoming ws(s).
 * A query string on `base` (e.g. `?region=eu`) is kept, after the room path; a fragment is
 * dropped (WebSocket URLs may not carry one). The ticket travels as a query parameter because
 * browsers cannot set headers on a WebSocket.
 */
export function roomUrl(base: string, kind: string, room: string, ticket?: string, reservation?: string, token?: string): string {
  const [, head, query] = /^([^?#]*)\??([^#]*)/.exec(base)!;
  const q = [query, ticket && `ticket=${encodeURIComponent(ticket)}`, reservation && `reservation=${encodeURIComponent(reservation)}`, token && `token=${encodeURIComponent(token)}`].filter(Boolean).join("&");
  return `${head!.replace(/^http(s?):\/\//i, "ws$1://").replace(/\/+$/, "")}/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(room)}${q ? "?" + q : ""}`;
}
