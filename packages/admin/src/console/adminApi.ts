/**
 * The admin console's client of the admin API (`/admin/api/…` on the page's own origin): the
 * operator's token as `Authorization: Bearer` when one was given (behind Cloudflare Access the
 * browser needs none: Access adds its assertion), and every refusal as an {@link AdminApiError}.
 */
import type { AdminActionResult, AdminError, AdminRoomDetail, AdminRoomList, AuditEntry, MatchSummary } from "@tikron/protocol";

/** A refused or failed admin request: the API's code (or `network`) and reason. */
export class AdminApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** The admin API of the page's gateway. */
export class AdminApi {
  constructor(private token: string) {}

  /** Changes the token later requests carry ("" for none). */
  setToken(token: string): void {
    this.token = token;
  }

  rooms(): Promise<AdminRoomList> {
    return this.call("GET", "/rooms") as Promise<AdminRoomList>;
  }

  room(kind: string, roomId: string): Promise<AdminRoomDetail> {
    return this.call("GET", `/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(roomId)}`) as Promise<AdminRoomDetail>;
  }

  audit(limit = 20): Promise<AuditEntry[]> {
    return this.call("GET", `/audit?limit=${limit}`) as Promise<AuditEntry[]>;
  }

  /** A kind's recorded matches, newest first. */
  replays(kind: string): Promise<MatchSummary[]> {
    return this.call("GET", `/replays/${encodeURIComponent(kind)}`) as Promise<MatchSummary[]>;
  }

  /** One action on a room (`kick`, `ban`, …) with its body. */
  act(kind: string, roomId: string, op: string, body: object): Promise<AdminActionResult> {
    return this.call("POST", `/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(roomId)}/${op}`, body) as Promise<AdminActionResult>;
  }

  private async call(method: string, path: string, body?: object): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`/admin/api${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}), cache: "no-store" });
    } catch (e) {
      throw new AdminApiError("network", 0, String(e));
    }
    const out = (await res.json().catch(() => ({}))) as unknown;
    if (!res.ok) {
      const e = out as Partial<AdminError>;
      throw new AdminApiError(e.code ?? "error", res.status, e.reason ?? res.statusText);
    }
    return out;
  }
}
