/**
 * The replay viewer at `/replay?kind=<kind>&match=<matchId>` (optional `&as=<playerId>`,
 * `&t=<ms>`): a recorded match fetched from the admin API (the console's token, kept in this
 * tab's session storage, or typed here) and re-run in the page (replayModel.ts), with play and
 * pause, a seek bar, speed 0.25×–8×, "see as" a player (what that player's client decoded: its
 * AOI, its tiers) or the whole world, and that player's net graph (each frame's gap since the
 * one before, and the ack it carried) beside it. The room code it runs is the page's own bundle:
 * the game page and the lobby carry none of it.
 */
import { gameDefinitions } from "@tikron/games";
import { agarTypes, fpsTypes, movementTypes, tttTypes } from "@tikron/games/schemas";
import type { Schema } from "@tikron/protocol";
import { ReplayModel, type TimelineFrame, type ViewedEntity } from "./replayModel";

/** The console's key for the admin token (packages/admin's console keeps it there). */
const TOKEN_KEY = "tikron-admin-token";
/** Seconds of timeline the net graph shows, up to the replay's time. */
const GRAPH_SECONDS = 10;
/** Frame gap the graph's top stands for (ms). */
const GRAPH_GAP_MS = 200;

const SCHEMAS: Record<string, Schema | null> = { agar: agarTypes.schema, movement: movementTypes.schema, fps: fpsTypes.schema, "ttt-json": null };
const COLORS: Record<string, string> = { player: "#6cf", orb: "#fc6", shooter: "#f88" };

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

const params = new URLSearchParams(location.search);
const kind = params.get("kind") ?? "";
const matchId = params.get("match") ?? "";
const status = byId<HTMLSpanElement>("status");
const view = byId<HTMLCanvasElement>("view");
const graph = byId<HTMLCanvasElement>("netgraph");
const seekBar = byId<HTMLInputElement>("seek");
const playButton = byId<HTMLButtonElement>("play");
const asSelect = byId<HTMLSelectElement>("as");
const speedSelect = byId<HTMLSelectElement>("speed");

/** What a test (and a curious operator) reads from the console: the model and the drawn view. */
const debug: { model: ReplayModel | null; drawn: ViewedEntity[]; as: number } = { model: null, drawn: [], as: 0 };
(window as unknown as { __replay: typeof debug }).__replay = debug;

let model: ReplayModel | null = null;
let playing = false;
/**
 * Where playback stands (room ms). Kept apart from the replay's time, which stops at the last
 * record it ran: a frame's few ms at 1× may reach no new record, and must still count.
 */
let playhead = 0;
let busy = false;
let lastFrameAt = 0;

async function load(token: string): Promise<void> {
  const definition = gameDefinitions[kind];
  if (!definition || !(kind in SCHEMAS)) throw new Error(`no replay for kind "${kind}" here`);
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`/admin/api/replays/${encodeURIComponent(kind)}/${encodeURIComponent(matchId)}`, { headers, cache: "no-store" });
  if (res.status === 401 || res.status === 403) {
    byId<HTMLFormElement>("token-form").hidden = false;
    throw new Error("the admin API wants its token");
  }
  if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
  const m = new ReplayModel(definition, new Uint8Array(await res.arrayBuffer()), SCHEMAS[kind]!);
  model = debug.model = m;
  byId<HTMLElement>("title").textContent = `${kind} ${m.log.header.roomId} · ${new Date(m.log.header.startedAt).toLocaleString()}`;
  seekBar.max = String(Math.ceil(m.duration));
  for (const p of m.players) asSelect.append(new Option(`player ${p.playerId} ${p.name}${p.bot ? " (bot)" : ""}`, String(p.playerId)));
  asSelect.value = params.get("as") ?? "0";
  debug.as = Number(asSelect.value) || 0;
  const json = SCHEMAS[kind] === null;
  view.hidden = json;
  byId<HTMLPreElement>("json-view").hidden = !json;
  await seek(Number(params.get("t") ?? 0));
}

async function seek(t: number): Promise<void> {
  if (!model || busy) return;
  playhead = t;
  busy = true;
  try {
    await model.seek(t);
  } finally {
    busy = false;
  }
  draw();
}

function draw(): void {
  const m = model;
  if (!m) return;
  const as = debug.as;
  seekBar.value = String(Math.round(m.time));
  const report = m.report();
  byId<HTMLPreElement>("clock").textContent = `${(m.time / 1000).toFixed(2)} s of ${(m.duration / 1000).toFixed(1)} s · tick ${m.tick}`;
  status.textContent = report.difference ? report.message : `${report.records} of ${report.total} records replayed`;
  if (SCHEMAS[kind] === null) {
    const state = as ? m.jsonViewOf(as) : m.game.checkpoint?.();
    byId<HTMLPreElement>("json-view").textContent = JSON.stringify(state, null, 2);
  } else drawEntities(as ? m.viewOf(as) : m.world(), worldSize(m));
  drawGraph(m.timeline(as || (m.players[0]?.playerId ?? 0)), m.time);
}

