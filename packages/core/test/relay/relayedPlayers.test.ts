/**
 * A relayed room's players: what the relay → simulation wire carries of who joins (the claims a
 * host verified with the socket's identity, `RelayKind.Open`; the join options, in the hello the
 * relay forwards) reaches the game in its `Player` records, and comes back with a simulation that
 * restarts from its checkpoint (the relays ask for each seat back with the claims, `Resume`).
 */
import { CloseCode, defineGameTypes, defineJoinOptions, joinOption } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import type { GameDefinition, Player } from "../../src";
import { RelayedTestRoom } from "../../src/testing";
import { DotsGame, dotsDefinition, dotsSchema, encodeDotsInput, type DotsInput } from "../testing/games";

const hueOptions = defineJoinOptions({ hue: joinOption.int(0, 359, { default: 0 }) });
const hueDots = defineGameTypes<DotsInput>()({ kind: "dots", schema: dotsSchema, encodeInput: (input, w) => encodeDotsInput(w, input), joinOptions: hueOptions });

/** Dots, writing down the records it is handed. */
class RecordingDots extends DotsGame {
  readonly seen: { how: string; player: Player }[] = [];
  override join(player: Player): void {
    this.seen.push({ how: "join", player });
    super.join(player);
  }
  override reconnected(player: Player): void {
    this.seen.push({ how: "reconnected", player });
    super.reconnected(player);
  }
}

const definition: GameDefinition = { ...dotsDefinition, joinOptions: hueOptions, create: () => new RecordingDots() };
const relayed = () => new RelayedTestRoom<typeof hueDots, RecordingDots, typeof dotsSchema.decl>(definition, hueDots, { relays: 2, world: (g) => g.world, worldOptions: { tiers: [{ radius: 1000, every: 1 }] } });

describe("relayed room: who is joining crosses the relay", () => {
  it("claims (Open) and join options (the forwarded hello) reach the simulation's game, and come back after it restarts", () => {
    const room = relayed();
    const ann = room.join("ann", { relay: 0, identity: "jwt:ann", claims: { name: "Ann B.", roles: ["mod"] }, joinOptions: { hue: 120 } });
    const bob = room.join("bob", { relay: 1 });
    room.advance(50);
    const first = room.game.seen.map((s) => [s.how, s.player]);
    expect(first).toEqual([
      ["join", { playerId: ann.playerId, name: "ann", identity: "jwt:ann", claims: { name: "Ann B.", roles: ["mod"] }, options: { hue: 120 } }],
      ["join", { playerId: bob.playerId, name: "bob", identity: expect.stringMatching(/^anon-/), claims: {}, options: { hue: 0 } }],
    ]);
    // A bad option is refused by the simulation's room, through the relay, naming the option.
    const bad = room.join("bad", { relay: 1, joinOptions: { hue: 400 } });
    room.advance(50);
    expect(bad.closed).toMatchObject({ code: CloseCode.bad_request });
    expect(bad.closed!.reason).toContain("hue");

    const checkpoint = JSON.parse(JSON.stringify(room.room.checkpoint()));
    room.restartSimulation(checkpoint);
    room.advance(50);
    expect(ann.closed).toBeNull();
    // dots keeps no world: the restored game joins each restored seat, with the record the room
    // kept; then each client, asked back by its relay, reconnects to its seat as itself.
    const after = room.game.seen.map((s) => [s.how, s.player]);
    expect(after.filter(([how]) => how === "join")).toEqual(first);
    expect(after.filter(([how]) => how === "reconnected").map(([, p]) => p)).toEqual(first.map(([, p]) => p));
  });
});
