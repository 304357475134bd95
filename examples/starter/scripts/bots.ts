/**
 * `npm run bots -- [N] [--url <base>]`: N bots (4 by default) take seats through the game's
 * matchmaker, one after another as players arriving would, and play until Ctrl-C; then each leaves
 * its room. They play against `npm run dev` on this machine unless `--url` names another server
 * (a DEV_MODE one: the bots carry no ticket). What a bot plays and how is src/client/bot.ts; this
 * file only seats, reports and stops them.
 */
import { matchmaker } from "@tikron/client";
import { parseArgs } from "node:util";
import { playBot, type Bot } from "../src/client/bot";

const USAGE = `usage: npm run bots -- [N] [--url <base>]

  N            how many bots (default 4, at most 200)
  --url <base> the server (default http://127.0.0.1:8787, where npm run dev serves)`;
const MAX_BOTS = 200;

function fail(message: string): never {
  console.error(`bots: ${message}`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: { url: { type: "string", default: "http://127.0.0.1:8787" }, help: { type: "boolean", short: "h" } } });
  } catch (e) {
    return fail(`${(e as Error).message}\n\n${USAGE}`);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const count = positionals.length === 0 ? 4 : Number(positionals[0]);
if (positionals.length > 1 || !Number.isInteger(count) || count < 1 || count > MAX_BOTS) fail(`N must be one whole number from 1 to ${MAX_BOTS}\n\n${USAGE}`);

const mm = matchmaker(values.url);
const bots: Bot[] = [];
let stopping = false;

/** Every bot leaves (each seat freed at once); the process ends once the leaves are on the wire. */
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const b of bots) b.leave();
  console.log(`bots: ${bots.length} left`);
  setTimeout(() => process.exit(code), 250);
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

for (let i = 1; i <= count && !stopping; i++) {
  const name = `bot${i}`;
  try {
    bots.push(await playBot(mm, name, (why) => console.log(`bots: ${name} is out: ${why}`)));
  } catch (e) {
    console.error(`bots: ${name} found no seat at ${values.url}: ${(e as Error).message}${i === 1 ? " (is the server running? npm run dev)" : ""}`);
    stop(1);
  }
}
if (!stopping) {
  const rooms = new Map<string, number>();
  for (const b of bots) rooms.set(b.room, (rooms.get(b.room) ?? 0) + 1);
  const where = [...rooms].map(([room, n]) => `${room} (${n})`).join(", ");
  console.log(`bots: ${bots.length} playing at ${values.url} in ${where}; Ctrl-C stops them`);
}
