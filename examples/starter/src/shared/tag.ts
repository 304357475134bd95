/**
 * Everything the Worker and the browser both need to know about the game: the entity schema and
 * its events, the input codec, the messages and notices, and the rules' numbers. It imports only
 * `@tikron/protocol`, so the browser bundle carries no room code.
 */
import {
  BinaryReader,
  bool,
  defineEvents,
  defineGameTypes,
  defineJoinOptions,
  defineMessages,
  defineNotices,
  defineSchema,
  joinOption,
  quant,
  refuseMessage,
  reject,
  string,
  u8,
  varuint,
  type BinaryWriter,
  type EventOf,
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

/** The colors a player may choose to run in (its join option `color`). */
export const TAG_COLORS = ["grey", "blue", "gold", "pink"] as const;

/** A color's index in {@link TAG_COLORS} (what the schema's `color` field carries). */
export type TagColor = (typeof TAG_COLORS)[number];

/**
 * What a player chooses when it joins (sent in its hello; the room checks it before the seat is
 * taken, and refuses anything else `bad_request` naming the option): the color it runs in.
 */
export const tagJoinOptions = defineJoinOptions({
  color: joinOption.oneOf(TAG_COLORS, { default: "grey" }),
});

/**
 * One entity per player: positions to 1/8 unit, the "it" flag, how many tags the player made,
 * the display name and the color it chose (an index into {@link TAG_COLORS}). One event:
 * `youAre` tells a player which entity is theirs (the room writes `ctx.emit({ kind: "youAre",
 * entity })`, the page reads the same object back).
 */
export const tagSchema = defineSchema(
  {
    player: {
      x: quant(0, TAG_RULES.world, 1 / 8),
      y: quant(0, TAG_RULES.world, 1 / 8),
      it: bool(),
      tags: varuint(),
      name: string(16),
      color: u8(),
    },
  },
  { events: defineEvents({ youAre: { entity: varuint() } }) },
);

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

/**
 * The room messages players send outside the tick: `chat` says a line to everyone in the room
 * (they get a `chat` notice) and answers how many connected players heard it.
 */
export interface TagMessages {
  chat: { request: { text: string }; response: { heardBy: number } };
}

/** The notices the room sends: a chat line said by the player named `from`, to everyone. */
export interface TagNotices {
  chat: { from: string; text: string };
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
 * (encoded here), hands out the schema's events and a view typed by `tagSchema`, types
 * `withMessages(room).request("chat", { text })` by `TagMessages` and `notice` events by `TagNotices`.
 */
export const tagGame = defineGameTypes<TagInput>()({
  kind: TAG_KIND,
  schema: tagSchema,
  encodeInput: (input, w) => encodeTagInput(w, input),
  messages: defineMessages<TagMessages>(),
  notices: defineNotices<TagNotices>(),
  joinOptions: tagJoinOptions,
});

/** An event as the client sees it: `{ kind: "youAre", entity }`. */
export type TagEvent = EventOf<typeof tagGame>;
