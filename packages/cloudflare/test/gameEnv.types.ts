/**
 * Type-only checks (compiled by `npm run typecheck`, never run): a room object takes the game
 * definitions whose declared environment its Worker's `Env` satisfies, and no others.
 */
import type { GameDefinition } from "@tikron/core";
import { RoomObject, type GatewayEnv } from "../src";

/** What a game that writes results expects of its host. */
interface ResultsEnv {
  RESULTS: { prepare(query: string): unknown };
}

declare const needsResults: GameDefinition<ResultsEnv>;
declare const needsNothing: GameDefinition;

interface WithResults extends GatewayEnv {
  RESULTS: { prepare(query: string): unknown; batch(s: unknown[]): Promise<unknown> };
}

export class Fits extends RoomObject<WithResults> {
  protected readonly games = { results: needsResults, plain: needsNothing };
}

export class Lacks extends RoomObject<GatewayEnv> {
  // @ts-expect-error: this Worker's env has no RESULTS binding, which the game requires
  protected readonly games = { results: needsResults };
}

export class LacksNothing extends RoomObject<GatewayEnv> {
  protected readonly games = { plain: needsNothing };
}
