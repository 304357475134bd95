/**
 * The browser side: finds a tag room through the matchmaker (or joins the one the link names),
 * sends arrow-key / WASD steering, and draws every player smoothly with the SDK's interpolation
 * buffer. Bundled to `public/client.js` by `npm run build`.
 */
import { ClockSync, connect, createInterpolatedView, errorName, matchmaker, withMessages } from "@tikron/client";
import { TAG_COLORS, TAG_RULES, tagGame, type TagColor, type TagInput } from "../shared/tag";

const params = new URLSearchParams(location.search);
const canvas = document.querySelector("canvas")!;
const status = document.querySelector("#status")!;
const g = canvas.getContext("2d")!;
const name = params.get("name") ?? `guest${Math.floor(Math.random() * 1000)}`;
// The color to run in (`?color=blue`): a join option, checked by the room before it seats us.
const asked = params.get("color");
const joinOptions = TAG_COLORS.includes(asked as TagColor) ? { color: asked as TagColor } : {};

// Signed-in players (the Worker's AUTH_* vars): pass their token, e.g.
// `const authToken = () => auth0.getTokenSilently();` and `authToken` in the options of `connect`
// and `matchmaker` below (docs/write-your-own-room.md, "Sign in with your provider").
// Typed by the game's declaration: inputs are TagInputs, events and the view tagSchema's, notices TagNotices.
// Without `?room=` the matchmaker finds one (the fullest open room, or a new one) and the address
// bar then names it: that link brings friends into the same room.
const named = params.get("room");
// The status line shows the round trip: a synced clock measures it (a page that needs no clock leaves it out).
const clock = new ClockSync();
// The chat below talks to the room beyond inputs: withMessages gives the connection `request`.
const conn = withMessages(
  named
    ? connect(location.origin, {
        game: tagGame,
        room: named,
        name,
        joinOptions,
        clock,
        // A reload keeps the seat while the room still holds it (15 s by default).
        token: sessionStorage.getItem(`tag-token:${named}`) ?? undefined,
      })
    : await matchmaker(location.origin).joinOrCreate(tagGame, { name, joinOptions, clock }),
);
const roomId = conn.room;
if (!named) history.replaceState(null, "", `?room=${encodeURIComponent(roomId)}`);
if (conn.token) sessionStorage.setItem(`tag-token:${roomId}`, conn.token);

let myEntity = -1;
conn.on("welcome", (w) => sessionStorage.setItem(`tag-token:${roomId}`, w.token));
conn.on("event", (e) => {
  if (e.body.kind === "youAre") myEntity = e.body.entity;
});
conn.on("notice", (n) => {
  if (n.type === "chat") say(`${n.data.from}: ${n.data.text}`);
});

// Chat is a room message outside the tick: the room broadcasts it as a `chat` notice and answers
// the request (typed by the game's TagMessages) with how many players heard it.
const lines = document.querySelector("#lines")!;
function say(text: string): void {
  const li = document.createElement("li");
  li.textContent = text;
  lines.prepend(li);
  while (lines.children.length > 8) lines.lastElementChild!.remove();
}
const chat = document.querySelector<HTMLFormElement>("#chat")!;
chat.addEventListener("submit", (e) => {
  e.preventDefault();
  const input = chat.elements.namedItem("text") as HTMLInputElement;
  conn.request("chat", { text: input.value }).then(
    (r) => say(`(heard by ${r.heardBy})`),
    (err: Error) => say(`(not sent: ${err.message})`),
  );
  input.value = "";
});

// Every player drawn a little in the past, interpolated between the room's frames: x and y
// blend, "it" and the color switch at once (step).
const values = new Float64Array(4);
const players = createInterpolatedView(conn, {
  fields: ["x", "y", { name: "it", interp: "step" }, { name: "color", interp: "step" }],
  collect(view, put) {
    for (const e of view.values()) {
      values[0] = e.record.x;
      values[1] = e.record.y;
      values[2] = e.record.it ? 1 : 0;
      values[3] = e.record.color;
      put(e.id, values);
    }
  },
});
const PAINT: Record<TagColor, string> = { grey: "#ccc", blue: "#59f", gold: "#fc3", pink: "#f8c" };
conn.on("error", (e) => console.warn(`room error ${e.name ?? errorName(e.code)}: ${e.reason}`));

// Steering is a state: send it when it changes (the room keeps the last one).
const held = new Set<string>();
let sent: TagInput = { dx: 0, dy: 0 };
function steer(): void {
  const axis = (neg: string[], pos: string[]): -1 | 0 | 1 =>
    (pos.some((k) => held.has(k)) ? 1 : 0) - (neg.some((k) => held.has(k)) ? 1 : 0) as -1 | 0 | 1;
  const input: TagInput = { dx: axis(["ArrowLeft", "a"], ["ArrowRight", "d"]), dy: axis(["ArrowUp", "w"], ["ArrowDown", "s"]) };
  if (input.dx === sent.dx && input.dy === sent.dy) return;
  sent = input;
  conn.sendInput(input);
}
addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement) return; // typing a chat line is not steering
  held.add(e.key);
  steer();
});
addEventListener("keyup", (e) => {
  held.delete(e.key);
  steer();
});

function frame(): void {
  const scale = canvas.width / TAG_RULES.world;
  g.fillStyle = "#111";
  g.fillRect(0, 0, canvas.width, canvas.height);
  players.update(performance.now());
  players.forEach((id, v) => {
    g.fillStyle = v[2] === 1 ? "#e33" : PAINT[TAG_COLORS[v[3]!] ?? "grey"];
    g.beginPath();
    g.arc(v[0]! * scale, v[1]! * scale, (TAG_RULES.tagRadius / 2) * scale, 0, Math.PI * 2);
    g.fill();
    if (id === myEntity) {
      // You: a green ring, whether or not you are "it".
      g.strokeStyle = "#3c6";
      g.lineWidth = 3;
      g.stroke();
    }
  });
  status.textContent = `${conn.status} · room ${roomId} · ${players.size} players · rtt ${clock.rttMs.toFixed(0)} ms · delay ${players.buffer.delayMs.toFixed(0)} ms`;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
