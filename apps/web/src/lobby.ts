/**
 * The lobby page at `/`: a party panel (play with friends: a code to share, everyone lands in
 * one room; `partyPanel.ts`); every game with what it is and how to play it; "play now" (the
 * matchmaker's joinOrCreate), "private room" (a room others join by its code), a code field,
 * "new room" buttons; and each kind's open rooms (the matchmaker's `GET /match/<kind>/rooms`,
 * polled every 2 s while the page is visible) with join links (and "watch" links for the games that can be watched, `GameInfo.watchable`: a
 * spectator, no seat); and your own tic-tac-toe record
 * across rooms, where the gateway keeps records (`GET /records/ttt-json/me`, with this browser's
 * guest key). Old game links (`/?game=fps&room=x`) are sent on to `/play` with their query intact.
 */
import type { RoomListing } from "@tikron/protocol";
import type { TttRecord } from "@tikron/games/schemas";
import { GAME_INFO, gameInfo } from "./gameInfo";
import { guestKey } from "./guest";
import { mountPartyPanel } from "./partyPanel";


const POLL_MS = 2000;

if (new URLSearchParams(location.search).has("game")) {
  location.replace(`/play${location.search}`);
} else {
  void start();
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

/** A fresh room id: short, URL-safe, unlikely to collide. */
function newRoomId(): string {
  return `r-${Math.floor(Math.random() * 0x1000000).toString(36)}`;
}

function playUrl(kind: string, room: string, extra = ""): string {
  return `/play?game=${encodeURIComponent(kind)}&room=${encodeURIComponent(room)}${extra}`;
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 3600)} h`;
}

async function start(): Promise<void> {
  const root = document.getElementById("games")!;
  const status = document.getElementById("lobby-status")!;
  let devMode = false;
  try {
    devMode = ((await (await fetch("/health")).json()) as { devMode?: boolean }).devMode === true;
  } catch {
    // An old or unreachable gateway: no bot buttons.
  }
  mountPartyPanel(document.getElementById("party")!, GAME_INFO);
  const lists = new Map<string, HTMLElement>();
  for (const g of GAME_INFO) {
    const list = el("tbody");
    lists.set(g.kind, list);
    const code = el("input", { className: "code", placeholder: "room code", size: 14, name: "room" });
    const joinByCode = el("form", { className: "join-code", action: "/play" }, el("input", { type: "hidden", name: "game", value: g.kind }), code, el("button", { className: "button", type: "submit", textContent: "join" }));
    const buttons = el(
      "div",
      { className: "buttons" },
      el("a", { className: "button play-now", href: `/play?game=${encodeURIComponent(g.kind)}&match=now`, textContent: "play now" }),
      el("a", { className: "button private-room", href: `/play?game=${encodeURIComponent(g.kind)}&match=private`, textContent: "private room" }),
      el("a", { className: "button", href: playUrl(g.kind, newRoomId()), textContent: "new room" }),
      joinByCode,
    );
    if (devMode) {
      const bots = g.kind === "ttt-json" ? 1 : 8;
      buttons.append(el("a", { className: "button", href: playUrl(g.kind, newRoomId(), `&bots=${bots}`), textContent: g.kind === "ttt-json" ? "play a bot" : `new room with ${bots} bots` }));
    }
    root.append(
      el(
        "section",
        { className: "game", id: `game-${g.kind}` },
        el("h2", { textContent: g.title }),
        el("p", { textContent: g.about }),
        el("p", { className: "how" }, el("b", { textContent: "controls " }), g.controls + (g.touch ? ` · touch: ${g.touch}` : "")),
        buttons,
        el("table", {}, el("thead", {}, el("tr", {}, ...["room", "players", "age", ""].map((h) => el("th", { textContent: h })))), list),
      ),
    );
  }

  void showRecord(document.getElementById("game-ttt-json"));

  const refresh = async (): Promise<void> => {
    if (document.hidden) return;
    try {
      const now = Date.now();
      const listed = await Promise.all(
        [...lists.keys()].map(async (kind) => {
          const res = await fetch(`/match/${encodeURIComponent(kind)}/rooms`, { cache: "no-store" });
          if (!res.ok) throw new Error(`${res.status} ${(await res.text()).slice(0, 80)}`);
          return [kind, (await res.json()) as RoomListing[]] as const;
        }),
      );
      let total = 0;
      for (const [kind, rooms] of listed) {
        total += rooms.length;
        lists.get(kind)!.replaceChildren(
          ...(rooms.length === 0
            ? [el("tr", {}, el("td", { colSpan: 4, className: "empty", textContent: "no open rooms - play now, or start one" }))]
            : rooms.map((r) => {
                const url = playUrl(kind, r.roomId);
                return el(
                  "tr",
                  { className: "room" },
                  el("td", {}, el("a", { href: url, textContent: r.roomId, title: new URL(url, location.href).href })),
                  el("td", { textContent: `${r.clients} / ${r.maxClients}${r.bots > 0 ? ` (${r.bots} bots)` : ""}` }),
                  el("td", { textContent: age(now - r.createdAt) }),
                  el(
                    "td",
                    {},
                    el("a", { className: "button join", href: url, textContent: "join" }),
                    // A spectator: no seat, no inputs (core/src/spectate), for the games whose page draws it.
                    ...(gameInfo(kind)?.watchable ? [" ", el("a", { className: "button watch", href: playUrl(kind, r.roomId, "&watch=1"), textContent: "watch" })] : []),
                  ),
                );
              })),
        );
      }
      status.textContent = `${total} open room${total === 1 ? "" : "s"} · refreshed every 2 s`;
    } catch (e) {
      status.textContent = `room list unavailable: ${e instanceof Error ? e.message : String(e)}`;
    }
  };
  await refresh();
  setInterval(() => void refresh(), POLL_MS);
  document.addEventListener("visibilitychange", () => void refresh());
}

/**
 * Your tic-tac-toe record, in the game's section: read from the gateway as this browser's guest
 * (a DEV_MODE gateway; a production one answers who a credential is). Nothing is shown where the
 * gateway keeps no records or does not know you (`record` null).
 */
async function showRecord(section: HTMLElement | null): Promise<void> {
  if (!section) return;
  try {
    const res = await fetch(`/records/ttt-json/me?guest=${encodeURIComponent(guestKey())}`, { cache: "no-store" });
    if (!res.ok) return;
    const { record } = (await res.json()) as { identity: string | null; record: TttRecord | null };
    if (!record) return;
    const text = `your record: ${record.wins} won · ${record.losses} lost · ${record.draws} drawn`;
    section.querySelector("p.how")?.after(el("p", { className: "record", id: "ttt-record", textContent: text }));
  } catch {
    // An old gateway, or none to ask: no record line.
  }
}
