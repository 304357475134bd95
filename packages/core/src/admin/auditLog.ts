/**
 * The admin API's audit log: one entry per action an operator took, written before the action's
 * answer goes out, and read back newest first. Two keepings of the one log: rows of a SQL
 * database ({@link sqlAuditLog}: D1's `admin_actions` on Cloudflare, migration
 * `0003_admin_actions.sql`) and entries in memory ({@link memoryAuditLog}: the Node host, whose
 * log lives with its process). Without a database there is no log: actions still run and say
 * `audited: false`.
 */
import type { AuditEntry } from "@tikron/protocol";
import type { AdminHost } from "./adminRouter";

/** Where a host keeps its audit log: the admin API records into it and reads it back. */
export type AuditLog = Pick<AdminHost, "record" | "audit">;

/** The part of a SQL database binding (D1's) the log uses. */
export interface AuditDatabase {
  /** A statement. */
  prepare(query: string): {
    /** Binds its parameters. */
    bind(...values: unknown[]): {
      /** Runs it (a write). */
      run(): Promise<unknown>;
      /** Runs it and returns the rows. */
      all<T = Record<string, unknown>>(): Promise<{
        /** The rows. */
        results: T[];
      }>;
    };
  };
}

/** Most entries one read returns, and most a memory log keeps. */
export const MAX_AUDIT_ENTRIES = 500;

const INSERT = "INSERT INTO admin_actions (at, actor, action, kind, room_id, detail_json, result) VALUES (?, ?, ?, ?, ?, ?, ?)";
const SELECT = "SELECT id, at, actor, action, kind, room_id, detail_json, result FROM admin_actions ORDER BY id DESC LIMIT ?";

/** How many entries a read of `limit` returns: 1 to {@link MAX_AUDIT_ENTRIES}, 50 when it is no number. */
export function auditLimit(limit: number): number {
  return Math.max(1, Math.min(MAX_AUDIT_ENTRIES, Math.floor(limit) || 50));
}

/** The database the log goes to: a host env's `DB` binding when it is one (D1 on Cloudflare). */
export function auditDatabase(env: unknown): AuditDatabase | null {
  const db = (env as { DB?: Partial<AuditDatabase> } | undefined)?.DB;
  return db && typeof db.prepare === "function" ? (db as AuditDatabase) : null;
}

/** The log as rows of `db` (`admin_actions`); with no database, nothing is recorded and nothing read (null). */
export function sqlAuditLog(db: AuditDatabase | null): AuditLog {
  return {
    async record(r) {
      if (!db) return false;
      try {
        await db.prepare(INSERT).bind(r.at, r.actor, r.action, r.kind, r.roomId, r.detail, r.result).run();
        return true;
      } catch (e) {
        console.error(`[admin] audit write failed for ${r.action} on ${r.kind}/${r.roomId} by ${r.actor}:`, e instanceof Error ? e.message : e);
        return false;
      }
    },
    async audit(limit) {
      if (!db) return null;
      const { results } = await db.prepare(SELECT).bind(auditLimit(limit)).all<{ id: number; at: number; actor: string; action: string; kind: string; room_id: string; detail_json: string; result: string }>();
      return results.map((r) => ({ id: r.id, at: r.at, actor: r.actor, action: r.action, kind: r.kind, roomId: r.room_id, detail: r.detail_json, result: r.result }));
    },
  };
}

/** The log in memory: the newest {@link MAX_AUDIT_ENTRIES} entries, numbered from 1. */
export function memoryAuditLog(): AuditLog {
  const entries: AuditEntry[] = [];
  let nextId = 1;
  return {
    async record(entry) {
      entries.push({ id: nextId++, ...entry });
      if (entries.length > MAX_AUDIT_ENTRIES) entries.shift();
      return true;
    },
    async audit(limit) {
      return entries.slice(-auditLimit(limit)).reverse();
    },
  };
}
