/**
 * The admin API's room list, for every host: each kind's rooms as its directory knows them,
 * newest first, each with its own summary asked of the room (the newest
 * {@link MAX_LISTED_ROOMS}); a kind whose directory cannot be asked is named in `unavailable`.
 * A host says only where a kind's directory and a room's summary come from ({@link RoomListSource}:
 * the matchmakers' directories and an RPC to each room's object on Cloudflare, the rooms in its
 * process on Node).
 */
import type { AdminRoomList, AdminRoomSummary, AdminStatsSummary } from "@tikron/protocol";
import type { RoomStatus } from "../match/roomStatus";

/** Most rooms the list asks for a summary (the newest). */
export const MAX_LISTED_ROOMS = 200;

/** Where a host's room list comes from. */
export interface RoomListSource {
  /** The kinds the host hosts. */
  kinds: readonly string[];
  /** The statuses of a kind's rooms; null (or a throw) when they cannot be asked. */
  directory(kind: string): Promise<readonly RoomStatus[] | null>;
  /** A room's summary; null (or a throw) when it has none to give. */
  summary(kind: string, roomId: string): Promise<AdminStatsSummary | null>;
}

/** The room list of a host (see the module comment). */
export async function listAdminRooms(source: RoomListSource): Promise<AdminRoomList> {
  const unavailable: string[] = [];
  const found: { kind: string; status: RoomStatus }[] = [];
  await Promise.all(
    source.kinds.map(async (kind) => {
      const statuses = await source.directory(kind).catch(() => null);
      if (statuses === null) return void unavailable.push(kind);
      for (const status of statuses) found.push({ kind, status });
    }),
  );
  found.sort((a, b) => b.status.createdAt - a.status.createdAt);
  const rooms = await Promise.all(
    found.slice(0, MAX_LISTED_ROOMS).map(async ({ kind, status: s }): Promise<AdminRoomSummary> => {
      const stats = await source.summary(kind, s.roomId).catch(() => null);
      return { kind, roomId: s.roomId, clients: s.clients, bots: s.bots, reserved: s.reserved, maxClients: s.maxClients, locked: s.locked, private: s.private, createdAt: s.createdAt, metadata: s.metadata, stats };
    }),
  );
  return { rooms, unavailable: unavailable.sort() };
}
