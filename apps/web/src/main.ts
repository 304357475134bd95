/**
 * The Tikron game page at `/play`: plays any of the gateway's games (agar, movement, fps,
 * ttt-json) with the SDK's interpolation and prediction, a stats overlay, switchable network
 * conditions, a net graph with the room's own tk:stats, bot controls (DEV_MODE) and a touch
 * stick for the steering games. The lobby at `/` links here.
 *
 * URL: `/play?game=agar&room=lobby&name=ann&net=mobile` (see params.ts; DEV_MODE room overrides
 * such as `world=800` or `bots=8` are forwarded to the join). `window.__tikron` exposes the
 * live state.
 */
import { JoinError, matchmaker, withMessages, type WebSocketConstructor } from "@tikron/client";
import { wireControls } from "./controls";
import { gameInfo } from "./gameInfo";
import type { GameSession } from "./gameSession";
import { NetGraph } from "./netGraph";
import { RoomPanel } from "./roomPanel";
import { TouchStick } from "./touchStick";
import { installDebugHandle } from "./debugHandle";
import { InputState } from "./input";
import { conditionedWebSocket, NetConditions } from "./netConditions";
import { StatsOverlay } from "./overlay";
import { readPageParams, type PageParams } from "./params";
import { PARTY_SEAT_KEY, type PartySeat } from "./partySeat";
import { withQuery } from "./roomOverrides";
import { guestKey } from "./guest";
import { createSession } from "./sessions";
import { Viewport } from "./viewport";

function element<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html lacks #${id}`);
  return el as T;
}

function showBanner(text: string): void {
  const el = element<HTMLElement>("banner");
  el.textContent = text;
  el.hidden = text === "";
}

/** What the banner says for a connection state: nothing while playing, else what happened and what to do. */
function statusBanner(session: GameSession): string {
  const err = session.lastError ?? "";
  // The refusal arrives as an error (room_full: ...) and then a close (4002 room_full), which ends
  // the connection (a full room is not retried), so the message stays.
  if (err.includes("room_full")) return "This room is full. Go back to the lobby (top right) and pick or start another room.";
  switch (session.status) {
    case "joined":
      return "";
    case "closed":
      return `Disconnected${err ? ` (${err})` : ""}. Reload the page to rejoin, or go back to the lobby.`;
    case "reconnecting":
      return `Connection lost${err ? ` (${err})` : ""}; reconnecting...`;
    default:
      return `${session.status}...`;
  }
}

/** Asks the gateway to seat `count` bots in this room (DEV_MODE, or kinds that allow it). */
async function setBots(server: string, game: string, room: string, count: number): Promise<string> {
  const base = server.replace(/^ws(s?):/, "http$1:");
  const res = await fetch(`${base}/rooms/${encodeURIComponent(game)}/${encodeURIComponent(room)}/bots?count=${count}`, { method: "POST" });
  if (!res.ok) return `refused: ${res.status} ${(await res.text()).slice(0, 80)}`;
  const body = (await res.json()) as { bots: number };
  return `${body.bots} bots`;
}

