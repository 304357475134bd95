/** Where a virtual stick writes: a direction with magnitude ≤ 1, and whether a finger is on it. */
export interface StickState {
  x: number;
  y: number;
  active: boolean;
}

/** Stick radius in CSS pixels: full throttle at this distance from where the finger landed. */
const RADIUS = 56;

/**
 * A virtual joystick for phones: a touch that starts in the left half of the canvas becomes the
 * stick's centre and its drag the steering direction (a DOM knob shows both). Mouse and pen
 * pointers are ignored, so desktop play is unchanged. The games read {@link StickState} at
 * their input rate like any other device.
 */
export class TouchStick {
  private pointerId = -1;
  private cx = 0;
  private cy = 0;
  private readonly base: HTMLElement;
  private readonly knob: HTMLElement;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly state: StickState,
    host: HTMLElement,
  ) {
    this.base = document.createElement("div");
    this.base.className = "stick-base";
    this.knob = document.createElement("div");
    this.knob.className = "stick-knob";
    this.base.append(this.knob);
    this.base.hidden = true;
    host.append(this.base);
    canvas.addEventListener("pointerdown", this.down);
    canvas.addEventListener("pointermove", this.move);
    canvas.addEventListener("pointerup", this.up);
    canvas.addEventListener("pointercancel", this.up);
  }

  private readonly down = (e: PointerEvent): void => {
    if (e.pointerType !== "touch" || this.pointerId !== -1) return;
    const r = this.canvas.getBoundingClientRect();
    if (e.clientX - r.left > r.width / 2) return;
    this.pointerId = e.pointerId;
    this.cx = e.clientX;
    this.cy = e.clientY;
    this.state.active = true;
    this.state.x = this.state.y = 0;
    this.base.hidden = false;
    this.base.style.left = `${this.cx - RADIUS}px`;
    this.base.style.top = `${this.cy - RADIUS}px`;
    this.place(0, 0);
  };

  private readonly move = (e: PointerEvent): void => {
    if (e.pointerId !== this.pointerId) return;
    let dx = (e.clientX - this.cx) / RADIUS;
    let dy = (e.clientY - this.cy) / RADIUS;
    const len = Math.hypot(dx, dy);
    if (len > 1) {
      dx /= len;
      dy /= len;
    }
    this.state.x = dx;
    this.state.y = dy;
    this.place(dx, dy);
  };

  private readonly up = (e: PointerEvent): void => {
    if (e.pointerId !== this.pointerId) return;
    this.pointerId = -1;
    this.state.active = false;
    this.state.x = this.state.y = 0;
    this.base.hidden = true;
  };

  private place(dx: number, dy: number): void {
    this.knob.style.transform = `translate(${dx * RADIUS}px, ${dy * RADIUS}px)`;
  }
}
