/** The admin API's room list (admin/roomList.ts): newest first, capped, summaries asked of each room, kinds that cannot be asked named. */
import { describe, expect, it } from "vitest";
import type { AdminStatsSummary } from "@tikron/protocol";
import { listAdminRooms, MAX_LISTED_ROOMS } from "../../src/admin/roomList";
import type { RoomStatus } from "../../src/match/roomStatus";

const status = (roomId: string, createdAt: number): RoomStatus => ({ roomId, clients: 1, bots: 0, reserved: 0, maxClients: 8, metadata: {}, locked: false, private: false, createdAt, version: [1, 1], overrides: "", refreshMs: 0 });
const summary = { ccu: 1 } as unknown as AdminStatsSummary;

describe("room list", () => {
  it("lists every kind's rooms newest first, each with its summary; a summary that fails is null", async () => {
    const list = await listAdminRooms({
      kinds: ["agar", "fps"],
      directory: async (kind) => (kind === "agar" ? [status("a1", 1), status("a2", 3)] : [status("f1", 2)]),
      summary: async (_kind, roomId) => {
        if (roomId === "f1") throw new Error("gone");
        return summary;
      },
    });
    expect(list.rooms.map((r) => [r.kind, r.roomId, r.stats])).toEqual([
      ["agar", "a2", summary],
      ["fps", "f1", null],
      ["agar", "a1", summary],
    ]);
    expect(list.unavailable).toEqual([]);
  });

  it("names the kinds whose directory cannot be asked, and asks summaries of the newest MAX_LISTED_ROOMS only", async () => {
    const asked: string[] = [];
    const list = await listAdminRooms({
      kinds: ["ttt", "fps", "agar"],
      directory: async (kind) => {
        if (kind === "fps") throw new Error("restarting");
        if (kind === "ttt") return null;
        return Array.from({ length: MAX_LISTED_ROOMS + 3 }, (_, i) => status(`r${i}`, i));
      },
      summary: async (_kind, roomId) => {
        asked.push(roomId);
        return null;
      },
    });
    expect(list.unavailable).toEqual(["fps", "ttt"]);
    expect(list.rooms).toHaveLength(MAX_LISTED_ROOMS);
    expect(list.rooms[0]!.roomId).toBe(`r${MAX_LISTED_ROOMS + 2}`);
    expect(asked).not.toContain("r0");
  });
});
