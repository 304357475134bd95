/**
 * How a host makes a relayed room's two sides from a game's definition (relay/relayFactory.ts):
 * the simulation and a relay made apart, as two objects make them, and linked by ports, seat
 * a client that sees its ship; a game whose sync does not name its world is refused clearly.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src";
import { createPlacedRoom, createRelay, createSimulation, MemoryPort, RelaySimulation } from "../../src/relay";
import { Room } from "../../src/room";
import { TestClient } from "../../src/testing";
import { dotsDefinition } from "../testing/games";
import { fieldDefinition, fieldTypes } from "./fieldGame";

describe("relayed rooms from a definition", () => {
  it("a simulation and a relay made apart from one definition and request play as one room", () => {
    const clock = new FakeClock();
    const definition = fieldDefinition(7);
    const request = { kind: "field", roomId: "r", overrides: { relays: 1 }, clock };
    const simulation = createSimulation(definition, request);
    const up = new MemoryPort();
    const down = new MemoryPort();
    const relay = createRelay(definition, request, up);
    up.connect(simulation.connectRelay(down));
    down.connect((data) => relay.receive(data));
    // The relay's options are the simulation's, resolved from the same request.
    expect(relay.options).toEqual(simulation.room.options);

    const client = new TestClient({ room: relay, clock }, fieldTypes, "ann");
    clock.advance(100);
    client.receive();
    expect(simulation.room.seatCount).toBe(1);
    expect([...client.state.values()].filter((e) => e.type === "ship")).toHaveLength(1);
  });

  it("places a room single at 0 relays and as a simulation over 1 or more, whose room the host holds", () => {
    const clock = new FakeClock();
    const single = createPlacedRoom(fieldDefinition(7), { kind: "field", roomId: "a", clock }, 0);
    expect(single.simulation).toBeNull();
    expect(single.room).toBeInstanceOf(Room);
    const relayed = createPlacedRoom(fieldDefinition(7), { kind: "field", roomId: "b", overrides: { relays: 2 }, clock }, 2);
    expect(relayed.simulation).toBeInstanceOf(RelaySimulation);
    expect(relayed.room).toBe(relayed.simulation!.room);
    // A game that cannot be relayed is placed single, and refused relayed.
    expect(createPlacedRoom(dotsDefinition, { kind: "dots", roomId: "c", clock }, 0).simulation).toBeNull();
    expect(() => createPlacedRoom(dotsDefinition, { kind: "dots", roomId: "d", clock }, 1)).toThrow(/cannot be relayed/);
  });

  it("refuses a game whose binary sync does not name its world, saying so", () => {
    const request = { kind: "dots", roomId: "r", overrides: { relays: 2 } };
    expect(() => createSimulation(dotsDefinition, request)).toThrow(/dots cannot be relayed: .*sync\.world/);
    expect(() => createRelay(dotsDefinition, request, new MemoryPort())).toThrow(/cannot be relayed/);
  });
});
