/** `loadtest serve`: the real rooms on the Node host, loopback only, for a bounded time. */
import { Option, type Command } from "commander";
import { gameDefinitions, memoryTttRecords } from "@tikron/games";
import { serveRooms } from "@tikron/node";
import { int, num } from "./parsers";

/** Registers `serve` on the program. */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("the real rooms (every kind in @tikron/games) on the Node host over ws, loopback; for benchmarks, tests and comparisons with workerd")
    .option("--port <n>", "port (0 = any free)", int("port"), 8790)
    .addOption(new Option("--host <host>", "bind address (loopback only)").choices(["127.0.0.1", "localhost", "::1"]).default("127.0.0.1"))
    .option("--no-dev-mode", "refuse DEV_MODE overrides (?tickMs=…) and HTTP stats, like production")
    .option("--max-seconds <sec>", "exit after this long", num("max-seconds"), 900)
    .action(async (o) => {
      // Tic-tac-toe keeps each identity's record in this process's memory (D1 on Cloudflare).
      const server = await serveRooms({ games: gameDefinitions, port: o.port, host: o.host, devMode: o.devMode, env: { TTT_RECORDS: memoryTttRecords() } });
      console.log(`room server listening on ${server.url} (pid ${process.pid}, kinds ${Object.keys(gameDefinitions).join(", ")}, exits after ${o.maxSeconds} s)`);
      const stop = async (): Promise<void> => {
        await server.close();
        process.exit(0);
      };
      setTimeout(() => void stop(), o.maxSeconds * 1000);
      process.once("SIGTERM", () => void stop());
      process.once("SIGINT", () => void stop());
    });
}
