/**
 * The room side of the admin API, the same on every host: a host that has found the room (the
 * Cloudflare room object, the Node host's map) hands it the request and sends back the answer.
 * The room does the work (`HostedRoom`'s operator methods); this file only reads the request and
 * words the answer.
 */
import { adminError, type AdminAction, type AdminActionResult, type AdminError, type AdminRoomDetail, type AdminStatsSummary, type MetricPoint } from "@tikron/protocol";
import type { HostedRoom, OperatedRoom } from "../hostedRoom";
import { counterTotal, type RoomStatsSnapshot } from "../roomStats";

/** What a host asks a room for: its detail, its metric points, or an action. */
export type AdminRoomRequest =
  | {
      /** The room's detail (`AdminRoomDetail`). */
      op: "room";
    }
  | {
      /** The room's recent metric points. */
      op: "metrics";
    }
  | AdminAction;

/** A room's answer: the detail, the points, what an action did (the host adds whether it was audited), or a refusal. */
export type AdminRoomAnswer =
  | {
      /** Done. */
      ok: true;
      /** The answer's body. */
      body: AdminRoomDetail | MetricPoint[] | Omit<AdminActionResult, "audited">;
    }
  | {
      /** Refused. */
      ok: false;
      /** Why: `not_found` (no such seat or ban), `conflict` (a player with nothing to ban it by). */
      error: AdminError;
    };

/** The few `tk:stats` numbers the room list shows. */
export function statsSummary(s: RoomStatsSnapshot): AdminStatsSummary {
  return { ccu: s.ccu, seats: s.seats, uptimeMs: s.uptimeMs, frames: s.frames, bytesOut: s.bytesOut, errors: counterTotal(s.errors), closes: counterTotal(s.closes), flushP99Ms: s.flush.p99 };
}

/** Runs one admin request against `room`; `metrics` are the points the host keeps for it. */
export function runRoomAdmin(room: OperatedRoom & Pick<HostedRoom, "kind" | "roomId">, req: AdminRoomRequest, metrics: readonly MetricPoint[]): AdminRoomAnswer {
  const done = (body: Extract<AdminRoomAnswer, { ok: true }>["body"]): AdminRoomAnswer => ({ ok: true, body });
  switch (req.op) {
    case "room": {
      const stats = room.snapshot();
      const view = room.adminView();
      return done({ kind: room.kind, roomId: room.roomId, seats: view.seats, errors: view.errors, bans: view.bans, listing: stats.listing, stats, metrics: [...metrics] });
    }
    case "metrics":
      return done([...metrics]);
    case "kick": {
      const closed = room.kick(req.playerId, req.reason);
      return closed === null ? { ok: false, error: adminError("not_found", `no seat with player id ${req.playerId}`) } : done({ op: "kick", affected: closed });
    }
    case "ban": {
      const out = room.ban(req.playerId !== undefined ? { playerId: req.playerId } : { identity: req.identity! }, req.seconds * 1000, req.reason);
      if (out === "no_such_player") return { ok: false, error: adminError("not_found", `no seat with player id ${req.playerId}`) };
      if (out === "anonymous") return { ok: false, error: adminError("conflict", `player ${req.playerId} has no identity or address to ban by; kick it, or require sign-in`) };
      return done({ op: "ban", affected: out.closed, identity: out.identity, until: out.until });
    }
    case "unban":
      return room.unban(req.identity) ? done({ op: "unban", affected: 0, identity: req.identity }) : { ok: false, error: adminError("not_found", "no ban on that identity") };
    case "lock":
      room.setLocked(req.locked);
      return done({ op: "lock", affected: 0 });
    case "close":
      return done({ op: "close", affected: room.closeRoom(req.reason) });
    case "notice":
      return done({ op: "notice", affected: room.notice(req.text) });
  }
}
