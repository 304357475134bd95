import type { RoomConnection } from "./roomConnection";
import type { SnapshotBuffer } from "./snapshotBuffer";
import type { WelcomeInfo } from "./wire";

/**
 * Keeps `buffer` in step with `conn`, from the connection's events: the buffer learns the room's
 * send interval from each welcome and CADENCE, is carried into the new room's clock when the room
 * restarted (the same room on a new epoch: `SnapshotBuffer.rebase`), and starts over when the
 * connection switches rooms (`switchTo`: at once when that drops a socket, else at the new
 * room's welcome). {@link createInterpolatedView} attaches its own buffer; this is for a buffer
 * fed by hand. Any number of buffers may follow one connection. Returns a function that detaches
 * the buffer again.
 */
export function attachSnapshots(conn: RoomConnection<any>, buffer: SnapshotBuffer): () => void {
  // The room (kind and id) and epoch of the last welcome: another room starts a new timeline, the
  // same room on another epoch is the restart of its instance.
  let room = "";
  let epoch = 0;
  const follow = (w: WelcomeInfo): void => {
    room = `${conn.kind}/${conn.room}`;
    epoch = w.roomEpoch;
    if (w.syncIntervalMs > 0) buffer.setSendInterval(w.syncIntervalMs);
  };
  if (conn.welcome) follow(conn.welcome);
  const off = [
    conn.on("welcome", (w) => {
      if (`${conn.kind}/${conn.room}` !== room) buffer.clear();
      else if (w.roomEpoch !== epoch) buffer.rebase(w.roomEpoch - epoch);
      follow(w);
    }),
    conn.on("cadence", (c) => buffer.setSendInterval(c.syncIntervalMs)),
    // `switchTo` forgets the welcome before it drops the socket: the old room's entities go now.
    conn.on("close", () => conn.welcome || buffer.clear()),
  ];
  return () => off.forEach((f) => f());
}
