import { ClientView, declaredEventDecoder, type Schema, type SchemaDecl } from "@tikron/protocol";
import type { StateDecoder } from "./decoder";

/** Options of {@link schemaDecoder}. */
export interface SchemaDecoderOptions<D extends SchemaDecl> {
  /** Decodes one event body (binary rooms: bytes valid only during the call). Default: the schema's declared events, else the bytes as is. */
  decodeEvent?: (body: Uint8Array | unknown) => unknown;
}

/**
 * The {@link StateDecoder} of a binary room with a declared entity schema: applies each frame's
 * delta body to a {@link ClientView} and refuses to join a room of a different schema.
 *
 * `state` is the live view itself (updated in place, never copied), so reading it per frame
 * costs nothing; use `view.get(id)` / `view.values()` to read entities.
 *
 * A body the view rejects is thrown as its `DecodeError`, which the connection reports as a
 * local `bad_frame` error before dropping the socket: the stream is reliable and ordered, so a
 * bad body means the view is out of step and only a fresh join (a fresh baseline) can fix it.
 *
 * @example
 * ```ts
 * const conn = connect(url, { kind: "agar", room: "lobby", decoder: schemaDecoder(agarSchema) });
 * conn.on("state", (f) => { for (const e of f.state.values()) draw(e.type, e.record); });
 * ```
 */
export function schemaDecoder<D extends SchemaDecl>(schema: Schema<D>, options: SchemaDecoderOptions<D> = {}): StateDecoder<ClientView<D>> {
  const view = new ClientView(schema);
  return {
    schemaHash: schema.hash,
    reset() {
      view.clear();
    },
    apply(body) {
      // A body that is not bytes (a JSON room's) fails in the view as undecodable; the welcome's
      // schema hash refuses such a room before any body anyway.
      const err = view.apply(body as Uint8Array);
      if (err !== null) throw err;
    },
    get state() {
      return view;
    },
    decodeEvent: options.decodeEvent ?? (schema.events ? (declaredEventDecoder(schema.events) as (body: unknown) => unknown) : undefined),
  };
}
