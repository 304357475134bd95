import type { RoomConnection } from "./connect";
import type { SampleKind } from "./sampling";
import { SnapshotBuffer, type SnapshotBufferOptions } from "./snapshotBuffer";
import { attachSnapshots } from "./snapshotLink";

/** Takes one entity of a snapshot: its id and its field values in `fields` order (copied at once). */
export type EntitySink = (id: number, values: ArrayLike<number>) => void;

/** Options of {@link createInterpolatedView}: the buffer's tunables plus how to read a state. */
export interface InterpolatedViewOptions<S> extends SnapshotBufferOptions {
  /**
   * Lists the entities to interpolate in one decoded state: call `put(id, values)` once per
   * entity, `values` in `fields` order (one reused array is fine). Leave out whatever is drawn
   * some other way, typically the own avatar, which prediction places.
   */
  collect(state: S, put: EntitySink): void;
}

/**
 * Remote entities of a room, smoothed for drawing: the connection's decoded states go into a
 * {@link SnapshotBuffer} as they arrive, and each render frame reads them back at one render
 * time a little in the past (interpolation with an adaptive delay; see {@link SnapshotBuffer}).
 *
 * This is the decoder → snapshot buffer loop every real-time client needs; the view owns it so
 * a game only says which entities and which fields ({@link InterpolatedViewOptions.collect}).
 * The buffer follows the connection ({@link attachSnapshots}): the room's send interval, its
 * restarts and room switches. Its delay and starvations are read off {@link buffer}.
 *
 * @example
 * ```ts
 * const conn = connect(url, { kind: "agar", room: "r1", decoder: schemaDecoder(agarSchema) });
 * const v = new Float64Array(3);
 * const remotes = createInterpolatedView(conn, {
 *   fields: ["x", "y", "r"],
 *   collect(view, put) {
 *     for (const e of view.values()) {
 *       if (e.type !== "player" || e.record.pid === conn.playerId) continue;
 *       v[0] = e.record.x; v[1] = e.record.y; v[2] = e.record.r;
 *       put(e.id, v);
 *     }
 *   },
 * });
 * requestAnimationFrame(function frame(now) {
 *   remotes.update(now);
 *   remotes.forEach((id, v) => drawCell(id, v[0], v[1], v[2]));
 *   requestAnimationFrame(frame);
 * });
 * ```
 */
export class InterpolatedView<S = unknown> {
  /** The buffer behind the view (delay, starvations, tracked entities). */
  readonly buffer: SnapshotBuffer;
  readonly #unsubscribe: () => void;
  readonly #detach: () => void;

  /** @internal Use {@link createInterpolatedView}. */
  constructor(room: RoomConnection<S>, options: InterpolatedViewOptions<S>) {
    const buffer = (this.buffer = new SnapshotBuffer(options));
    const collect = options.collect;
    // Made once: the state path runs per frame for every entity and must not allocate.
    const put: EntitySink = (id, values) => buffer.setEntity(id, values);
    this.#detach = attachSnapshots(room, buffer);
    this.#unsubscribe = room.on("state", (f) => {
      // A frame without a state change still tells the buffer that time advanced with nothing moving.
      if (!buffer.beginSnapshot(f.time, f.receivedAt, f.changed)) return;
      collect(f.state, put);
      buffer.endSnapshot();
    });
  }

  /** Render time of the last {@link update} (room ms); -Infinity before the first snapshot. */
  get renderTime(): number {
    return this.buffer.renderTime;
  }

  /** Entities tracked (present, or gone but still inside the render window). */
  get size(): number {
    return this.buffer.size;
  }

  /**
   * Advances the render clock to local time `localNow` (once per render frame, before reading)
   * and returns the render time in room ms; -Infinity before the first snapshot.
   */
  update(localNow?: number): number {
    return this.buffer.update(localNow);
  }

  /**
   * Calls `fn` for every entity that has a value at the current render time (nothing before the
   * first snapshot). `values` is a scratch array reused between calls.
   */
  forEach(fn: (id: number, values: Float64Array, kind: SampleKind) => void): void {
    this.buffer.forEach(this.buffer.renderTime, fn);
  }

  /**
   * One entity's fields at the current render time, in `out` (default: the buffer's scratch
   * array, valid until the next call), or null when it has no value then.
   */
  sample(entityId: number, out?: Float64Array): Float64Array | null {
    return this.buffer.sample(entityId, this.buffer.renderTime, out);
  }

  /** Stops listening to the connection and detaches the buffer from it (the buffer keeps what it has). */
  dispose(): void {
    this.#unsubscribe();
    this.#detach();
  }
}

/**
 * Interpolates the remote entities of `room`'s states: see {@link InterpolatedView}. Create it
 * right after {@link connect}, before the first welcome can arrive.
 */
export function createInterpolatedView<S>(room: RoomConnection<S>, options: InterpolatedViewOptions<S>): InterpolatedView<S> {
  return new InterpolatedView(room, options);
}
