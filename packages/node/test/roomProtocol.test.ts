/**
 * The host-independent room protocol tests (test/roomProtocol/suite.ts) against the Node host:
 * every game kind served by `serveRooms` on a free loopback port, no wrangler. The same tests
 * run under `wrangler dev` in apps/gateway/test/roomProtocol.integration.test.ts.
 */
import { gameDefinitions } from "@tikron/games";
import { afterAll, beforeAll } from "vitest";
import { serveRooms, type RoomServer } from "../src";
import { describeRoomProtocol } from "../../../test/roomProtocol/suite";

let server: RoomServer | undefined;

beforeAll(async () => {
  server = await serveRooms({ games: gameDefinitions });
});

afterAll(async () => {
  await server?.close();
});

describeRoomProtocol("the Node host (ws)", () => server!.url);
