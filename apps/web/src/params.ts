import { ROOM_ID_PATTERN } from "@tikron/protocol";
import { gameInfo } from "./gameInfo";
import { parseNetParam, type NetProfile } from "./netConditions";
import { pickOverrides } from "./roomOverrides";

/** Games the page can play, by room kind. */
export const GAMES = ["agar", "movement", "fps", "ttt-json"] as const;
export type GameKind = (typeof GAMES)[number];

/** Everything the page reads from its URL. */
export interface PageParams {
  game: GameKind;
  room: string;
  /** Display name sent in hello (at most 16 characters: the schemas' name field). */
  name: string;
  /** Gateway base URL (http(s) or ws(s)); the page's own origin by default. */
  server: string;
  /** Initial network conditions. */
  net: string | NetProfile;
  /** DEV_MODE room-creation overrides to forward to the join URL. */
  overrides: URLSearchParams;
  /**
   * `?match=now` (the lobby's "play now": a seat from the matchmaker's joinOrCreate),
   * `?match=private` (a new private room others join by its id) or `?match=party` (the seat the
   * lobby's party panel left in this tab's sessionStorage); null: the room named by `room`.
   */
  match: "now" | "private" | "party" | null;
  /** The player's join options: tic-tac-toe's `?mark=X` or `?mark=O` (the seat it asks for); null for none. */
  joinOptions: { mark: "X" | "O" } | null;
  /** `?watch=1`: watch the room as a spectator (the lobby's "watch"; the games `GAME_INFO` marks `watchable`). */
  watch: boolean;
  /** Problems found in the URL, shown on the page rather than thrown. */
  problems: string[];
}

const NAME_MAX = 16;

/**
 * Reads `?game=agar&room=lobby&name=ann&net=mobile&server=...` (plus forwarded DEV_MODE
 * overrides). Bad values fall back to defaults and are listed in `problems`.
 *
 * @param random used for the default guest name (injectable for tests)
 */
export function readPageParams(search: string, origin: string, random: () => number = Math.random): PageParams {
  const q = new URLSearchParams(search);
  const problems: string[] = [];

  const gameText = q.get("game") ?? "agar";
  const game = (GAMES as readonly string[]).includes(gameText) ? (gameText as GameKind) : "agar";
  if (game !== gameText) problems.push(`unknown game "${gameText}"; playing agar`);

  let room = q.get("room") ?? "lobby";
  if (!ROOM_ID_PATTERN.test(room)) {
    problems.push(`room id "${room.slice(0, 70)}" must be 1-64 of A-Z a-z 0-9 _ -; using lobby`);
    room = "lobby";
  }

  // A unique-ish default keeps two anonymous tabs apart: agar finds its own cell by name.
  let name = (q.get("name") ?? "").trim() || `guest-${Math.floor(random() * 0x10000).toString(16).padStart(4, "0")}`;
  if (name.length > NAME_MAX) {
    problems.push(`name cut to ${NAME_MAX} characters`);
    name = name.slice(0, NAME_MAX);
  }

  const netText = q.get("net") ?? "off";
  let net = parseNetParam(netText);
  if (net === null) {
    problems.push(`unknown net "${netText}" (use off, wifi, mobile, bad or DELAY,JITTER,LOSS%)`);
    net = "off";
  }

  const matchText = q.get("match");
  const match = matchText === "now" || matchText === "private" || matchText === "party" ? matchText : null;
  if (matchText !== null && match === null) problems.push(`unknown match "${matchText.slice(0, 20)}" (use now, private or party)`);

  const markText = q.get("mark");
  const mark = markText === "X" || markText === "O" ? markText : null;
  if (markText !== null && (mark === null || game !== "ttt-json")) problems.push(`mark "${markText.slice(0, 8)}" is tic-tac-toe's X or O; ignored`);

  const server = (q.get("server") ?? origin).replace(/\/+$/, "");
  const watchable = gameInfo(game)?.watchable === true;
  const watch = q.get("watch") === "1";
  if (watch && !watchable) problems.push(`${game} rooms cannot be watched; playing`);
  return { game, room, name, server, net, overrides: pickOverrides(q), match, joinOptions: mark !== null && game === "ttt-json" ? { mark } : null, watch: watch && watchable, problems };
}
