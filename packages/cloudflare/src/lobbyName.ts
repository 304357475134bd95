/** The room registry object's name: one per deployment (`idFromName(LOBBY_NAME)`). */
export const LOBBY_NAME = "lobby";
