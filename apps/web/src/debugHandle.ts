import type { ConnectionStatus } from "@tikron/client";
import type { EntityInfo, GameSession } from "./gameSession";
import type { Point } from "./geometry";
import type { NetConditions, NetProfile } from "./netConditions";
import type { SessionStats } from "./sessionStats";

/**
 * `window.__tikron`: a read-mostly view of the running page for the browser tests and for
 * poking at in the devtools console. Every property is computed on read.
 */
export interface TikronDebug {
  readonly game: string;
  readonly room: string;
  readonly name: string;
  readonly status: ConnectionStatus;
  /** True once welcomed and the own avatar was found in the state (a spectator: once welcomed). */
  readonly joined: boolean;
  readonly playerId: number;
  readonly selfId: number;
  /** Own avatar as drawn (predicted, smoothed). */
  readonly self: Point | null;
  /** Own avatar in the latest server state. */
  readonly serverSelf: Point | null;
  /** A copy of the session stats (the connection's, clock's, buffer's and predictor's numbers). */
  readonly stats: SessionStats;
  readonly renderedFrames: number;
  readonly net: { name: string; profile: NetProfile };
  readonly problems: readonly string[];
  readonly lastError: string | null;
  /** Game-specific values (score, tracers, ...). */
  readonly extras: Record<string, unknown>;
  /** Every entity of the latest server state. */
  entities(): EntityInfo[];
  /** Switches network conditions (preset name or settings). */
  setNet(profile: string | NetProfile): void;
}

declare global {
  interface Window {
    __tikron?: TikronDebug;
  }
}

/** What the handle reads from. */
export interface DebugSources {
  game: string;
  room: string;
  name: string;
  problems: readonly string[];
  session: GameSession;
  net: NetConditions;
  renderedFrames: () => number;
  /** Page-level values (net graph, room panel, bots) merged into `extras`. */
  pageExtras?: () => Record<string, unknown>;
}

/** Installs `window.__tikron` for this page. */
export function installDebugHandle(win: Window, src: DebugSources): TikronDebug {
  const s = src.session;
  const handle: TikronDebug = {
    game: src.game,
    room: src.room,
    name: src.name,
    problems: src.problems,
    get status() {
      return s.status;
    },
    get joined() {
      // A spectator has no avatar of its own: joined once welcomed.
      return s.status === "joined" && (s.selfId >= 0 || (s as { watching?: boolean }).watching === true);
    },
    get playerId() {
      return s.playerId;
    },
    get selfId() {
      return s.selfId;
    },
    get self() {
      return s.selfPosition();
    },
    get serverSelf() {
      return s.serverSelfPosition();
    },
    get stats() {
      return { ...s.stats };
    },
    get renderedFrames() {
      return src.renderedFrames();
    },
    get net() {
      return { name: src.net.name, profile: { ...src.net.current } };
    },
    get lastError() {
      return s.lastError;
    },
    get extras() {
      return { ...s.debugExtras(), ...src.pageExtras?.() };
    },
    entities: () => s.entities(),
    setNet: (p) => src.net.set(p),
  };
  win.__tikron = handle;
  return handle;
}
