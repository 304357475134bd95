/**
 * The host-independent room protocol tests (test/roomProtocol/suite.ts) under a real
 * `wrangler dev` with the staging config (DEV_MODE). The server is stopped (its whole process
 * group) in afterAll, whatever happened before. The same tests run against the Node host in
 * packages/node/test/roomProtocol.test.ts.
 */
import { afterAll, beforeAll } from "vitest";
import { describeRoomProtocol } from "../../../test/roomProtocol/suite";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";

let server: WranglerDevServer | undefined;

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  await server?.stop();
});

describeRoomProtocol("wrangler dev (workerd, Durable Object)", () => server!.wsUrl);
