import { parentPort, workerData } from "node:worker_threads";
import { runShard, type ShardSpec } from "./shardRun";

/**
 * Entry of a generator worker thread. Reports "ready" once its modules are loaded, waits for the
 * common start time, runs its shard and posts the result.
 */
const port = parentPort;
if (!port) throw new Error("workerMain must run in a worker thread");
const spec = workerData as Omit<ShardSpec, "startAtEpochMs">;

port.on("message", (msg: { type: "start"; startAtEpochMs: number }) => {
  if (msg.type !== "start") return;
  runShard({ ...spec, startAtEpochMs: msg.startAtEpochMs }).then(
    (result) => port.postMessage({ type: "result", result }),
    (err: unknown) => port.postMessage({ type: "error", message: err instanceof Error ? err.stack ?? err.message : String(err) }),
  );
});
port.postMessage({ type: "ready" });
