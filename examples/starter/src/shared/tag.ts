/**
 * Everything the Worker and the browser both need to know about the game: the entity schema,
 * the input codec and the rules' numbers. It imports only `@tikron/protocol`, so the browser
 * bundle carries no room code.
 */
import { BinaryReader, bool, defineSchema, quant, reject, string, varuint, type BinaryWriter, type InputRejection } from "@tikron/protocol";

/** The room kind clients join: `/rooms/tag/<roomId>`. */
export const TAG_KIND = "tag";

/** Rules of a tag round, in world units and milliseconds. */
export const TAG_RULES = {
  /** Edge of the square arena. */
  world: 800,
  /** Walking speed (units/s); whoever is "it" runs a little faster so tags happen. */
  speed: 160,
  itSpeedFactor: 1.15,
  /** Two players touch when their centers are this close. */
  tagRadius: 24,
  /** A fresh "it" cannot tag straight back for this long. */
  tagCooldownMs: 1_000,
} as const;

/**
 * One entity per player. Positions to 1/8 unit, the "it" flag, how many tags the player made,
 * and the display name. Clients decode this with `schemaDecoder(tagSchema)`.
 */
export const tagSchema = defineSchema({
  player: {
    x: quant(0, TAG_RULES.world, 1 / 8),
    y: quant(0, TAG_RULES.world, 1 / 8),
    it: bool(),
    tags: varuint(),
    name: string(16),
  },
});

/** A steering input: a direction on each axis, −1, 0 or 1 (arrow keys / WASD). */
export interface TagInput {
  dx: -1 | 0 | 1;
  dy: -1 | 0 | 1;
}

/** Wire size of a tag input: one byte, two bits per axis (0 = −1, 1 = 0, 2 = +1). */
export const TAG_INPUT_BYTES = 1;

/** Encodes one input (browser / bot side). The bytes are valid until the writer's next use. */
export function encodeTagInput(w: BinaryWriter, input: TagInput): Uint8Array {
  return w.reset().u8((input.dx + 1) | ((input.dy + 1) << 2)).toBytes();
}

/**
 * Decodes and validates one input (room side, on arrival, before it touches any state).
 * Anything but one byte with two in-range axes is refused as `bad_input`.
 */
export function decodeTagInput(payload: unknown): TagInput | InputRejection {
  if (!(payload instanceof Uint8Array) || payload.length !== TAG_INPUT_BYTES) {
    return reject("bad_input", `a tag input is ${TAG_INPUT_BYTES} binary byte`);
  }
  const b = new BinaryReader(payload).u8();
  const x = b & 3;
  const y = (b >> 2) & 3;
  if (x > 2 || y > 2 || b >> 4 !== 0) return reject("bad_input", `bad tag input byte ${b}`);
  return { dx: (x - 1) as TagInput["dx"], dy: (y - 1) as TagInput["dy"] };
}

/** Events the room sends one player. Today one kind: which entity is theirs. */
export const TagEventKind = { youAre: 1 } as const;

/** Encodes a "your entity is `entity`" event (room side). */
export function encodeYouAre(w: BinaryWriter, entity: number): Uint8Array {
  return w.reset().u8(TagEventKind.youAre).varuint(entity).toBytes();
}

/** Decodes an event body (client side); null for a kind this client does not know. */
export function decodeTagEvent(body: unknown): { kind: "youAre"; entity: number } | null {
  if (!(body instanceof Uint8Array) || body.length < 2) return null;
  const r = new BinaryReader(body);
  return r.u8() === TagEventKind.youAre ? { kind: "youAre", entity: r.varuint() } : null;
}
