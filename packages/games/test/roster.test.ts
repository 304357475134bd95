import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Roster, type RosterBody } from "../src/roster";

type Op = { op: "add" | "leave" | "disconnected" | "reconnected"; id: number };

describe("Roster: the players of a one-entity-per-player game", () => {
  it("agrees with a naive list of joined players, whatever the order of joins, drops, returns and leaves (fast-check)", () => {
    const op = fc.record({ op: fc.constantFrom<Op["op"]>("add", "leave", "disconnected", "reconnected"), id: fc.integer({ min: 1, max: 6 }) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const despawned: number[] = [];
        const unviewed: number[] = [];
        const roster = new Roster<RosterBody & { id: number }>({ despawn: (e) => despawned.push(e), removeViewer: (p) => unviewed.push(p) });
        // The naive twin: an array of joined players in join order.
        let naive: { id: number; idle: boolean }[] = [];
        const expectDespawned: number[] = [];
        let entity = 100;
        for (const { op, id } of ops) {
          const inGame = naive.find((p) => p.id === id);
          if (op === "add") {
            if (inGame) continue; // a seat joins once; the room never calls join twice
            roster.add(id, { id, entity: entity++, idle: false });
            naive.push({ id, idle: false });
          } else if (op === "leave") {
            if (inGame) expectDespawned.push(roster.get(id)!.entity);
            roster.leave(id);
            naive = naive.filter((p) => p.id !== id);
          } else {
            roster[op](id);
            if (inGame) inGame.idle = op === "disconnected";
          }
        }
        expect(roster.list.map((b) => ({ id: b.id, idle: b.idle }))).toEqual(naive);
        for (let id = 1; id <= 6; id++) expect(roster.get(id)?.id).toBe(naive.find((p) => p.id === id)?.id);
        expect(despawned).toEqual(expectDespawned);
        expect(unviewed.length).toBe(expectDespawned.length);
      }),
    );
  });
});
