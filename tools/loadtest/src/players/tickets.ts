/**
 * Join tickets for production rooms. Outside DEV_MODE the gateway admits a socket only with a
 * signed ticket for that room and player (`?ticket=`), so every simulated player needs its own:
 *
 * - minted locally from the gateway's `TICKET_SECRET` (`--ticket-secret` or env TICKET_SECRET)
 *   with the gateway's own `mintRoomTicket` (plain WebCrypto, no network);
 * - or fetched from the game backend's endpoint (`--ticket-url`): `POST <url>` with the JSON body
 *   `{"kind": "<room kind>", "roomId": "<room id>", "playerId": "<player id>"}`; a 2xx answer
 *   whose JSON body is `{"ticket": "<ticket>"}` (or whose text body is the ticket itself).
 *
 * A matchmaking run (`--match`) asks for one match ticket per player instead: the same request
 * with room id `*` (any room), sent to the matchmaker as `Authorization: Bearer <ticket>`; the
 * seat reservation the matchmaker answers is the player's way into the room.
 *
 * The secret never enters the config or the report.
 */
import { mintRoomTicket } from "@tikron/cloudflare/ticket";

/** Lifetime of minted tickets: long enough for a run's reconnects, short enough to be harmless. */
export const TICKET_TTL_SECONDS = 3600;
/** Deadline of one ticket request to `--ticket-url`. */
const FETCH_TIMEOUT_MS = 10_000;

/** Where a run's join tickets come from: minted locally from a secret, or fetched from an endpoint. */
export type TicketSpec = { mode: "secret"; secret: string } | { mode: "url"; url: string };

/**
 * What a config (and so its report) records of a run's {@link TicketSpec}: its mode and URL,
 * never the secret; `none` when rooms admit players without tickets (DEV_MODE).
 */
export type TicketMode = { mode: "none" } | { mode: "secret" } | Extract<TicketSpec, { mode: "url" }>;

/**
 * The ticket source a run names (a secret from the command line or env TICKET_SECRET, an
 * endpoint from the command line or a config file): at most one; undefined for none.
 */
export function ticketSpec(o: { secret?: string; url?: string }): TicketSpec | undefined {
  if (o.secret && o.url) throw new Error("pick one ticket source: --ticket-secret/TICKET_SECRET or --ticket-url");
  return o.secret ? { mode: "secret", secret: o.secret } : o.url ? { mode: "url", url: o.url } : undefined;
}

/** The {@link TicketMode} a config records for `spec`. */
export function ticketMode(spec: TicketSpec | undefined): TicketMode {
  if (!spec) return { mode: "none" };
  return spec.mode === "url" ? { mode: "url", url: spec.url } : { mode: "secret" };
}

/** Produces a player's join ticket, and the URL it opens with it. */
export interface TicketSource {
  /** A ticket for `playerId` in room `roomId` of `kind` (`*` for a match ticket: any room). */
  ticket(kind: string, roomId: string, playerId: string): Promise<string>;
  /** The room URL plus the player's ticket. */
  roomUrl(base: string, kind: string, roomId: string, playerId: string): Promise<string>;
}

function withTicket(base: string, ticket: string): string {
  return `${base}${base.includes("?") ? "&" : "?"}ticket=${encodeURIComponent(ticket)}`;
}

/** A ticket source for the spec. */
export function ticketSource(spec: TicketSpec): TicketSource {
  const ticket = spec.mode === "secret" ? mintedTicket(spec.secret) : fetchedTicket(spec.url);
  return { ticket, roomUrl: async (base, kind, roomId, playerId) => withTicket(base, await ticket(kind, roomId, playerId)) };
}

function mintedTicket(secret: string): TicketSource["ticket"] {
  return (kind, roomId, playerId) => mintRoomTicket({ secret, kind, roomId, playerId, ttlSeconds: TICKET_TTL_SECONDS });
}

function fetchedTicket(url: string): TicketSource["ticket"] {
  return async (kind, roomId, playerId) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind, roomId, playerId }),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`http_${res.status}`);
    let ticket = text.trim();
    if (ticket.startsWith("{")) {
      const body = JSON.parse(ticket) as { ticket?: unknown };
      if (typeof body.ticket !== "string") throw new Error("no ticket field");
      ticket = body.ticket;
    }
    if (!ticket) throw new Error("empty ticket");
    return ticket;
  };
}

/** The player id a simulated player presents in its ticket: unique per run and player. */
export function ticketPlayerId(runId: string, index: number): string {
  return `lt-${runId}-${index}`;
}
