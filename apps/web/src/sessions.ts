import type { WebSocketConstructor } from "@tikron/client";
import { AgarSession } from "./agarSession";
import { FpsSession } from "./fpsSession";
import type { GameSession } from "./gameSession";
import { MovementSession } from "./movementSession";
import { TttSession } from "./tttSession";
import type { InputState } from "./input";
import type { GameKind, PageParams } from "./params";

/** What every game session gets from the page shell. */
export interface SessionDeps {
  params: PageParams;
  WebSocketImpl: WebSocketConstructor;
  input: InputState;
  /** The seat reservation the matchmaker gave for `params.room`, if the page got one. */
  reservation?: string;
}

/** Starts the session of the page's game, or returns null when this build cannot play it. */
export function createSession(deps: SessionDeps): GameSession | null {
  const factory = FACTORIES[deps.params.game];
  return factory ? factory(deps) : null;
}

/** The room's arena edge when the page forwards a DEV_MODE `world` override. */
function worldOverride(params: PageParams): number | undefined {
  const world = Number(params.overrides.get("world"));
  return Number.isFinite(world) && world > 0 ? world : undefined;
}

const FACTORIES: Partial<Record<GameKind, (deps: SessionDeps) => GameSession>> = {
  agar: ({ params, WebSocketImpl, input, reservation }) =>
    new AgarSession({ server: params.server, room: params.room, name: params.name, reservation, WebSocketImpl, input, world: worldOverride(params), watch: params.watch }),
  fps: ({ params, WebSocketImpl, input, reservation }) =>
    new FpsSession({ server: params.server, room: params.room, name: params.name, reservation, WebSocketImpl, input, world: worldOverride(params) }),
  movement: ({ params, WebSocketImpl, input, reservation }) =>
    new MovementSession({ server: params.server, room: params.room, name: params.name, reservation, WebSocketImpl, input, world: worldOverride(params) }),
  "ttt-json": ({ params, WebSocketImpl, input, reservation }) =>
    new TttSession({ server: params.server, room: params.room, name: params.name, reservation, WebSocketImpl, input, joinOptions: params.joinOptions ?? undefined }),
};
