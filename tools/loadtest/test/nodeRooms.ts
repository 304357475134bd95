/** The real rooms (every kind) on the Node host, for the load tool's loopback end-to-end tests. */
import { gameDefinitions } from "@tikron/games";
import { serveRooms, type RoomServer } from "@tikron/node";

/** Starts every game kind on the Node host, loopback, any free port. */
export const startRooms = (): Promise<RoomServer> => serveRooms({ games: gameDefinitions });

/** What every room of the server counted, summed. */
export function serverTotals(server: RoomServer): { inputs: number; refused: number } {
  let inputs = 0;
  let refused = 0;
  for (const room of server.rooms()) {
    const s = room.snapshot();
    inputs += s.inputs.received;
    refused += s.refused.room_full ?? 0;
  }
  return { inputs, refused };
}
