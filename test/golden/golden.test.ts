/**
 * The golden files, from the TypeScript side: they are what the current code records (a protocol
 * change that was not written down with `npm run golden` fails here, and once written, the C#
 * tests read the new files), and the SDK's own connection, fed their server messages over a fake
 * socket, says the hello they start with and decodes every welcome, frame, event, reply, error
 * and notice to what they hold. The C# SDK's tests (packages/client-dotnet) read the same files.
 */
import { BinaryWriter, type AnyGameTypes } from "@tikron/protocol";
import { connect, withMessages, type RoomConnection } from "@tikron/client";
import { agarTypes, fpsTypes, movementTypes, tttTypes } from "@tikron/games";
import { describe, expect, it } from "vitest";
import { dotsTypes } from "../../packages/core/test/testing/games";
import { GOLDEN_NAMES, goldenText, readGolden } from "./files";
import { clientMessages, recordAll, type Golden } from "./record";

const TYPES: Record<string, AnyGameTypes> = { agar: agarTypes, movement: movementTypes, fps: fpsTypes, dots: dotsTypes, "ttt-json": tttTypes };

const recorded = recordAll();

describe("golden files", () => {
  it.each(GOLDEN_NAMES)("%s is what the current code records (npm run golden writes it again)", async (name) => {
    const g = (await recorded).find((x) => x.name === name)!;
    expect(goldenText(g), `test/golden/${name}.json is stale: the protocol or the room changed. Run npm run golden and update every client (packages/client-dotnet).`).toBe(readGolden(name));
  });

  it("client-messages.json is what each dialect writes now", () => {
    expect(goldenText(clientMessages())).toBe(readGolden("client-messages"));
  });

  it.each(GOLDEN_NAMES)("%s: each input encodes to its payload with the game's codec", (name) => {
    const g = JSON.parse(readGolden(name)) as Golden;
    const types = TYPES[name]!;
    const w = new BinaryWriter(64);
    for (const input of g.inputs) {
      const payload = types.encodeInput(input.value, w);
      expect(payload instanceof Uint8Array ? Buffer.from(payload).toString("hex") : payload).toEqual(input.payload);
    }
  });

  it.each(GOLDEN_NAMES)("%s: the SDK's connection says its hello and decodes every server message to what the file holds", (name) => {
    const g = JSON.parse(readGolden(name)) as Golden;
    const types = TYPES[name]!;
    const sent: (string | Uint8Array)[] = [];
    let socket: FakeSocket | undefined;
    class FakeSocket {
      binaryType = "arraybuffer";
      readyState = 1;
      onopen: (() => void) | null = null;
      onmessage: ((ev: { data: unknown }) => void) | null = null;
      onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
      onerror: (() => void) | null = null;
      constructor(readonly url: string) {
        socket = this;
      }
      send(data: string | Uint8Array): void {
        sent.push(data);
      }
      close(): void {
        this.readyState = 3;
      }
    }
    const conn = withMessages(connect("ws://golden.test", { game: types, room: `golden-${name}`, name: "rec", WebSocketImpl: FakeSocket as never, reconnect: false, pingIntervalMs: 1e6 })) as RoomConnection<any, any, any> & ReturnType<typeof withMessages>;
    const events: unknown[] = [];
    const notices: unknown[] = [];
    const errors: unknown[] = [];
    conn.on("event", (e) => events.push(e.body));
    conn.on("notice", (n) => notices.push(n));
    conn.on("error", (e) => errors.push(e));
    socket!.onopen!();
    const hello = g.messages.find((m) => m.from === "client" && m.what === "hello")!;
    expect(wire(sent[0]!)).toEqual(hello.hex ?? hello.text);
    let frames = 0;
    for (const m of g.messages) {
      if (m.from !== "server") continue;
      events.length = notices.length = errors.length = 0;
      socket!.onmessage!({ data: m.hex ? new Uint8Array(Buffer.from(m.hex, "hex")).buffer : m.text });
      const d = m.decoded as { kind: string; [k: string]: unknown };
      expect(errors.filter((e) => (e as { local: boolean }).local)).toEqual([]);
      if (d.kind === "welcome") expect(conn.welcome).toEqual({ ...d, kind: undefined });
      if (d.kind === "frame") {
        frames++;
        expect(conn.stats.frames).toBe(frames);
        if (g.dialect === "binary") {
          const view = [...conn.state.values()].sort((a: { id: number }, b: { id: number }) => a.id - b.id).map(entityJson);
          expect(view).toEqual(d.entities);
          expect(events).toEqual(d.events);
        } else {
          if (d.hasState) expect(conn.state).toEqual(d.state);
          expect(events).toEqual(d.events);
        }
      }
      if (d.kind === "notice") expect(notices).toEqual([{ type: d.type, data: d.data }]);
      if (d.kind === "error") expect(errors).toEqual([{ code: d.code, reason: d.reason, retryAfterMs: d.retryAfterMs, local: false }]);
    }
    expect(frames).toBeGreaterThan(5);
    expect(conn.stats.decodeErrors).toBe(0);
    conn.close({ leave: false });
  });
});

function wire(data: string | Uint8Array): string {
  return typeof data === "string" ? data : Buffer.from(data).toString("hex");
}

function entityJson(e: { id: number; type: string; record: Record<string, unknown> }): unknown {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.record)) {
    fields[k] = v instanceof Map ? Object.fromEntries([...v.entries()].sort((a, b) => a[0] - b[0]).map(([mk, mv]) => [String(mk), mv])) : v;
  }
  return { id: e.id, type: e.type, fields };
}
