import type { MatchSummary, RecordingSink } from "../replay/index";
import { joinLogPieces } from "../replay/logPieces";

/**
 * A {@link RecordingSink} that keeps every match's log in memory, for tests: a `TestRoom` made
 * with `recording: new MemoryRecording()` records its match here (when its kind's definition
 * records), and {@link log} hands the bytes to `replay`.
 *
 * @example
 * ```ts
 * const recording = new MemoryRecording();
 * const room = new TestRoom(games.tag, tagGame, { recording });
 * // … play …
 * room.room.dispose();
 * expect((await replay(games.tag, recording.log())).exact).toBe(true);
 * ```
 */
export class MemoryRecording implements RecordingSink {
  /** Each match's pieces so far, by match id, in order. */
  readonly pieces = new Map<string, Uint8Array[]>();
  /** The summaries of the matches that ended, in order. */
  readonly ended: MatchSummary[] = [];

  chunk(matchId: string, index: number, bytes: Uint8Array): void {
    const list = this.pieces.get(matchId) ?? [];
    if (list.length !== index) throw new Error(`piece ${index} of match ${matchId} came after ${list.length} pieces`);
    list.push(bytes);
    this.pieces.set(matchId, list);
  }

  end(summary: MatchSummary): void {
    this.ended.push(summary);
  }

  /**
   * A match's log so far: its pieces joined (a match not ended yet reads up to its last sealed
   * piece). Without an id, the only match recorded.
   *
   * @throws Error when there is no such match, or several and no id.
   */
  log(matchId?: string): Uint8Array {
    const id = matchId ?? (this.pieces.size === 1 ? [...this.pieces.keys()][0]! : undefined);
    const list = id === undefined ? undefined : this.pieces.get(id);
    if (!list) throw new Error(matchId ? `no match ${matchId} recorded` : `${this.pieces.size} matches recorded: name one`);
    return joinLogPieces(list);
  }
}
