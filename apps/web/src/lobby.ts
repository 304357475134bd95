/**
 * The lobby page at `/`: every game with what it is and how to play it, the live rooms of each
 * kind (from the gateway's `GET /lobby/rooms`, polled every 2 s while the page is visible) with
 * join links, and "new room" buttons. Old game links (`/?game=fps&room=x`) are sent on to
 * `/play` with their query intact.
 */
import type { RoomReport } from "@tikron/protocol";
import { GAME_INFO } from "./gameInfo";


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
  const lists = new Map<string, HTMLElement>();
  for (const g of GAME_INFO) {
    const list = el("tbody");
    lists.set(g.kind, list);
    const buttons = el("div", { className: "buttons" }, el("a", { className: "button", href: playUrl(g.kind, newRoomId()), textContent: "new room" }));
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

  const refresh = async (): Promise<void> => {
    if (document.hidden) return;
    try {
      const res = await fetch("/lobby/rooms", { cache: "no-store" });
      const body = (await res.json()) as { now: number; rooms: RoomReport[]; unavailable?: string };
      status.textContent = body.unavailable ? `room list unavailable: ${body.unavailable}` : `${body.rooms.length} live room${body.rooms.length === 1 ? "" : "s"} · refreshed every 2 s`;
      for (const [kind, list] of lists) {
        const rooms = body.rooms.filter((r) => r.kind === kind);
        list.replaceChildren(
          ...(rooms.length === 0
            ? [el("tr", {}, el("td", { colSpan: 4, className: "empty", textContent: "no live rooms - start one" }))]
            : rooms.map((r) => {
                const url = playUrl(r.kind, r.roomId);
                const full = r.players + r.bots >= r.cap;
                return el(
                  "tr",
                  { className: "room" },
                  el("td", {}, el("a", { href: url, textContent: r.roomId, title: new URL(url, location.href).href })),
                  el("td", { textContent: `${r.players + r.bots} / ${r.cap}${r.bots > 0 ? ` (${r.bots} bots)` : ""}` }),
                  el("td", { textContent: age(body.now - r.startedAt) }),
                  el("td", {}, full ? el("span", { className: "full", textContent: "full" }) : el("a", { className: "button join", href: url, textContent: "join" })),
                );
              })),
        );
      }
    } catch (e) {
      status.textContent = `room list unavailable: ${e instanceof Error ? e.message : String(e)}`;
    }
  };
  await refresh();
  setInterval(() => void refresh(), POLL_MS);
  document.addEventListener("visibilitychange", () => void refresh());
}
