/** Which device steered last: the page follows whichever the player touched most recently. */
export type InputDevice = "none" | "keyboard" | "mouse";

/** Keys the games read, by `KeyboardEvent.code` (layout-independent positions). */
const GAME_KEYS = new Set(["KeyW", "KeyA", "KeyS", "KeyD", "ArrowUp", "ArrowLeft", "ArrowDown", "ArrowRight", "Space", "ShiftLeft", "ShiftRight"]);

/**
 * Keyboard and mouse state of the page, polled by the games at their input rate. Events only
 * record state; nothing is sent from inside a handler, so inputs go out at a steady rate.
 */
export class InputState {
  /** Pointer position in canvas CSS pixels. */
  mouseX = 0;
  mouseY = 0;
  /** True while the pointer is over the canvas. */
  mouseInside = false;
  /** True while the primary button is held. */
  mouseDown = false;
  /** Last device used to steer. */
  device: InputDevice = "none";
  /** The on-screen touch stick (see touchStick.ts); steering games read it first. */
  readonly stick = { x: 0, y: 0, active: false };
  private readonly held = new Set<string>();
  private clicks = 0;
  private readonly hotkeys = new Map<string, () => void>();
  private readonly disposers: (() => void)[] = [];

  constructor(target: Window, canvas: HTMLCanvasElement) {
    this.listen(target, "keydown", (e: KeyboardEvent) => {
      if (isTyping(e)) return;
      const hot = this.hotkeys.get(e.code);
      if (hot && !e.repeat && !e.ctrlKey && !e.metaKey && !e.altKey) {
        hot();
        return;
      }
      if (!GAME_KEYS.has(e.code)) return;
      // Space and arrows would scroll the page.
      e.preventDefault();
      this.held.add(e.code);
      if (e.code !== "Space" && !e.code.startsWith("Shift")) this.device = "keyboard";
    });
    this.listen(target, "keyup", (e: KeyboardEvent) => {
      this.held.delete(e.code);
    });
    // Keys released while the window had no focus never send keyup.
    this.listen(target, "blur", () => {
      this.held.clear();
      this.mouseDown = false;
    });
    this.listen(canvas, "pointermove", (e: PointerEvent) => {
      const r = canvas.getBoundingClientRect();
      this.mouseX = e.clientX - r.left;
      this.mouseY = e.clientY - r.top;
      this.mouseInside = true;
      this.device = "mouse";
    });
    this.listen(canvas, "pointerleave", () => {
      this.mouseInside = false;
    });
    this.listen(canvas, "pointerdown", (e: PointerEvent) => {
      if (e.button !== 0) return;
      const r = canvas.getBoundingClientRect();
      this.mouseX = e.clientX - r.left;
      this.mouseY = e.clientY - r.top;
      this.mouseInside = true;
      this.mouseDown = true;
      this.clicks++;
    });
    this.listen(target, "pointerup", (e: PointerEvent) => {
      if (e.button === 0) this.mouseDown = false;
    });
  }

  /** True while the key with this `KeyboardEvent.code` is held. */
  down(code: string): boolean {
    return this.held.has(code);
  }

  /**
   * Keyboard movement axes in screen directions (x right, y down), each -1, 0 or 1, written
   * into `out` (no allocation). WASD and arrows both count.
   */
  moveAxes(out: { x: number; y: number }): void {
    out.x = (this.down("KeyD") || this.down("ArrowRight") ? 1 : 0) - (this.down("KeyA") || this.down("ArrowLeft") ? 1 : 0);
    out.y = (this.down("KeyS") || this.down("ArrowDown") ? 1 : 0) - (this.down("KeyW") || this.down("ArrowUp") ? 1 : 0);
  }

  /**
   * Steering from the touch stick (as it is) or the movement keys (normalized to length 1) into
   * `out`; false, and `out` untouched, when neither is in use (the pointer may steer then).
   */
  stickOrKeys(out: { dx: number; dy: number }): boolean {
    if (this.stick.active) {
      out.dx = this.stick.x;
      out.dy = this.stick.y;
      return true;
    }
    if (!this.moving) return false;
    this.moveAxes(this.axes);
    const len = Math.hypot(this.axes.x, this.axes.y);
    if (len > 0) {
      out.dx = this.axes.x / len;
      out.dy = this.axes.y / len;
    }
    return true;
  }

  /** Scratch for {@link stickOrKeys}. */
  private readonly axes = { x: 0, y: 0 };

  /** True while any movement key is held. */
  get moving(): boolean {
    return (
      this.down("KeyW") || this.down("KeyA") || this.down("KeyS") || this.down("KeyD") ||
      this.down("ArrowUp") || this.down("ArrowLeft") || this.down("ArrowDown") || this.down("ArrowRight")
    );
  }

  /** Clicks since the last call (each is one shot in fps). */
  takeClicks(): number {
    const n = this.clicks;
    this.clicks = 0;
    return n;
  }

  /** Calls `fn` when the key `code` is pressed (not for game keys; no repeats, no modifiers). */
  onHotkey(code: string, fn: () => void): void {
    this.hotkeys.set(code, fn);
  }

  /** Removes every listener. */
  dispose(): void {
    for (const d of this.disposers) d();
    this.disposers.length = 0;
    this.held.clear();
  }

  private listen<E extends Event>(el: EventTarget, type: string, fn: (e: E) => void): void {
    const handler = fn as EventListener;
    el.addEventListener(type, handler);
    this.disposers.push(() => el.removeEventListener(type, handler));
  }
}

/** Keys typed into a form control (the network menu) are not game input. */
function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return t !== null && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable === true);
}
