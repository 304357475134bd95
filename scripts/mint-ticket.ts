/**
 * Mints a room ticket from the command line, for local runs of the production config and for
 * poking a deployed gateway by hand:
 *
 *   npm run mint-ticket -- --kind agar --room r1 --player alice [--ttl 600] [--secret S]
 *
 * The secret comes from `--secret` or the `TICKET_SECRET` environment variable. Prints the
 * ticket on stdout (and, with `--url <gateway>`, the full WebSocket URL to open).
 */
import { parseArgs } from "node:util";
import { mintRoomTicket } from "../packages/cloudflare/src/roomTicket";

const USAGE = "usage: npm run mint-ticket -- --kind <kind> --room <roomId> --player <playerId> [--ttl <seconds>] [--secret <secret>] [--url <http(s)://gateway>]";

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        kind: { type: "string" },
        room: { type: "string" },
        player: { type: "string" },
        ttl: { type: "string", default: "600" },
        secret: { type: "string" },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : e}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const secret = values.secret ?? process.env.TICKET_SECRET;
  if (!values.kind || !values.room || !values.player || !secret) {
    console.error(`${!secret ? "no secret: pass --secret or set TICKET_SECRET\n" : ""}${USAGE}`);
    return 2;
  }
  const ttlSeconds = Number(values.ttl);
  try {
    const ticket = await mintRoomTicket({ secret, kind: values.kind, roomId: values.room, playerId: values.player, ttlSeconds });
    if (values.url) {
      const base = new URL(values.url);
      base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
      base.pathname = `/rooms/${encodeURIComponent(values.kind)}/${encodeURIComponent(values.room)}`;
      base.search = new URLSearchParams({ ticket }).toString();
      console.log(base.toString());
    } else {
      console.log(ticket);
    }
    return 0;
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    return 2;
  }
}

process.exitCode = await main();
