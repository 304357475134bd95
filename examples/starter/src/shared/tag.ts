/**
 * Everything the Worker and the browser both need to know about the game: the entity schema,
 * the input codec and the rules' numbers. It imports only `@tikron/protocol`, so the browser
 * bundle carries no room code.
 */
import {
  BinaryReader,
  bool,
  defineGameTypes,
  defineMessages,
  defineSchema,
  quant,
  refuseMessage,
  reject,
  string,
  varuint,
  type BinaryWriter,
  type InputRejection,
  type MessageRejection,
} from "@tikron/protocol";

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
  /** Longest chat line (characters). */
  chatMaxChars: 120,
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

/** Events the room sends: which entity is the player's (to one player), a chat line (to all). */
export const TagEventKind = { youAre: 1, chat: 2 } as const;

/** Encodes a "your entity is `entity`" event (room side). */
export function encodeYouAre(w: BinaryWriter, entity: number): Uint8Array {
  return w.reset().u8(TagEventKind.youAre).varuint(entity).toBytes();
}

/** Encodes a chat line `text` said by the player named `from` (room side). */
export function encodeChat(w: BinaryWriter, from: string, text: string): Uint8Array {
  return w.reset().u8(TagEventKind.chat).string(from).string(text).toBytes();
}

/** An event as the client sees it: which entity is the player's, or a chat line. */
export type TagEvent = { kind: "youAre"; entity: number } | { kind: "chat"; from: string; text: string };

/** Decodes an event body (client side); null for a kind this client does not know, or a malformed one. */
export function decodeTagEvent(body: unknown): TagEvent | null {
  if (!(body instanceof Uint8Array) || body.length < 2) return null;
  const r = new BinaryReader(body);
  try {
    const kind = r.u8();
    if (kind === TagEventKind.youAre) return { kind: "youAre", entity: r.varuint() };
    if (kind === TagEventKind.chat) return { kind: "chat", from: r.string(128), text: r.string(TAG_RULES.chatMaxChars * 3) };
  } catch {
    // A truncated body: dropped like an unknown kind.
  }
  return null;
}

/**
 * The room messages players send outside the tick: `chat` says a line to everyone in the room
 * (they get a `chat` event) and answers how many connected players heard it.
 */
export interface TagMessages {
  chat: { request: { text: string }; response: { heardBy: number } };
}

/**
 * Validates a chat request (room side: the payload arrives as `unknown`): an object whose
 * `text` is 1–120 characters once trimmed.
 */
export function checkChat(payload: unknown): TagMessages["chat"]["request"] | MessageRejection {
  const text = (payload as { text?: unknown } | null)?.text;
  if (typeof text !== "string") return refuseMessage("bad_message", "chat needs { text: string }");
  const line = text.trim();
  if (line.length === 0 || line.length > TAG_RULES.chatMaxChars) {
    return refuseMessage("bad_message", `chat text must be 1-${TAG_RULES.chatMaxChars} characters`);
  }
  return { text: line };
}

/**
 * The game as clients see it: `connect(url, { game: tagGame, room })` then sends `TagInput`s
 * (encoded here), hands out decoded `TagEvent`s and a view typed by `tagSchema`, and types
 * `room.request("chat", { text })` by `TagMessages`.
 */
export const tagGame = defineGameTypes<TagInput, TagEvent>()({
  kind: TAG_KIND,
  schema: tagSchema,
  encodeInput: (input, w) => encodeTagInput(w, input),
  decodeEvent: decodeTagEvent,
  messages: defineMessages<TagMessages>(),
});
