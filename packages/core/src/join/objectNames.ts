/**
 * The one naming rule of a room's objects, on every host: room `kind:roomId`'s own object (the
 * simulation of a relayed room) is named `kind:roomId`, relay `i` of it `kind:roomId#relay<i>`.
 * Cloudflare turns the name into a Durable Object id (`idFromName`); the Node host keys its map
 * of rooms by it. A room id never holds `:` or `#` (the protocol's `ROOM_ID_PATTERN`), so a name
 * parses back to its parts ({@link parseObjectName}).
 */
import { ROOM_ID_PATTERN } from "@tikron/protocol";

/** Name of room `kind:roomId`'s own object (a relayed room's simulation). */
export function roomObjectName(kind: string, roomId: string): string {
  return `${kind}:${roomId}`;
}

/** Name of relay `index` of room `kind:roomId` (the simulation is {@link roomObjectName}). */
export function relayObjectName(kind: string, roomId: string, index: number): string {
  return `${kind}:${roomId}#relay${index}`;
}

/** What an object's name says: the room's kind and id, and the relay's index for a relay. */
export interface ObjectNameParts {
  /** The room kind. */
  kind: string;
  /** The room id. */
  roomId: string;
  /** The relay's index; absent for the room's own object. */
  relay?: number;
}

const RELAY_SUFFIX = /#relay(0|[1-9][0-9]{0,8})$/;

/**
 * The parts of a name made by {@link roomObjectName} or {@link relayObjectName}, or null when it
 * is not one (a room id outside `ROOM_ID_PATTERN`, an empty kind). Read from the right: the
 * kind may hold `:`, the room id may not.
 */
export function parseObjectName(name: string): ObjectNameParts | null {
  const relayMatch = RELAY_SUFFIX.exec(name);
  const room = relayMatch ? name.slice(0, relayMatch.index) : name;
  const colon = room.lastIndexOf(":");
  if (colon <= 0) return null;
  const kind = room.slice(0, colon);
  const roomId = room.slice(colon + 1);
  if (!ROOM_ID_PATTERN.test(roomId)) return null;
  return relayMatch ? { kind, roomId, relay: Number(relayMatch[1]) } : { kind, roomId };
}
