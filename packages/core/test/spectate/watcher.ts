/**
 * A spectator socket in memory for the spectator tests: it keeps what the room sent it and
 * decodes it as a client would (its view cleared at every welcome, each delta applied; a
 * bundle's frames one by one, in order).
 */
import { ClientView, DecodeError, binaryDialect, binaryRequests, isBundle, readAnswer, readBundle, type DecodedServerMessage, type Schema, type SpectateRequest } from "@tikron/protocol";
import type { Connection } from "../../src";

/** What a spectator socket is opened on: a room or a relay. */
export interface Watched {
  spectate(conn: Connection, req: SpectateRequest): number;
  message(connId: number, data: Uint8Array): void;
  closed(connId: number, code: number): void;
}

/** One spectator socket of a room, decoding what it gets. */
export class Watcher implements Connection {
  readonly view: ClientView;
  readonly messages: DecodedServerMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  /** What `bufferedAmount` answers (a socket behind when large). */
  buffered = 0;
  frames = 0;
  /** Messages received (a bundle is one), and bundles among them. */
  received = 0;
  bundles = 0;
  welcomes = 0;
  id = -1;

  constructor(
    private readonly room: Watched,
    schema: Schema,
  ) {
    this.view = new ClientView(schema);
  }

  /** Opens the socket as a spectator and says hello. */
  open(req: SpectateRequest): this {
    this.id = this.room.spectate(this, req);
    if (this.id >= 0) this.say(binaryDialect.hello("", "watcher") as Uint8Array);
    return this;
  }

  /** Sends one client message. */
  say(data: Uint8Array): void {
    this.room.message(this.id, data);
  }

  /** Asks to watch another target (a `tk:follow` request). */
  follow(target: object, requestId = 1): void {
    this.say(binaryRequests.message(requestId, "tk:follow", JSON.stringify(target)) as Uint8Array);
  }

  /** Closes the socket from the client's side. */
  drop(): void {
    this.room.closed(this.id, 1000);
  }

  /** The view as `id → record` JSON, to compare two spectators' views. */
  entities(): Record<number, string> {
    const out: Record<number, string> = {};
    for (const e of this.view.values()) out[e.id] = JSON.stringify(e.record);
    return out;
  }

  send(data: Uint8Array | string): void {
    this.received++;
    if (data instanceof Uint8Array && isBundle(data)) {
      const frames = readBundle(data);
      if (frames instanceof DecodeError) throw new Error(`spectator got a bad bundle: ${frames.message}`);
      this.bundles++;
      for (const f of frames) this.take(f);
      return;
    }
    this.take(data);
  }

  private take(data: Uint8Array | string): void {
    const m = binaryDialect.decode(data, readAnswer);
    if (m === null || m instanceof DecodeError) throw new Error(`spectator got an undecodable message: ${String(m)}`);
    this.messages.push(m);
    if (m.kind === "welcome") {
      this.welcomes++;
      this.view.clear();
    } else if (m.kind === "frame") {
      this.frames++;
      if (m.hasState && m.body instanceof Uint8Array) {
        const err = this.view.apply(m.body);
        if (err) throw new Error(`spectator's delta does not decode: ${err.message}`);
      }
    }
  }

  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }

  bufferedAmount(): number {
    return this.buffered;
  }
}
