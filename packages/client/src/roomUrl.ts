/**
 * Builds a room URL: `${base}/rooms/${kind}/${room}` plus `?ticket=` (http(s) becomes ws(s)).
 * The ticket travels as a query parameter because browsers cannot set headers on a WebSocket.
 */
export function roomUrl(base: string, kind: string, room: string, ticket?: string): string {
  const b = base.replace(/^http(s?):\/\//i, "ws$1://").replace(/\/+$/, "");
  let url = `${b}/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(room)}`;
  if (ticket) url += `?ticket=${encodeURIComponent(ticket)}`;
  return url;
}
