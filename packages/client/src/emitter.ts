/**
 * A small typed event emitter. Listener lists are replaced, not mutated, on (un)subscribe, so a
 * listener may unsubscribe itself (or others) while an event is being delivered.
 */
export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  readonly #lists: { [K in keyof Events]?: ((payload: Events[K]) => void)[] } = {};

  /** Subscribes; returns a function that unsubscribes. */
  on<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): () => void {
    this.#lists[event] = [...(this.#lists[event] ?? []), fn];
    return () => this.off(event, fn);
  }

  /** Subscribes for one delivery only. */
  once<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): () => void {
    const off = this.on(event, (p) => {
      off();
      fn(p);
    });
    return off;
  }

  /** Unsubscribes `fn` (no-op if it was not subscribed). */
  off<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): void {
    const list = this.#lists[event];
    if (list) this.#lists[event] = list.filter((f) => f !== fn);
  }

  /** True when anything listens to `event` (lets callers skip building a payload). */
  has<K extends keyof Events>(event: K): boolean {
    return (this.#lists[event]?.length ?? 0) > 0;
  }

  /**
   * Delivers `payload` to every listener. A throwing listener does not stop the others or the
   * connection's own bookkeeping; its error is rethrown asynchronously so it still surfaces.
   */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const list = this.#lists[event];
    if (!list) return;
    for (let i = 0; i < list.length; i++) {
      try {
        list[i](payload);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}
