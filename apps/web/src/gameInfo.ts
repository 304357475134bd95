/**
 * What the lobby and the game page tell a newcomer about each game: one line on what it is, its
 * controls (keyboard and mouse; touch where the game has a stick), and whether bots can fill it.
 * One home, so the lobby and the on-screen help never disagree.
 */
export interface GameInfo {
  kind: string;
  title: string;
  about: string;
  /** Keyboard / mouse controls. */
  controls: string;
  /** Touch controls, when the game has them. */
  touch?: string;
  /**
   * The lobby links a "watch" (a spectator: core/src/spectate) and the page draws it. A room can
   * be watched when its game's binary sync names its `SyncWorld` (`sync.world`): agar only.
   * movement and fps name none (naming it would also switch their checkpoints to the world's
   * chain and let them be relayed), and their pages draw around an own player a spectator has
   * not; tic-tac-toe is JSON.
   */
  watchable?: boolean;
}

/** Each game's line, controls and whether it can be watched. */
export const GAME_INFO: readonly GameInfo[] = [
  {
    kind: "agar",
    title: "agar",
    about: "Steer a cell around an arena, eat orbs to grow, eat smaller cells. Your own cell is predicted; others are interpolated.",
    controls: "mouse or WASD / arrows steer · Space boosts (burns mass)",
    touch: "drag the stick at the bottom left",
    watchable: true,
  },
  {
    kind: "movement",
    title: "movement",
    about: "The smallest binary room: every player is a dot walking a 2000 × 2000 field, everyone sees everyone at 20 Hz.",
    controls: "WASD / arrows or mouse steer · Shift sprints",
    touch: "drag the stick at the bottom left",
  },
  {
    kind: "fps",
    title: "fps",
    about: "Top-down shooter with hitscan and lag compensation: the server rewinds targets to what you saw when you fired.",
    controls: "WASD move · mouse aims · click shoots",
  },
  {
    kind: "ttt-json",
    title: "tic-tac-toe (JSON)",
    about: "A turn-based room over the JSON dialect that sleeps between moves. Open a second tab, or add a bot opponent.",
    controls: "click a cell to play · R asks for a rematch",
  },
];

/** The info of a kind, if the page knows it. */
export function gameInfo(kind: string): GameInfo | undefined {
  return GAME_INFO.find((g) => g.kind === kind);
}
