/**
 * Two small games for the test harness's own tests, each with its client declaration: `dots`
 * (binary, ticking: a dot per player steered by one byte, declared events, room messages,
 * notices) and `tally` (JSON, turn-based: players add to a shared count).
 */
import {
  defineEvents,
  defineGameTypes,
  defineMessages,
  defineNotices,
  defineSchema,
  quant,
  refuseMessage,
  reject,
  string,
  varuint,
  type BinaryWriter,
  type EntityRecord,
  type EventOf,
  type InputRejection,
  jsonDialect,
} from "@tikron/protocol";
import { messageHandlers, type Game, type GameContext, type GameDefinition, type Player } from "../../src";
import { SyncWorld } from "../../src/sync";

/** `moved`: a player's dot moved to `x` (to everyone); `yours`: your dot's entity id (to you). */
export const dotsEvents = defineEvents({
  moved: { player: varuint(), x: quant(0, 1000, 1 / 8) },
  yours: { entity: varuint() },
});

export const dotsSchema = defineSchema({ dot: { x: quant(0, 1000, 1 / 8), y: quant(0, 1000, 1 / 8), name: string(16) } }, { events: dotsEvents });

/** A step on the x axis. */
export interface DotsInput {
  dx: -1 | 0 | 1;
}

export interface DotsMessages {
  echo: { request: { n: number }; response: { n: number; from: number } };
  shout: { request: { text: string }; response: void };
}

/** `shouted`: someone's shout (to everyone); `told`: a word for one player. */
export interface DotsNotices {
  shouted: { from: number; text: string };
  told: { text: string };
}

export function encodeDotsInput(w: BinaryWriter, input: DotsInput): Uint8Array {
  return w.reset().u8(input.dx + 1).toBytes();
}

export const dotsTypes = defineGameTypes<DotsInput>()({
  kind: "dots",
  schema: dotsSchema,
  encodeInput: (input, w) => encodeDotsInput(w, input),
  messages: defineMessages<DotsMessages>(),
  notices: defineNotices<DotsNotices>(),
});

/** The events a dots client reads (the schema's declared ones). */
export type DotsEvent = EventOf<typeof dotsTypes>;

/** Units a dot moves per applied input. */
export const DOT_STEP = 10;

export class DotsGame implements Game<DotsInput> {
  readonly kind = "dots";
  readonly ticking = true;
  readonly world = new SyncWorld(dotsSchema, { tiers: [{ radius: 1000, every: 1 }] });
  readonly sync = { mode: "binary" as const, encoder: this.world.encoder };
  readonly dots = new Map<number, { entity: number; rec: EntityRecord<(typeof dotsSchema.decl)["dot"]> }>();
  ctx!: GameContext<typeof dotsTypes>;

  init(ctx: GameContext<typeof dotsTypes>): void {
    this.ctx = ctx;
  }

  join({ playerId, name }: Player): void {
    const rec = { x: 500, y: 500, name };
    const entity = this.world.spawn("dot", rec, { global: true });
    this.dots.set(playerId, { entity, rec });
    this.ctx.emit({ kind: "yours", entity }, [playerId]);
  }

  reconnected({ playerId }: Player): void {
    const d = this.dots.get(playerId);
    if (d) this.ctx.emit({ kind: "yours", entity: d.entity }, [playerId]);
  }

  leave(playerId: number): void {
    const d = this.dots.get(playerId);
    if (!d) return;
    this.world.despawn(d.entity);
    this.world.removeViewer(playerId);
    this.dots.delete(playerId);
  }

  decodeInput(payload: unknown): DotsInput | InputRejection {
    if (!(payload instanceof Uint8Array) || payload.length !== 1 || payload[0]! > 2) return reject("bad_input", "one byte, 0-2");
    return { dx: (payload[0]! - 1) as DotsInput["dx"] };
  }

  applyInput(playerId: number, input: DotsInput): void {
    const d = this.dots.get(playerId);
    if (!d) return;
    d.rec.x += input.dx * DOT_STEP;
    this.ctx.emit({ kind: "moved", player: playerId, x: d.rec.x });
  }

  tick(_now: number, _dtMs: number): void {}

  readonly onMessage = messageHandlers<typeof dotsTypes>({
    echo: {
      check: (p) => (typeof (p as { n?: unknown } | null)?.n === "number" ? (p as { n: number }) : refuseMessage("bad_message", "echo needs { n: number }")),
      handle: (playerId, { n }) => (n < 0 ? refuseMessage("illegal_move", "no negative echoes") : { n, from: playerId }),
    },
    shout: {
      check: (p) => (typeof (p as { text?: unknown } | null)?.text === "string" ? (p as { text: string }) : refuseMessage("bad_message", "shout needs { text: string }")),
      handle: (playerId, { text }) => {
        this.ctx.broadcast("shouted", { from: playerId, text });
        this.ctx.send(playerId, "told", { text: "you shouted" });
      },
    },
  });
}

export const dotsDefinition: GameDefinition = { kind: "dots", defaults: { tickMs: 50, syncIntervalMs: 50, cap: 4 }, create: () => new DotsGame() };

/** What each tally player sees. */
export interface TallyView {
  total: number;
  you: number;
  players: number;
}

/** Add 1-10 to the shared total. */
export interface TallyInput {
  add: number;
}

/** `milestone`: the total passed a multiple of 10 (to everyone). */
export interface TallyNotices {
  milestone: { total: number };
}

export const tallyTypes = defineGameTypes<TallyInput, { added: number; by: number }, TallyView>()({ kind: "tally", json: jsonDialect, notices: defineNotices<TallyNotices>() });

export class TallyGame implements Game<TallyInput> {
  readonly kind = "tally";
  readonly ticking = false;
  total = 0;
  readonly players = new Set<number>();
  readonly sync = { mode: "json" as const, source: { viewFor: (playerId: number): TallyView => ({ total: this.total, you: playerId, players: this.players.size }) } };
  private ctx!: GameContext<typeof tallyTypes>;

  init(ctx: GameContext<typeof tallyTypes>): void {
    this.ctx = ctx;
  }
  join({ playerId }: Player): void {
    this.players.add(playerId);
    this.ctx.markChanged();
  }
  leave(playerId: number): void {
    this.players.delete(playerId);
    this.ctx.markChanged();
  }
  decodeInput(payload: unknown): TallyInput | InputRejection {
    const add = (payload as { add?: unknown } | null)?.add;
    return typeof add === "number" && Number.isInteger(add) && add >= 1 && add <= 10 ? { add } : reject("bad_input", "add 1-10");
  }
  applyInput(playerId: number, input: TallyInput): void {
    const before = this.total;
    this.total += input.add;
    this.ctx.emit({ added: input.add, by: playerId });
    if (Math.floor(this.total / 10) > Math.floor(before / 10)) this.ctx.broadcast("milestone", { total: this.total });
    this.ctx.markChanged();
  }
  tick(): void {}
}

export const tallyDefinition: GameDefinition = { kind: "tally", defaults: { cap: 3 }, create: () => new TallyGame() };
