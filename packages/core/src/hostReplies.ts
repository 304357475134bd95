/**
 * The HTTP answers every host gives about a room, written once: a host turns a
 * {@link HostReply} into its own response (a Workers `Response`, a Node `ServerResponse`), so
 * the Cloudflare adapter and the Node host answer alike. Which requests reach them is the join
 * URL's business (the protocol's `routeRoomUrl`) and the host's own policy (DEV_MODE, tickets).
 */
import { parseBotCount } from "@tikron/protocol";
import type { AdmissionRefusal } from "./host";
import type { HostedRoom, OperatedRoom } from "./hostedRoom";

/** An HTTP answer, runtime-neutral. */
export interface HostReply {
  /** HTTP status. */
  status: number;
  /** Response headers (content type, `retry-after`). */
  headers: Record<string, string>;
  /** The body: JSON or plain text, as `content-type` says. */
  body: string;
}

function json(status: number, value: unknown): HostReply {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(value) };
}

/** A plain-text answer (refusals and errors). */
export function textReply(status: number, body: string, headers: Record<string, string> = {}): HostReply {
  return { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers }, body };
}

/**
 * `GET /rooms/:kind/:roomId/stats` (DEV_MODE): the room's `tk:stats` snapshot, or, when the
 * room does not exist, its idle shape (`ccu: 0, idle: true`); either with what the host saw
 * itself under `adapter`.
 */
export function statsReply(kind: string, roomId: string, room: OperatedRoom | null | undefined, adapter: object): HostReply {
  return json(200, room ? { ...room.snapshot(), adapter } : { kind, roomId, ccu: 0, idle: true, adapter });
}

/**
 * `POST /rooms/:kind/:roomId/bots?count=N`, once the host has let it through: seats N bots in
 * the room (made by `roomFor` when it does not exist yet) and answers `{ bots, ccu }`; 400 for
 * a bad count, 404 for an unknown kind or one without bots.
 */
export function botsReply(kind: string, query: URLSearchParams, roomFor: () => (OperatedRoom & Pick<HostedRoom, "connectedCount">) | null): HostReply {
  const count = parseBotCount(query);
  if (typeof count === "string") return textReply(400, count);
  const room = roomFor();
  if (!room) return textReply(404, `unknown room kind ${kind}`);
  if (!room.botsAvailable.available) return textReply(404, `${kind} has no bots`);
  const bots = room.setBots(count);
  return json(200, { bots, ccu: room.connectedCount });
}

/**
 * Header of {@link admissionReply}: the close code an upgrade the room refused gets, for a host
 * whose room answers over HTTP (the Cloudflare object answers its Worker, which closes the socket).
 */
export const ADMISSION_CLOSE_HEADER = "x-tikron-close";

/**
 * A socket the room refused before the upgrade (`HostedRoom.admitSocket`): the refusal's status
 * (403, 429 or 503), its reason, `Retry-After` in whole seconds (at least 1), and the close code
 * an upgrade gets in {@link ADMISSION_CLOSE_HEADER}.
 */
export function admissionReply(refusal: AdmissionRefusal): HostReply {
  const retryAfter = String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)));
  const body = refusal.status === 403 ? refusal.reason : `${refusal.reason}; retry later`;
  return textReply(refusal.status, body, { "retry-after": retryAfter, [ADMISSION_CLOSE_HEADER]: String(refusal.closeCode) });
}
