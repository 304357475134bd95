/**
 * The admin API's audit log: one D1 row per action an operator took (`admin_actions`, migration
 * `0003_admin_actions.sql`), written before the action's answer goes out, and read back newest
 * first. Without a `DB` binding there is no log: actions still run and say `audited: false`.
 */
import type { AuditEntry } from "@tikron/protocol";

/** The part of a D1 binding the log uses. */
export interface AuditDatabase {
  /** A statement. */
  prepare(query: string): {
    /** Binds its parameters. */
    bind(...values: unknown[]): {
      /** Runs it (a write). */
      run(): Promise<unknown>;
      /** Runs it and returns the rows. */
      all<T = Record<string, unknown>>(): Promise<{ results: T[] }>;
    };
  };
}

/** Most entries one read returns. */
export const MAX_AUDIT_ENTRIES = 500;

const INSERT = "INSERT INTO admin_actions (at, actor, action, kind, room_id, detail_json, result) VALUES (?, ?, ?, ?, ?, ?, ?)";
const SELECT = "SELECT id, at, actor, action, kind, room_id, detail_json, result FROM admin_actions ORDER BY id DESC LIMIT ?";

/** The database records go to: the env's `DB` binding when it is one. */
export function auditDatabase(env: unknown): AuditDatabase | null {
  const db = (env as { DB?: Partial<AuditDatabase> } | undefined)?.DB;
  return db && typeof db.prepare === "function" ? (db as AuditDatabase) : null;
}

/** Records one action; false (and a log line) when it could not be written. */
export async function recordAdminAction(db: AuditDatabase | null, r: Omit<AuditEntry, "id">): Promise<boolean> {
  if (!db) return false;
  try {
    await db.prepare(INSERT).bind(r.at, r.actor, r.action, r.kind, r.roomId, r.detail, r.result).run();
    return true;
  } catch (e) {
    console.error(`[admin] audit write failed for ${r.action} on ${r.kind}/${r.roomId} by ${r.actor}:`, e instanceof Error ? e.message : e);
    return false;
  }
}

/** The newest `limit` entries, newest first. */
export async function readAdminActions(db: AuditDatabase, limit: number): Promise<AuditEntry[]> {
  const n = Math.max(1, Math.min(MAX_AUDIT_ENTRIES, Math.floor(limit) || 50));
  const { results } = await db.prepare(SELECT).bind(n).all<{ id: number; at: number; actor: string; action: string; kind: string; room_id: string; detail_json: string; result: string }>();
  return results.map((r) => ({ id: r.id, at: r.at, actor: r.actor, action: r.action, kind: r.kind, roomId: r.room_id, detail: r.detail_json, result: r.result }));
}
