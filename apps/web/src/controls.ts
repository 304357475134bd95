import type { GameSession } from "./gameSession";
import type { InputState } from "./input";
import { NET_PRESETS, type NetConditions } from "./netConditions";

/** The page's control elements (from index.html). */
export interface ControlElements {
  net: HTMLSelectElement;
  ghosts: HTMLInputElement;
}

/**
 * Wires the network-conditions menu (hotkey N cycles it) and the server-ghost toggle (hotkey
 * H; G is the net graph's). Conditions switch live: watch the interpolation delay grow on starvation and the
 * prediction keep the own avatar responsive while the round trip climbs.
 */
export function wireControls(els: ControlElements, net: NetConditions, session: GameSession, input: InputState): void {
  const names = Object.keys(NET_PRESETS);
  els.net.replaceChildren();
  for (const name of names) {
    const p = NET_PRESETS[name]!;
    const opt = document.createElement("option");
    opt.value = name;
    opt.textContent = name === "off" ? "off (real link)" : `${name}: +${p.delayMs}..${p.delayMs + p.jitterMs} ms, ${(p.loss * 100).toFixed(1)}% loss`;
    els.net.append(opt);
  }
  if (net.name === "custom") {
    const p = net.current;
    const opt = document.createElement("option");
    opt.value = "custom";
    opt.textContent = `custom: +${p.delayMs}..${p.delayMs + p.jitterMs} ms, ${(p.loss * 100).toFixed(1)}% loss`;
    els.net.append(opt);
  }
  els.net.value = net.name;
  els.net.addEventListener("change", () => {
    if (els.net.value !== "custom") net.set(els.net.value);
    // A focused menu would take the movement keys (W, S...) as option shortcuts.
    els.net.blur();
  });
  input.onHotkey("KeyN", () => {
    const i = names.indexOf(net.name);
    const next = names[(i + 1) % names.length]!;
    net.set(next);
    els.net.value = next;
  });

  els.ghosts.checked = session.showGhosts;
  els.ghosts.addEventListener("change", () => {
    session.showGhosts = els.ghosts.checked;
    els.ghosts.blur();
  });
  input.onHotkey("KeyH", () => {
    session.showGhosts = !session.showGhosts;
    els.ghosts.checked = session.showGhosts;
  });
}
