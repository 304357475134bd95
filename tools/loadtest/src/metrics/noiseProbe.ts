import { round2 } from "./round2";
import { ON_SCHEDULE_TOLERANCE_MS } from "./scheduleAccounting";

/** How punctual an otherwise idle timer was: the machine's scheduling noise floor. */
export interface NoiseProbe {
  seconds: number;
  wakeups: number;
  /** Share of wake-ups within ON_SCHEDULE_TOLERANCE_MS of their due time. */
  onTimePct: number;
  p99LateMs: number;
  maxLateMs: number;
}

/**
 * Runs a fixed-schedule timer (every `periodMs`) for `seconds` with nothing else to do and
 * measures its lateness. If this idle timer already misses the on-schedule bar, the machine (other
 * processes, CPU steal) is the limit, and a generator benchmark on it cannot be conclusive.
 */
export async function probeTimerNoise(seconds = 3, periodMs = 5): Promise<NoiseProbe> {
  const lates: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  let due = start + periodMs;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      lates.push(Math.max(0, now - due));
      due += periodMs;
      // Skip slots already missed, like a sender that batches them: one sample per wake-up.
      while (due <= now) due += periodMs;
      if (due >= end) resolve();
      else setTimeout(tick, due - performance.now());
    };
    setTimeout(tick, periodMs);
  });
  lates.sort((a, b) => a - b);
  const onTime = lates.filter((l) => l <= ON_SCHEDULE_TOLERANCE_MS).length;
  return {
    seconds,
    wakeups: lates.length,
    onTimePct: lates.length ? round2((onTime / lates.length) * 100) : 100,
    p99LateMs: lates.length ? round2(lates[Math.min(lates.length - 1, Math.ceil(lates.length * 0.99) - 1)]) : 0,
    maxLateMs: lates.length ? round2(lates[lates.length - 1]) : 0,
  };
}
