/**
 * The admin console at `/admin`, on the admin API of the gateway that serves it: every room live
 * (polled every 2 s), a room's players, bans and recent errors with a live chart of its numbers
 * (polled every second), its actions (notice, kick, ban, lock, close), each asked for in a
 * confirmation dialog, the audit log, and a kind's recorded matches, each linked to the replay
 * viewer (`/replay?kind=…&match=…`, on a Worker that serves one: the demo's web app). The page holds no secret: the operator types the admin
 * token (kept in this tab's session storage), or signs in through Cloudflare Access in front of
 * the page and the API.
 */
import type { AdminRoomDetail, AdminRoomSummary, AdminSeat, AuditEntry, MatchSummary } from "@tikron/protocol";
import { AdminApi, AdminApiError } from "./adminApi";
import { LaneChart } from "../laneChart";

const ROOMS_POLL_MS = 2000;
const ROOM_POLL_MS = 1000;
const TOKEN_KEY = "tikron-admin-token";
const BAN_CHOICES: Array<[string, number]> = [
  ["10 minutes", 600],
  ["1 hour", 3600],
  ["1 day", 86_400],
  ["7 days", 7 * 86_400],
];

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : s < 86_400 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 86_400)} d`;
}

function time(at: number): string {
  return new Date(at).toLocaleTimeString();
}

const api = new AdminApi(sessionStorage.getItem(TOKEN_KEY) ?? "");
const status = byId<HTMLElement>("status");
const chart = new LaneChart(
  byId<HTMLCanvasElement>("room-chart"),
  [
    { label: "players", unit: "", color: "#5ec8ff" },
    { label: "frames", unit: "/s", color: "#9be564" },
    { label: "out", unit: "kB/s", color: "#f78c6c" },
    { label: "flush p99", unit: "ms", color: "#ffd166" },
    { label: "errors", unit: "/s", color: "#ff5370" },
  ],
  120,
  30,
  480,
);
/** The room the detail shows, and what its last poll counted (for rates). */
let selected: { kind: string; roomId: string; last: { at: number; frames: number; bytesOut: number; errors: number } | null } | null = null;
/** What the browser test reads. */
const debug = { rooms: 0, roomPolls: 0, actions: [] as string[], lastError: "" };
Object.defineProperty(debug, "chartDraws", { get: () => chart.draws, enumerable: true });
(window as unknown as { tikronAdmin: unknown }).tikronAdmin = debug;
/** The ban length picked per player: the table is redrawn every poll, the operator's pick stays. */
const banFor = new Map<number, string>();

function showError(e: unknown): void {
  const text = e instanceof AdminApiError ? (e.status === 401 || e.status === 403 ? `${e.message} — enter the admin token above` : e.message) : String(e);
  debug.lastError = text;
  status.textContent = text;
  status.className = "error";
}

/** Asks the operator to confirm `what`; resolves true when confirmed. */
function confirmAction(what: string): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>("confirm");
  byId<HTMLElement>("confirm-text").textContent = what;
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true }));
}

async function act(op: string, body: object, what: string): Promise<void> {
  if (!selected || !(await confirmAction(what))) return;
  try {
    const out = await api.act(selected.kind, selected.roomId, op, body);
    debug.actions.push(op);
    status.textContent = `${op}: done (${out.affected} affected${out.audited ? ", recorded" : ", not recorded: no audit log"})`;
    status.className = "";
    await Promise.all([pollRoom(), pollAudit()]);
  } catch (e) {
    showError(e);
  }
}

function renderRooms(rooms: AdminRoomSummary[]): void {
  const body = byId<HTMLTableSectionElement>("rooms-body");
  body.replaceChildren(
    ...rooms.map((r) => {
      const row = el(
        "tr",
        { className: selected?.kind === r.kind && selected.roomId === r.roomId ? "selected" : "" },
        el("td", { textContent: r.kind }),
        el("td", {}, el("a", { href: "#", textContent: r.roomId, className: "room-link" })),
        el("td", { textContent: `${r.clients}/${r.maxClients}${r.bots ? ` (${r.bots} bots)` : ""}` }),
        el("td", { textContent: [r.locked ? "locked" : "", r.private ? "private" : ""].filter(Boolean).join(", ") }),
        el("td", { textContent: age(Date.now() - r.createdAt) }),
        el("td", { textContent: r.stats ? String(r.stats.frames) : "—" }),
        el("td", { textContent: r.stats ? String(r.stats.errors) : "—" }),
        el("td", { textContent: r.stats ? r.stats.flushP99Ms.toFixed(2) : "—" }),
      );
      row.dataset.room = `${r.kind}/${r.roomId}`;
      row.addEventListener("click", (ev) => {
        ev.preventDefault();
        select(r.kind, r.roomId);
      });
      return row;
    }),
  );
  byId<HTMLElement>("rooms-empty").hidden = rooms.length > 0;
}

function seatRow(s: AdminSeat): HTMLTableRowElement {
  const state = s.bot ? "bot" : s.connected ? "connected" : `held ${age(s.heldForMs ?? 0)}`;
  const duration = el("select", { className: "ban-for" }, ...BAN_CHOICES.map(([label, seconds]) => el("option", { value: String(seconds), textContent: label })));
  duration.value = banFor.get(s.playerId) ?? String(BAN_CHOICES[0]![1]);
  duration.addEventListener("change", () => banFor.set(s.playerId, duration.value));
  const kick = el("button", { className: "kick", textContent: "kick" });
  kick.addEventListener("click", () => void act("kick", { playerId: s.playerId }, `Kick ${s.name} (player ${s.playerId})? The socket closes and the seat is freed.`));
  const ban = el("button", { className: "ban", textContent: "ban", disabled: s.identity === null && !s.connected });
  ban.addEventListener("click", () => {
    const seconds = Number(duration.value);
    void act("ban", { playerId: s.playerId, seconds }, `Ban ${s.identity ?? s.name} from this room for ${duration.selectedOptions[0]?.textContent}?`);
  });
  const row = el(
    "tr",
    {},
    el("td", { textContent: String(s.playerId) }),
    el("td", { textContent: s.name }),
    el("td", { textContent: s.identity ?? "anonymous" }),
    el("td", { textContent: state }),
    el("td", { textContent: String(s.lastSeq) }),
    el("td", { textContent: `${(s.backlogBytes / 1024).toFixed(1)} kB` }),
    el("td", { className: "actions" }, kick, duration, ban),
  );
  row.dataset.player = String(s.playerId);
  return row;
}

function renderRoom(d: AdminRoomDetail): void {
  byId<HTMLElement>("room-title").textContent = `${d.kind} / ${d.roomId}`;
  byId<HTMLButtonElement>("lock").textContent = d.listing.locked ? "unlock" : "lock";
  byId<HTMLButtonElement>("lock").dataset.locked = String(d.listing.locked);
  byId<HTMLTableSectionElement>("players-body").replaceChildren(...d.seats.map(seatRow));
  byId<HTMLElement>("players-empty").hidden = d.seats.length > 0;
  byId<HTMLElement>("errors").replaceChildren(...d.errors.slice(-10).reverse().map((e) => el("li", { textContent: `${time(e.at)} ${e.name}${e.playerId ? ` (player ${e.playerId})` : ""}: ${e.reason}` })));
  byId<HTMLElement>("bans").replaceChildren(
    ...d.bans.map((b) => {
      const lift = el("button", { textContent: "unban" });
      lift.addEventListener("click", () => void act("unban", { identity: b.identity }, `Lift the ban on ${b.identity}?`));
      return el("li", {}, `${b.identity} until ${new Date(b.until).toLocaleString()}${b.reason ? ` (${b.reason})` : ""} `, lift);
    }),
  );
}

async function pollRooms(): Promise<void> {
  try {
    const list = await api.rooms();
    debug.rooms++;
    renderRooms(list.rooms);
    for (const r of list.rooms) {
      if (kindsSeen.has(r.kind)) continue;
      kindsSeen.add(r.kind);
      byId<HTMLDataListElement>("replays-kinds").append(el("option", { value: r.kind }));
    }
    status.textContent = `${list.rooms.length} rooms${list.unavailable.length ? ` (not listed: ${list.unavailable.join(", ")})` : ""}`;
    status.className = "";
  } catch (e) {
    showError(e);
  }
}

async function pollRoom(): Promise<void> {
  const s = selected;
  if (!s) return;
  try {
    const d = await api.room(s.kind, s.roomId);
    if (selected !== s) return;
    debug.roomPolls++;
    renderRoom(d);
    const st = d.stats as { ccu: number; frames: number; bytesOut: number; errors: Record<string, number>; flush: { p99: number } };
    const errors = Object.values(st.errors).reduce((a, b) => a + b, 0);
    const now = Date.now();
    const last = s.last;
    const dt = last ? Math.max(0.001, (now - last.at) / 1000) : 1;
    chart.push([st.ccu, last ? (st.frames - last.frames) / dt : 0, last ? (st.bytesOut - last.bytesOut) / dt / 1024 : 0, st.flush.p99, last ? (errors - last.errors) / dt : 0]);
    chart.draw();
    s.last = { at: now, frames: st.frames, bytesOut: st.bytesOut, errors };
  } catch (e) {
    showError(e);
  }
}

async function pollAudit(): Promise<void> {
  try {
    const entries = await api.audit(20);
    byId<HTMLTableSectionElement>("audit-body").replaceChildren(
      ...entries.map((a: AuditEntry) => el("tr", {}, el("td", { textContent: time(a.at) }), el("td", { textContent: a.actor }), el("td", { textContent: a.action }), el("td", { textContent: `${a.kind}/${a.roomId}` }), el("td", { textContent: a.detail }), el("td", { textContent: a.result }))),
    );
  } catch (e) {
    // A gateway without an audit log still acts; say so where the log would be.
    byId<HTMLTableSectionElement>("audit-body").replaceChildren(el("tr", {}, el("td", { colSpan: 6, textContent: e instanceof Error ? e.message : String(e) })));
  }
}

/** The kinds seen in the room list: the recorded matches' kind picker offers them. */
const kindsSeen = new Set<string>();

function renderReplays(kind: string, list: MatchSummary[]): void {
  byId<HTMLTableSectionElement>("replays-body").replaceChildren(
    ...list.map((m) =>
      el(
        "tr",
        {},
        el("td", { textContent: new Date(m.startedAt).toLocaleString() }),
        el("td", { textContent: m.roomId }),
        el("td", { textContent: age(m.endedAt - m.startedAt) }),
        el("td", { textContent: String(m.players) }),
        el("td", { textContent: `${(m.bytes / 1024).toFixed(1)} KiB` }),
        el("td", { textContent: m.reason }),
        el("td", {}, el("a", { href: `/replay?kind=${encodeURIComponent(kind)}&match=${encodeURIComponent(m.matchId)}`, textContent: "watch", className: "replay-link" })),
      ),
    ),
  );
  byId<HTMLElement>("replays-empty").hidden = list.length > 0;
}

async function listReplays(): Promise<void> {
  const kind = byId<HTMLInputElement>("replays-kind").value.trim();
  if (!kind) return;
  try {
    renderReplays(kind, await api.replays(kind));
  } catch (e) {
    showError(e);
  }
}

function select(kind: string, roomId: string): void {
  selected = { kind, roomId, last: null };
  byId<HTMLElement>("room").hidden = false;
  void pollRoom();
}

byId<HTMLFormElement>("token-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const token = byId<HTMLInputElement>("token").value.trim();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  api.setToken(token);
  void pollRooms();
  void pollAudit();
});
byId<HTMLFormElement>("replays-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  void listReplays();
});
byId<HTMLButtonElement>("lock").addEventListener("click", () => {
  const locked = byId<HTMLButtonElement>("lock").dataset.locked === "true";
  void act("lock", { locked: !locked }, locked ? "Unlock the room (new players may join again)?" : "Lock the room (no new players, by match or by id)?");
});
byId<HTMLButtonElement>("close-room").addEventListener("click", () => {
  const reason = byId<HTMLInputElement>("close-reason").value.trim();
  void act("close", { reason }, "Close the room? Every player is disconnected and every seat freed.");
});
byId<HTMLFormElement>("notice-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = byId<HTMLInputElement>("notice-text").value.trim();
  if (text) void act("notice", { text }, `Send every player in the room: “${text}”?`);
});

void pollRooms();
void pollAudit();
setInterval(() => {
  if (!document.hidden) void pollRooms();
}, ROOMS_POLL_MS);
setInterval(() => {
  if (!document.hidden) void pollRoom();
}, ROOM_POLL_MS);
