/** The audit log's two keepings (admin/auditLog.ts): the same reads from memory and from SQL rows. */
import { describe, expect, it } from "vitest";
import { auditLimit, MAX_AUDIT_ENTRIES, memoryAuditLog, sqlAuditLog, type AuditDatabase } from "../../src/admin/auditLog";

const entry = (n: number) => ({ at: n, actor: "op", action: "kick", kind: "agar", roomId: `r${n}`, detail: "{}", result: "ok" });

/** `admin_actions` in memory: the log's two statements, applied. */
function fakeDb(failWrites = false): AuditDatabase & { rows: Record<string, unknown>[] } {
  const rows: Record<string, unknown>[] = [];
  return {
    rows,
    prepare: (query) => ({
      bind: (...v: unknown[]) => ({
        run: async () => {
          if (failWrites) throw new Error("D1 down");
          rows.push({ id: rows.length + 1, at: v[0], actor: v[1], action: v[2], kind: v[3], room_id: v[4], detail_json: v[5], result: v[6] });
        },
        all: async <T>() => ({ results: (query.includes("ORDER BY id DESC") ? [...rows].reverse().slice(0, v[0] as number) : []) as T[] }),
      }),
    }),
  };
}

describe("audit log", () => {
  it("reads at most MAX_AUDIT_ENTRIES, at least one, 50 when the limit is no number", () => {
    expect(auditLimit(10)).toBe(10);
    expect(auditLimit(0)).toBe(50);
    expect(auditLimit(Number.NaN)).toBe(50);
    expect(auditLimit(-3)).toBe(1);
    expect(auditLimit(10_000)).toBe(MAX_AUDIT_ENTRIES);
  });

  it("in memory and in SQL rows, reads the newest first, numbered from 1", async () => {
    for (const log of [memoryAuditLog(), sqlAuditLog(fakeDb())]) {
      for (let n = 1; n <= 3; n++) expect(await log.record(entry(n))).toBe(true);
      const read = await log.audit(2);
      expect(read?.map((e) => [e.id, e.roomId])).toEqual([
        [3, "r3"],
        [2, "r2"],
      ]);
      expect(read?.[0]).toEqual({ id: 3, ...entry(3) });
    }
  });

  it("in memory keeps the newest MAX_AUDIT_ENTRIES", async () => {
    const log = memoryAuditLog();
    for (let n = 1; n <= MAX_AUDIT_ENTRIES + 5; n++) await log.record(entry(n));
    const read = (await log.audit(MAX_AUDIT_ENTRIES))!;
    expect(read).toHaveLength(MAX_AUDIT_ENTRIES);
    expect(read.at(-1)!.id).toBe(6);
  });

  it("without a database records nothing and has nothing to read; a failed write says so", async () => {
    expect(await sqlAuditLog(null).record(entry(1))).toBe(false);
    expect(await sqlAuditLog(null).audit(10)).toBeNull();
    expect(await sqlAuditLog(fakeDb(true)).record(entry(1))).toBe(false);
  });
});
