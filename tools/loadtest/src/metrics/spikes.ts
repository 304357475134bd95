/**
 * An input whose ack takes longer than this is a spike: players feel a stall of a second or
 * more, whatever the percentiles say.
 */
export const SPIKE_THRESHOLD_MS = 1000;

/**
 * One ack resolving a batch of inputs is one stall, not one per input: the oldest input in the
 * batch has the largest RTT, so only it decides.
 */
export function isSpike(oldestRttMs: number): boolean {
  return oldestRttMs > SPIKE_THRESHOLD_MS;
}
