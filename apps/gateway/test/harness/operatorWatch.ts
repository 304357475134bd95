/**
 * What a test player hears from an operator: the text of every operator notice (`tk:notice`) and
 * the connection's close. The admin API's integration test and the console's browser test read
 * the same two things from their players.
 */
import { OPERATOR_NOTICE, type RoomConnection } from "@tikron/client";

/** A joined connection's operator notices (texts, in order) and its close, watched from now on. */
export function watchOperator(conn: RoomConnection): { notices: string[]; closed: Promise<{ code: number; reason: string }> } {
  const notices: string[] = [];
  conn.on("notice", (n) => {
    if (n.type === OPERATOR_NOTICE) notices.push((n.data as { text: string }).text);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => conn.on("close", (c) => resolve(c)));
  return { notices, closed };
}
