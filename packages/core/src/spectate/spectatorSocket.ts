/**
 * A spectator's socket as its hub sees it: what it needs of a host's `Connection` (host.ts),
 * which fits it as is. Its own shape, so spectate/ imports nothing of the host's contract (the
 * room, which the host's contract names, is above it).
 */
export interface SpectatorSocket {
  /** Sends one message: a view of a reused writer, valid during the call (see `Connection.send`). */
  send(data: Uint8Array | string): void;
  /** Closes the socket with an application close code and a short reason. */
  close(code: number, reason: string): void;
  /** Bytes queued but not yet written to the network (0 where the runtime does not say). */
  bufferedAmount(): number;
}
