import type { Player } from "@tikron/core";

/**
 * The name a built-in game shows for a player: its verified sign-in name (`claims.name`, when the
 * deployment hands games that claim: `AUTH_CLAIMS=name`), else the name its hello chose, else
 * `p<playerId>`. A verified name wins so a player cannot pass for another.
 */
export function displayName(player: Player<unknown>): string {
  const signedIn = player.claims.name;
  if (typeof signedIn === "string" && signedIn.trim() !== "") return signedIn.trim().slice(0, 32);
  return player.name || `p${player.playerId}`;
}
