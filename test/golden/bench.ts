/**
 * The TypeScript SDK's decode cost per frame over the golden frames (PERFORMANCE.md, "Client
 * decode cost"): each binary scenario's server messages decoded as the SDK decodes them (message,
 * delta body into a `ClientView`, declared events), again and again; the median of `--runs`
 * timed passes. The C# SDK's twin: `dotnet packages/client-dotnet/test/Tikron.Client.Live/bin/Release/net10.0/Tikron.Client.Live.dll bench`.
 *
 * `bash scripts/toolchain.sh tsx test/golden/bench.ts [--runs 5]`
 */
import { parseArgs } from "node:util";
import { ClientView, decodeServerMessage, isDecodeError, type Schema } from "@tikron/protocol";
import { agarSchema, fpsSchema, movementSchema } from "@tikron/games";
import { readGolden } from "./files";
import type { Golden } from "./record";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const schemas: Record<string, Schema> = { agar: agarSchema, movement: movementSchema, fps: fpsSchema };
for (const [name, schema] of Object.entries(schemas)) {
  const g = JSON.parse(readGolden(name)) as Golden;
  const frames = g.messages.filter((m) => m.from === "server").map((m) => new Uint8Array(Buffer.from(m.hex!, "hex")));
  const bytes = frames.reduce((n, f) => n + f.length, 0);
  const passes = Math.max(1, Math.floor(2_000_000 / frames.length / 10));
  const pass = (): void => {
    const view = new ClientView(schema);
    for (const f of frames) {
      const m = decodeServerMessage(f);
      if (isDecodeError(m)) throw m;
      if (m.kind !== "frame") continue;
      if (m.hasState) {
        const err = view.apply(m.body!);
        if (err) throw err;
      }
      for (const e of m.events) schema.events!.decode(e);
    }
  };
  for (let i = 0; i < passes; i++) pass();
  const ns: number[] = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const t0 = performance.now();
    for (let i = 0; i < passes; i++) pass();
    ns.push(((performance.now() - t0) * 1e6) / (passes * frames.length));
  }
  ns.sort((a, b) => a - b);
  console.log(JSON.stringify({ client: "typescript", scenario: name, frames: frames.length, bytesPerFrame: Math.round((bytes / frames.length) * 10) / 10, nsPerFrame: Math.round(ns[ns.length >> 1]!), runs: ns.length }));
}
