/**
 * The Tikron demo page: plays `agar` (and `fps`) against the gateway that serves it, with the
 * SDK's interpolation and prediction, a stats overlay and switchable network conditions.
 *
 * URL: `/?game=agar&room=lobby&name=ann&net=mobile` (see params.ts; DEV_MODE room overrides
 * such as `world=800` are forwarded to the join). `window.__tikron` exposes the live state.
 */
import type { WebSocketConstructor } from "@tikron/client";
import { wireControls } from "./controls";
import { installDebugHandle } from "./debugHandle";
import { InputState } from "./input";
import { conditionedWebSocket, NetConditions } from "./netConditions";
import { StatsOverlay } from "./overlay";
import { readPageParams } from "./params";
import { withQuery } from "./roomOverrides";
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

async function start(): Promise<void> {
  const params = readPageParams(location.search, location.origin);
  const canvas = element<HTMLCanvasElement>("view");
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2D canvas context");
  document.title = `Tikron · ${params.game} · ${params.room}`;
  element<HTMLElement>("where").textContent = `${params.game} · room ${params.room} · ${params.name}`;
  if (params.problems.length > 0) showBanner(params.problems.join("; "));

  const kinds = await hostedKinds(params.server);
  if (kinds && !kinds.includes(params.game)) {
    showBanner(`this server hosts ${kinds.join(", ") || "no games"}, not ${params.game}`);
    return;
  }

  const net = new NetConditions(params.net);
  const Native = globalThis.WebSocket as unknown as WebSocketConstructor;
  const WebSocketImpl = conditionedWebSocket(withQuery(Native, params.overrides), net);
  const input = new InputState(window, canvas);
  const session = createSession({ params, WebSocketImpl, input });
  if (!session) {
    showBanner(`${params.game} is not playable in this build of the page`);
    return;
  }

  const overlay = new StatsOverlay(element("stats"), session, net, `tikron ${params.game} · ${params.room}`);
  wireControls({ net: element("net"), ghosts: element("ghosts") }, net, session, input);
  installDebugHandle(window, {
    game: params.game,
    room: params.room,
    name: params.name,
    problems: params.problems,
    session,
    net,
    renderedFrames: () => overlay.renderedFrames,
  });

  const viewport = new Viewport(canvas, ctx);
  let lastStatus = "";
  const frame = (now: number): void => {
    viewport.fit();
    session.render(ctx, now, viewport.width, viewport.height);
    overlay.frame(now);
    const status = session.status;
    if (status !== lastStatus) {
      lastStatus = status;
      showBanner(status === "joined" ? "" : status === "closed" ? `disconnected${session.lastError ? `: ${session.lastError}` : ""}` : `${status}...`);
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);

  // Leave at once rather than holding the seat for the reconnection window.
  window.addEventListener("pagehide", () => {
    session.dispose();
    input.dispose();
  });
}

start().catch((err: unknown) => {
  console.error(err);
  showBanner(`page failed to start: ${err instanceof Error ? err.message : String(err)}`);
});