/** Asks the gateway which room kinds it hosts; null when it cannot tell (other origin, old server). */
async function hostedKinds(server: string): Promise<string[] | null> {
  try {
    const res = await fetch(`${server.replace(/^ws(s?):/, "http$1:")}/health`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { kinds?: unknown };
    return Array.isArray(body.kinds) ? body.kinds.map(String) : null;
  } catch {
    return null;
  }
}

/**
 * A seat for this page from the matchmaker: its joinOrCreate (`?match=now`), a new private room
 * (`?match=private`), or the seat the lobby's party panel handed this tab (`?match=party`). A
 * named room (`?room=`, the link a room's players share, private rooms too) is joined directly:
 * no reservation, the room's own cap and lock decide. The address bar then names the room, so it
 * is the link to share.
 */
async function findSeat(params: PageParams): Promise<{ room: string; reservation?: string } | string> {
  if (params.match === null) return { room: params.room };
  if (params.match === "party") {
    const handed = sessionStorage.getItem(PARTY_SEAT_KEY);
    // Used once: a reload then joins the room by name, like any shared link.
    sessionStorage.removeItem(PARTY_SEAT_KEY);
    const seat = handed ? (JSON.parse(handed) as PartySeat) : null;
    if (!seat || seat.kind !== params.game) return "no party seat in this tab: make or join a party in the lobby";
    return { room: seat.roomId, reservation: seat.reservation };
  }
  try {
    // The base URL's query goes with every match request: the guest key makes the seat this browser's guest's.
    const seat = await matchmaker(`${params.server}?guest=${guestKey()}`).reserve(params.game, {
      ...(params.match === "private" ? { mode: "create", private: true } : { mode: "joinOrCreate" }),
      ...(params.joinOptions ? { joinOptions: params.joinOptions } : {}),
    });
    return { room: seat.roomId, reservation: seat.reservation };
  } catch (e) {
    return `could not find a room: ${e instanceof JoinError ? `${e.code}: ${e.reason}` : e instanceof Error ? e.message : String(e)}`;
  }
}

async function start(): Promise<void> {
  const params = readPageParams(location.search, location.origin);
  const seat = await findSeat(params);
  if (typeof seat === "string") {
    showBanner(seat);
    return;
  }
  params.room = seat.room;
  if (params.match !== null) {
    const here = new URL(location.href);
    here.searchParams.delete("match");
    here.searchParams.set("room", seat.room);
    history.replaceState(null, "", here.href);
  }
  const canvas = element<HTMLCanvasElement>("view");
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2D canvas context");
  document.title = `Tikron · ${params.game} · ${params.room}`;
  element<HTMLElement>("where").textContent = `${params.game} · room ${params.room} · ${params.name}`;
  const info = gameInfo(params.game);
  element<HTMLElement>("help").textContent =
    `${info ? `${info.controls}${info.touch ? ` · touch: ${info.touch}` : ""} · ` : ""}G net graph · H server ghosts · N network conditions`;
  // The room's shareable link: everything but this tab's own name.
  const share = new URL(location.href);
  share.searchParams.delete("name");
  element<HTMLInputElement>("share").value = share.href;
  if (params.problems.length > 0) showBanner(params.problems.join("; "));

  const kinds = await hostedKinds(params.server);
  if (kinds && !kinds.includes(params.game)) {
    showBanner(`this server hosts ${kinds.join(", ") || "no games"}, not ${params.game}`);
    return;
  }

  const net = new NetConditions(params.net);
  const Native = globalThis.WebSocket as unknown as WebSocketConstructor;
  // Every join carries the DEV_MODE overrides and this browser's guest key.
  const joinQuery = new URLSearchParams(params.overrides);
  joinQuery.set("guest", guestKey());
  const WebSocketImpl = conditionedWebSocket(withQuery(Native, joinQuery), net);
  const input = new InputState(window, canvas);
  const session = createSession({ params, WebSocketImpl, input, reservation: seat.reservation });
  if (!session) {
    showBanner(`${params.game} is not playable in this build of the page`);
    return;
  }

  const overlay = new StatsOverlay(element("stats"), session, net, `tikron ${params.game} · ${params.room}`);
  wireControls({ net: element("net"), ghosts: element("ghosts") }, net, session, input);
  if (params.game === "agar" || params.game === "movement") new TouchStick(canvas, input.stick, element("stick-host"));

  const graph = new NetGraph(element<HTMLCanvasElement>("netgraph-canvas"), session, net);
  // Only the room panel talks to the room beyond inputs: the page's one use of room requests.
  const roomPanel = new RoomPanel(element("room-panel"), () => withMessages(session.conn).requestStats());
  const graphPanel = element<HTMLElement>("netgraph");
  const toggleGraph = (): void => {
    graph.visible = !graph.visible;
    graphPanel.hidden = !graph.visible;
    roomPanel.setVisible(graph.visible);
  };
  input.onHotkey("KeyG", toggleGraph);
  element<HTMLButtonElement>("graph-toggle").addEventListener("click", (e) => {
    toggleGraph();
    (e.currentTarget as HTMLElement).blur();
  });

  const botsStatus = element<HTMLElement>("bots-status");
  // A ttt room has two seats: one bot is an opponent.
  if (params.game === "ttt-json") element<HTMLInputElement>("bots").value = "1";
  element<HTMLButtonElement>("bots-set").addEventListener("click", () => {
    const count = Math.max(0, Math.min(200, Math.floor(Number(element<HTMLInputElement>("bots").value) || 0)));
    botsStatus.textContent = "...";
    setBots(params.server, params.game, params.room, count).then(
      (text) => (botsStatus.textContent = text),
      (e: unknown) => (botsStatus.textContent = `failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  });
  installDebugHandle(window, {
    game: params.game,
    room: params.room,
    name: params.name,
    problems: params.problems,
    session,
    net,
    renderedFrames: () => overlay.renderedFrames,
    pageExtras: () => ({ netGraphDraws: graph.draws, netGraphVisible: graph.visible, roomPanelAnswers: roomPanel.answers, botsStatus: botsStatus.textContent }),
  });

  const viewport = new Viewport(canvas, ctx);
  let lastStatus = "";
  const frame = (now: number): void => {
    viewport.fit();
    session.render(ctx, now, viewport.width, viewport.height);
    overlay.frame(now);
    graph.frame(now);
    const banner = statusBanner(session);
    if (banner !== lastStatus) {
      lastStatus = banner;
      showBanner(banner);
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);

  // Leave at once rather than holding the seat for the reconnection window.
  window.addEventListener("pagehide", () => {
    session.dispose();
    roomPanel.dispose();
    input.dispose();
  });
}

start().catch((err: unknown) => {
  console.error(err);
  showBanner(`page failed to start: ${err instanceof Error ? err.message : String(err)}`);
});
