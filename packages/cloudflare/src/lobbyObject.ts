import { DurableObject } from "cloudflare:workers";
import { LobbyRegistry, readRoomReport } from "./lobbyRegistry";

/**
 * The room registry behind `GET /lobby/rooms`: one Durable Object per deployment that rooms
 * report to (`POST /report`, from their `waitUntil`, never awaited on a tick) and the gateway
 * reads (`GET /rooms`). The list lives in memory only: it costs no storage writes, and if the
 * object is evicted the rooms' next reports (at least once a minute while they have players)
 * rebuild it. Nothing runs here unless a room reports or someone looks.
 */
export class LobbyObject<Env = unknown> extends DurableObject<Env> {
  private readonly registry = new LobbyRegistry();

  /** `POST /report` (a room's `RoomReport`, from the protocol) and `GET /rooms` (the live list). */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/report") {
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        return new Response("report must be JSON", { status: 400 });
      }
      const report = readRoomReport(body);
      if (!report) return new Response("malformed room report", { status: 400 });
      this.registry.report(report, Date.now());
      return new Response(null, { status: 204 });
    }
    if (request.method === "GET" && url.pathname === "/rooms") {
      return Response.json({ now: Date.now(), rooms: this.registry.list(Date.now()) }, { headers: { "cache-control": "no-store" } });
    }
    return new Response("not found", { status: 404 });
  }
}
