import { parentPort, workerData } from "node:worker_threads";
import type { ThreadTick } from "../live/threadTick";
import { loadScenarioFile } from "../scenarios/index";
import { runShard } from "./shardRun";
import { ticketSource } from "../players/tickets";
import type { WorkerInit } from "./workers";

/**
 * Entry of a generator worker thread. Reports "ready" once its modules (and any scenario file)
 * are loaded, waits for the common start time, posts a tick every second, stops early on
 * "abort", and posts the result.
 */
const port = parentPort;
if (!port) throw new Error("workerMain must run in a worker thread");
const { spec, tickets, live } = workerData as WorkerInit;
const abort = new AbortController();

port.on("message", (msg: { type: "start"; startAtEpochMs: number } | { type: "abort" }) => {
  if (msg.type === "abort") return abort.abort();
  if (msg.type !== "start") return;
  runShard(
    { ...spec, startAtEpochMs: msg.startAtEpochMs },
    {
      ...(live ? { onTick: (tick: ThreadTick) => port.postMessage({ type: "tick", tick }) } : {}),
      encodeTicks: true,
      signal: abort.signal,
      tickets: tickets ? ticketSource(tickets) : null,
    },
  ).then(
    (result) => port.postMessage({ type: "result", result }),
    (err: unknown) => port.postMessage({ type: "error", message: err instanceof Error ? err.stack ?? err.message : String(err) }),
  );
});

const ready = spec.config.scenarioFile ? loadScenarioFile(spec.config.scenarioFile).then(() => undefined) : Promise.resolve();
ready.then(
  () => port.postMessage({ type: "ready" }),
  (err: unknown) => port.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) }),
);
