import { describe, expect, it } from "vitest";
import { FakeClock, createRoom, type Connection, type Room } from "@tikron/core";
import { BinaryWriter, PROTOCOL_VERSION, ReceiptCounter, encodeHello, encodeReceipt } from "@tikron/protocol";
import { gameDefinitions } from "../src";

/**
 * Counts what reaches one socket after a point in time, and confirms what it read with receipts
 * like every real client (a client that never confirms is sent less: reliability backpressure).
 */
class Meter implements Connection {
  counting = false;
  bytes = 0;
  frames = 0;
  connId = -1;
  private readonly receipts = new ReceiptCounter();
  constructor(
    private readonly room: () => Room,
    private readonly clock: FakeClock,
  ) {}
  send(d: Uint8Array | string): void {
    if (this.receipts.read(this, d)) {
      const { messages, units } = this.receipts;
      // Off the room's send path, as a socket would deliver it.
      this.clock.setTimer(() => this.room().message(this.connId, encodeReceipt(new BinaryWriter(16), messages, units).toBytes()), 0);
    }
    if (!this.counting || typeof d === "string") return;
    this.bytes += d.byteLength;
    this.frames++;
  }
  close(): void {}
  bufferedAmount(): number {
    return 0;
  }
}

describe("idle frames: what an idle room costs per client", () => {
  for (const kind of ["movement", "fps"]) {
    it(`${kind}: 10 players standing still get about 4 header-only frames a second, a few bytes each`, () => {
      const clock = new FakeClock();
      const room = createRoom(gameDefinitions[kind]!, { kind, roomId: "idle", clock });
      const meters: Meter[] = [];
      for (let i = 0; i < 10; i++) {
        const m = new Meter(() => room, clock);
        m.connId = room.open(m);
        room.message(m.connId, encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: `p${i}` }).toBytes());
        meters.push(m);
      }
      clock.advance(2000); // everyone has the initial state
      for (const m of meters) m.counting = true;
      const seconds = 60;
      clock.advance(seconds * 1000);
      const bytesPerClientSec = meters.reduce((a, m) => a + m.bytes, 0) / meters.length / seconds;
      const framesPerClientSec = meters.reduce((a, m) => a + m.frames, 0) / meters.length / seconds;
      // Printed for PERFORMANCE.md ("Idle frames"); asserted so a regression fails.
      console.log(`${kind}: idle client receives ${framesPerClientSec.toFixed(2)} frames/s, ${bytesPerClientSec.toFixed(1)} B/s of payload`);
      // One per idleFrameMs (250), on the first flush at or after it: 4/s at 50 ms ticks, 1000/264 at 33.
      const tickMs = room.options.tickMs;
      expect(framesPerClientSec).toBeGreaterThanOrEqual(1000 / (250 + tickMs) - 0.01);
      expect(framesPerClientSec).toBeLessThanOrEqual(4.01);
      expect(bytesPerClientSec / framesPerClientSec).toBeLessThanOrEqual(12);
    });
  }
});
