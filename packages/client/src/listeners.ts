/**
 * Typed listener lists: the `on` / `once` / `off` half of {@link RoomConnection}, which extends
 * it and delivers the events.
 */
export class RoomEmitter<Events> {
  /**
   * Listener lists are replaced, never changed in place, so a listener may (un)subscribe during
   * delivery. Typed loosely inside (`any` payload) so a connection of any event type passes where
   * any is taken.
   */
  readonly #listeners: { [K in keyof Events]?: ((payload: any) => void)[] } = {};

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): () => void {
    this.#listeners[event] = [...(this.#listeners[event] ?? []), fn];
    return () => this.off(event, fn);
  }

  /** Subscribes for one delivery. */
  once<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): () => void {
    const off = this.on(event, (payload) => {
      off();
      fn(payload);
    });
    return off;
  }

  /** Unsubscribes. */
  off<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): void {
    const list = this.#listeners[event];
    if (list) this.#listeners[event] = list.filter((f) => f !== fn);
  }

  /** True when `event` has a listener (so a payload nobody reads need not be built). */
  protected listened(event: keyof Events): boolean {
    return !!this.#listeners[event]?.length;
  }

  /**
   * Delivers `payload` to every listener of `event`. A throwing listener does not stop the others
   * or the caller's bookkeeping; its error is rethrown asynchronously so it still surfaces.
   */
  protected emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const fn of this.#listeners[event] ?? []) {
      try {
        fn(payload);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}
