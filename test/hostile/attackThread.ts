/**
 * Runs one attack in a worker thread, so the attacker's client-side work (opening and tearing
 * down sockets, parsing refusals) does not sit in the event loop that timestamps the honest
 * players' acks. Attacker and honest players are different machines in reality; here they still
 * share the box's cores, so the server-side cost of the attack is all still measured.
 */
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { runAttack, type AttackName, type AttackTally } from "./attacks";

interface AttackJob {
  /** Marks this thread as ours (test runners run test files in worker threads too). */
  hostileAttack: true;
  attack: AttackName;
  url: string;
  /** Milliseconds to run: thread clocks have their own origins, so no absolute deadline crosses. */
  durationMs: number;
}

/** Runs `attack` against `url` for `durationMs` in a worker thread; resolves with its tally. */
export function runAttackInThread(attack: AttackName, url: string, durationMs: number): Promise<AttackTally> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { hostileAttack: true, attack, url, durationMs } satisfies AttackJob,
      // The workspace is TypeScript source; the thread needs the same loader as the test.
      execArgv: ["--import", "tsx"],
    });
    let tally: AttackTally | null = null;
    // Bounded even if the thread hangs: the attack itself stops at its deadline.
    const guard = setTimeout(() => void worker.terminate(), durationMs + 15_000);
    worker.once("message", (t: AttackTally) => (tally = t));
    worker.once("error", (e) => {
      clearTimeout(guard);
      reject(e);
    });
    worker.once("exit", (code) => {
      clearTimeout(guard);
      if (tally) resolve(tally);
      else reject(new Error(`attack thread exited with code ${code} and no tally`));
    });
  });
}

if (!isMainThread && parentPort && (workerData as Partial<AttackJob> | null)?.hostileAttack === true) {
  const job = workerData as AttackJob;
  const tally = await runAttack(job.attack, job.url, performance.now() + job.durationMs);
  parentPort.postMessage(tally);
}