function worldSize(m: ReplayModel): number {
  const configured = (m.game as unknown as { config?: { world?: number } }).config?.world;
  return configured ?? 1000;
}

function fit(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
  const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  return canvas.getContext("2d")!;
}

function drawEntities(list: ViewedEntity[], size: number): void {
  debug.drawn = list;
  const ctx = fit(view);
  const scale = Math.min(view.width, view.height) / size;
  ctx.fillStyle = "#080a10";
  ctx.fillRect(0, 0, view.width, view.height);
  ctx.strokeStyle = "rgba(255,255,255,0.15)";
  ctx.strokeRect(0, 0, size * scale, size * scale);
  for (const e of list) {
    ctx.fillStyle = COLORS[e.type] ?? "#ccc";
    ctx.beginPath();
    ctx.arc(e.x * scale, e.y * scale, Math.max(2, (e.r ?? 4) * scale), 0, Math.PI * 2);
    ctx.fill();
  }
}

/** Each frame's gap since the one before (bars) and its ack (the line), over the last seconds. */
function drawGraph(frames: readonly TimelineFrame[], time: number): void {
  const ctx = fit(graph);
  const { width: w, height: h } = graph;
  ctx.clearRect(0, 0, w, h);
  const from = time - GRAPH_SECONDS * 1000;
  const x = (t: number): number => ((t - from) / (GRAPH_SECONDS * 1000)) * w;
  let gaps = 0;
  let worst = 0;
  let firstAck = -1;
  let lastAck = -1;
  for (let i = 1; i < frames.length; i++) {
    const f = frames[i]!;
    if (f.at < from) continue;
    const gap = f.at - frames[i - 1]!.at;
    worst = Math.max(worst, gap);
    if (gap > 100) gaps++;
    ctx.fillStyle = gap > 100 ? "#f66" : "#6c6";
    ctx.fillRect(x(f.at) - 1, h - (Math.min(gap, GRAPH_GAP_MS) / GRAPH_GAP_MS) * h, 2, h);
    if (f.ackSeq >= 0) {
      if (firstAck < 0) firstAck = f.ackSeq;
      lastAck = f.ackSeq;
    }
  }
  // The acks as a line from the window's first to its highest.
  ctx.strokeStyle = "#9cf";
  ctx.beginPath();
  let started = false;
  const span = Math.max(1, lastAck - firstAck);
  for (const f of frames) {
    if (f.at < from || f.ackSeq < 0) continue;
    const y = h - ((f.ackSeq - firstAck) / span) * (h - 4) - 2;
    if (started) ctx.lineTo(x(f.at), y);
    else ctx.moveTo(x(f.at), y);
    started = true;
  }
  ctx.stroke();
  byId<HTMLPreElement>("graph-legend").textContent = `last ${GRAPH_SECONDS} s: frame gaps (bars, top = ${GRAPH_GAP_MS} ms; red > 100 ms: ${gaps}, worst ${Math.round(worst)} ms)\nacks (line): ${firstAck} → ${lastAck}`;
}

function loop(now: number): void {
  if (playing && model && !busy) {
    const dt = lastFrameAt ? now - lastFrameAt : 0;
    const target = playhead + dt * Number(speedSelect.value);
    if (target >= model.duration) {
      playing = false;
      playButton.textContent = "play";
    }
    void seek(Math.min(target, model.duration));
  }
  lastFrameAt = now;
  requestAnimationFrame(loop);
}

playButton.addEventListener("click", () => {
  playing = !playing;
  playButton.textContent = playing ? "pause" : "play";
});
seekBar.addEventListener("input", () => void seek(Number(seekBar.value)));
asSelect.addEventListener("change", () => {
  debug.as = Number(asSelect.value) || 0;
  draw();
});
byId<HTMLFormElement>("token-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const token = byId<HTMLInputElement>("token").value.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  start(token);
});

function start(token: string): void {
  if (model) return;
  load(token).then(
    () => requestAnimationFrame(loop),
    (e: unknown) => (status.textContent = e instanceof Error ? e.message : String(e)),
  );
}

if (!kind || !matchId) status.textContent = "open a recorded match from the admin console (/replay?kind=…&match=…)";
else start(sessionStorage.getItem(TOKEN_KEY) ?? "");
