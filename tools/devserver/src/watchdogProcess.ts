import { spawn, type ChildProcess } from "node:child_process";

/**
 * Starts `script` in a detached Node process whose stdin is a pipe from this one: the pipe ends
 * when this process dies, however it dies (even SIGKILL), which the script uses as its cue to
 * clean up what this process started. Neither the child nor its pipe keeps this process alive.
 */
export function launchWatchdog(script: string): ChildProcess | undefined {
  try {
    const watchdog = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    watchdog.on("error", () => {});
    watchdog.stdin?.on("error", () => {});
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return watchdog;
  } catch {
    return undefined;
  }
}
