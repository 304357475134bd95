/**
 * What `npm run replay` does, apart from its command line: read a host's recorded matches through
 * its admin API (`GET /admin/api/replays/<kind>[/<matchId>]`, the admin token as a bearer) and
 * re-run one in the core (`@tikron/core/replay`), against the demo games' definitions.
 */
import type { GameDefinition } from "@tikron/core";
import { replay, type ReplayReport } from "@tikron/core/replay";
import type { MatchSummary } from "@tikron/protocol";

/** Where a host's admin API is and how to call it. */
export interface ArchiveAccess {
  /** The host's base URL (`http://127.0.0.1:8787`; a `ws://` one is read as `http://`). */
  url: string;
  /** The admin token (`ADMIN_TOKEN`). */
  token: string;
}

function apiUrl(access: ArchiveAccess, path: string): string {
  const base = access.url.replace(/^ws(s?):\/\//, "http$1://").replace(/\/+$/, "");
  return `${base}/admin/api/replays/${path}`;
}

async function get(access: ArchiveAccess, path: string): Promise<Response> {
  const res = await fetch(apiUrl(access, path), { headers: { authorization: `Bearer ${access.token}` } });
  if (!res.ok) throw new Error(`GET ${apiUrl(access, path)}: ${res.status} ${await res.text()}`);
  return res;
}

/** A kind's recorded matches, newest first. */
export async function listMatches(access: ArchiveAccess, kind: string): Promise<MatchSummary[]> {
  return (await (await get(access, encodeURIComponent(kind))).json()) as MatchSummary[];
}

/** One recorded match's log. */
export async function fetchMatch(access: ArchiveAccess, kind: string, matchId: string): Promise<Uint8Array> {
  return new Uint8Array(await (await get(access, `${encodeURIComponent(kind)}/${encodeURIComponent(matchId)}`)).arrayBuffer());
}

/**
 * Re-runs a match's log with its kind's definition: exact, or the first tick that differs.
 *
 * @throws Error for a kind `games` does not have.
 */
export async function verifyMatch(games: Readonly<Record<string, GameDefinition>>, kind: string, log: Uint8Array): Promise<ReplayReport> {
  const definition = games[kind];
  if (!definition) throw new Error(`no game kind "${kind}" here (${Object.keys(games).join(", ")})`);
  return replay(definition, log);
}

/** A list as lines: one match a line, its id first. */
export function formatList(list: readonly MatchSummary[]): string[] {
  if (list.length === 0) return ["no recorded matches"];
  return list.map((m) => `${m.matchId}  room ${m.roomId}  ${new Date(m.startedAt).toISOString()}  ${Math.round((m.endedAt - m.startedAt) / 1000)} s  ${m.players} players  ${m.bytes} B  (${m.reason})`);
}
