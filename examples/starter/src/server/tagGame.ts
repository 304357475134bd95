import { messageHandlers, type Game, type GameContext, type GameDefinition, type InputRejection, type Player } from "@tikron/core";
import { SyncWorld } from "@tikron/core/sync";
import type { EntityRecord, PlayerOptionsOf } from "@tikron/protocol";
import { TAG_COLORS, TAG_KIND, TAG_RULES, checkChat, decodeTagInput, tagJoinOptions, tagSchema, type TagInput, type tagGame } from "../shared/tag";

/** Who joins a tag room, as the room hands it to the game: its join options are tagGame's. */
type TagPlayer = Player<PlayerOptionsOf<typeof tagGame>>;

type PlayerRecord = EntityRecord<(typeof tagSchema.decl)["player"]>;

interface Runner {
  playerId: number;
  entity: number;
  rec: PlayerRecord;
  input: TagInput;
  /** Room time before which this player cannot tag (fresh "it"). */
  canTagAt: number;
  /** False while the seat is held for a reconnect. */
  connected: boolean;
}

/**
 * Tag: one player is "it" and tags whoever they touch, who then becomes "it". The room core
 * seats players, queues inputs and flushes state; this class only simulates. Every player
 * sees every other one (a small arena), so entities are spawned `global`.
 */
export class TagGame implements Game<TagInput> {
  readonly kind = TAG_KIND;
  readonly ticking = true;
  readonly world = new SyncWorld(tagSchema, { tiers: [{ radius: TAG_RULES.world, every: 1 }] });
  readonly sync = { mode: "binary" as const, encoder: this.world.encoder };
  private readonly runners = new Map<number, Runner>();
  private ctx: GameContext<typeof tagGame> | null = null;

  init(ctx: GameContext<typeof tagGame>): void {
    this.ctx = ctx;
  }

  /**
   * A new player: its entity, named by its verified sign-in name when the Worker hands games one
   * (`AUTH_CLAIMS=name`; `player.claims`), else the name its hello chose, in the color it chose
   * (its join option, checked by the room; grey when it chose none).
   */
  join(player: TagPlayer): void {
    const { playerId } = player;
    const signedIn = player.claims.name;
    const rec: PlayerRecord = {
      x: TAG_RULES.world * (0.2 + 0.6 * Math.random()),
      y: TAG_RULES.world * (0.2 + 0.6 * Math.random()),
      it: this.runners.size === 0,
      tags: 0,
      name: typeof signedIn === "string" && signedIn !== "" ? signedIn : player.name || `p${playerId}`,
      color: TAG_COLORS.indexOf(player.options.color),
    };
    const entity = this.world.spawn("player", rec, { global: true });
    this.runners.set(playerId, { playerId, entity, rec, input: { dx: 0, dy: 0 }, canTagAt: 0, connected: true });
    this.tellEntity(playerId, entity);
  }

  /** A player back inside the reconnection window starts from a fresh view: tell them again. */
  reconnected({ playerId }: TagPlayer): void {
    const r = this.runners.get(playerId);
    if (!r) return;
    r.connected = true;
    this.tellEntity(playerId, r.entity);
  }

  /** Tells one player which entity is theirs (the schema's `youAre` event, at the next flush). */
  private tellEntity(playerId: number, entity: number): void {
    this.ctx?.emit({ kind: "youAre", entity }, [playerId]);
  }

  /** A dropped player stands still while their seat is held. */
  disconnected(playerId: number): void {
    const r = this.runners.get(playerId);
    if (!r) return;
    r.input = { dx: 0, dy: 0 };
    r.connected = false;
  }

  leave(playerId: number): void {
    const r = this.runners.get(playerId);
    if (!r) return;
    this.world.despawn(r.entity);
    this.world.removeViewer(playerId);
    this.runners.delete(playerId);
    // Someone must always be "it" while anyone plays.
    const next = this.runners.values().next();
    if (r.rec.it && !next.done) next.value.rec.it = true;
  }

  /**
   * Room messages, typed by the declaration's `TagMessages`: a chat line goes to everyone
   * connected as a `chat` notice at the next flush, and the sender hears how many that was.
   */
  readonly onMessage = messageHandlers<typeof tagGame>({
    chat: {
      check: checkChat,
      handle: (playerId, { text }) => {
        const from = this.runners.get(playerId)?.rec.name ?? `p${playerId}`;
        this.ctx?.broadcast("chat", { from, text });
        this.ctx?.count("chats");
        let heardBy = 0;
        for (const r of this.runners.values()) if (r.connected) heardBy++;
        return { heardBy };
      },
    },
  });

  decodeInput(payload: Uint8Array | unknown): TagInput | InputRejection {
    return decodeTagInput(payload);
  }

  applyInput(playerId: number, input: TagInput): void {
    const r = this.runners.get(playerId);
    if (r) r.input = input;
  }

  tick(now: number, dtMs: number): void {
    const step = (TAG_RULES.speed * dtMs) / 1000;
    let it: Runner | undefined;
    for (const r of this.runners.values()) {
      const { dx, dy } = r.input;
      if (dx !== 0 || dy !== 0) {
        const scale = (r.rec.it ? TAG_RULES.itSpeedFactor : 1) * (dx !== 0 && dy !== 0 ? Math.SQRT1_2 : 1);
        r.rec.x = clamp(r.rec.x + dx * step * scale, EDGE, TAG_RULES.world - EDGE);
        r.rec.y = clamp(r.rec.y + dy * step * scale, EDGE, TAG_RULES.world - EDGE);
      }
      if (r.rec.it) it = r;
    }
    if (!it || now < it.canTagAt) return;
    for (const r of this.runners.values()) {
      if (r === it || Math.hypot(r.rec.x - it.rec.x, r.rec.y - it.rec.y) > TAG_RULES.tagRadius) continue;
      it.rec.it = false;
      it.rec.tags++;
      r.rec.it = true;
      r.canTagAt = now + TAG_RULES.tagCooldownMs;
      this.ctx?.count("tags");
      break;
    }
  }
}

/** Players stay whole inside the arena: their centers keep half a tag radius from the walls. */
const EDGE = TAG_RULES.tagRadius / 2;

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** The room kinds this Worker hosts, by kind name: the one list the gateway and rooms share. */
export const games: Readonly<Record<string, GameDefinition>> = {
  [TAG_KIND]: {
    kind: TAG_KIND,
    // 20 ticks and 20 state frames a second, at most 8 players per room.
    defaults: { tickMs: 50, syncIntervalMs: 50, cap: 8 },
    create: () => new TagGame(),
    // The join options players may choose: the same constant the page's declaration names.
    joinOptions: tagJoinOptions,
  },
};
