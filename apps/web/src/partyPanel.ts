/**
 * The lobby's party panel: play with friends in the same room. "make a party" shows a code to
 * share; a friend enters it ("join party"); the leader presses "start" and every member's tab
 * goes to /play with its own seat in the one room the matchmaker found for all of them (the seat
 * goes by `partySeat.ts`).
 */
import { JoinError, matchmaker, party, type Party, type PartyView } from "@tikron/client";
import type { GameInfo } from "./gameInfo";
import { PARTY_SEAT_KEY, type PartySeat } from "./partySeat";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function why(e: unknown): string {
  return e instanceof JoinError ? `${e.code}: ${e.reason}` : e instanceof Error ? e.message : String(e);
}

/** Builds the panel into `root` for the lobby's games (the first is the default). */
export function mountPartyPanel(root: HTMLElement, games: readonly GameInfo[]): void {
  const mm = matchmaker(location.origin);
  const game = el("select", { id: "party-game" }, ...games.map((g) => el("option", { value: g.kind, textContent: g.title })));
  const name = el("input", { id: "party-name", placeholder: "your name", size: 12, maxLength: 16, value: `guest-${Math.floor(Math.random() * 0x10000).toString(16).padStart(4, "0")}` });
  const make = el("button", { id: "party-make", className: "button", type: "button", textContent: "make a party" });
  const codeIn = el("input", { id: "party-code-input", className: "code", placeholder: "party code", size: 12 });
  const join = el("button", { id: "party-join", className: "button", type: "button", textContent: "join party" });
  const forming = el("div", { className: "buttons" }, game, name, make, codeIn, join);
  const code = el("b", { id: "party-code" });
  const which = el("span");
  const members = el("ul", { id: "party-members" });
  const start = el("button", { id: "party-start", className: "button", type: "button", textContent: "start" });
  const leave = el("button", { id: "party-leave", className: "button", type: "button", textContent: "leave" });
  const inParty = el("div", { hidden: true }, el("p", {}, "party ", code, which, " · share the code with your friends"), members, el("div", { className: "buttons" }, start, leave));
  const status = el("p", { id: "party-status", className: "empty", textContent: "friends who pick the same game and enter your code land in the same room as you" });
  root.append(el("h2", { textContent: "play with friends" }), forming, inParty, status);

  let current: Party<string> | null = null;
  const show = (v: PartyView): void => {
    code.textContent = v.code;
    which.textContent = ` (${games.find((g) => g.kind === v.kind)?.title ?? v.kind})`;
    members.replaceChildren(...v.members.map((m) => el("li", { textContent: `${m.name || "someone"}${m.leader ? " (leader)" : ""}${m.you ? " · you" : ""}` })));
    const leader = v.members.find((m) => m.you)?.leader === true;
    start.hidden = !leader;
    start.disabled = v.state !== "open";
    status.textContent =
      v.state === "matching" ? "finding a room for everyone…" : v.error ? `the start failed (${v.error.code}: ${v.error.reason}); the leader may start again` : leader ? "start when everyone is here" : "waiting for the leader to start";
  };
  const enter = async (open: () => Promise<Party<string>>): Promise<void> => {
    forming.hidden = true;
    status.textContent = "…";
    try {
      const p = await open();
      current = p;
      inParty.hidden = false;
      show(p.view);
      p.onChange(show);
      const seat = await p.seat();
      const handed: PartySeat = { kind: p.view.kind, roomId: seat.roomId, reservation: seat.reservation };
      sessionStorage.setItem(PARTY_SEAT_KEY, JSON.stringify(handed));
      location.assign(`/play?game=${encodeURIComponent(handed.kind)}&match=party&name=${encodeURIComponent(name.value.trim())}`);
    } catch (e) {
      current = null;
      inParty.hidden = true;
      forming.hidden = false;
      status.textContent = e instanceof JoinError && e.code === "cancelled" ? "you left the party" : `no party: ${why(e)}`;
    }
  };
  make.addEventListener("click", () => void enter(() => party(mm, game.value, { name: name.value.trim() })));
  // A code belongs to one game's matchmaker: the friend picks the game the party shows.
  join.addEventListener("click", () => void enter(() => party(mm, game.value, { code: codeIn.value, name: name.value.trim() })));
  start.addEventListener("click", () => {
    start.disabled = true;
    current?.start().catch((e: unknown) => (status.textContent = `the start failed: ${why(e)}`));
  });
  leave.addEventListener("click", () => void current?.leave());
}
