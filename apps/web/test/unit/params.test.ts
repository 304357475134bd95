import { describe, expect, it } from "vitest";
import { readPageParams } from "../../src/params";
import { withQuery } from "../../src/roomOverrides";
import type { WebSocketConstructor } from "@tikron/client";

const ORIGIN = "http://127.0.0.1:8787";

describe("readPageParams", () => {
  it("defaults to agar in the lobby with a guest name", () => {
    const p = readPageParams("", ORIGIN, () => 0.5);
    expect(p).toMatchObject({ game: "agar", room: "lobby", name: "guest-8000", server: ORIGIN, net: "off", problems: [] });
  });

  it("reads game, room, name, net and server", () => {
    const p = readPageParams("?game=fps&room=r_1&name=ann&net=60,10&server=ws://h:1/", ORIGIN);
    expect(p).toMatchObject({ game: "fps", room: "r_1", name: "ann", server: "ws://h:1", net: { delayMs: 60, jitterMs: 10, loss: 0 } });
  });

  it("falls back on bad values and says why", () => {
    const p = readPageParams("?game=chess&room=a/b&name=" + "x".repeat(20) + "&net=warp", ORIGIN);
    expect(p.game).toBe("agar");
    expect(p.room).toBe("lobby");
    expect(p.name).toBe("x".repeat(16));
    expect(p.net).toBe("off");
    expect(p.problems).toHaveLength(4);
  });

  it("forwards only DEV_MODE room overrides", () => {
    const p = readPageParams("?game=agar&world=800&aoi=3000&evil=1&tickMs=25", ORIGIN);
    expect(p.overrides.toString()).toBe("world=800&aoi=3000&tickMs=25");
  });
});

describe("withQuery", () => {
  class Rec {
    static urls: string[] = [];
    constructor(url: string) {
      Rec.urls.push(url);
    }
  }
  const Base = Rec as unknown as WebSocketConstructor;

  it("appends the overrides to every join URL", () => {
    const Impl = withQuery(Base, new URLSearchParams({ world: "800" }));
    new Impl("ws://h/rooms/agar/r");
    new Impl("ws://h/rooms/agar/r?ticket=t");
    expect(Rec.urls).toEqual(["ws://h/rooms/agar/r?world=800", "ws://h/rooms/agar/r?ticket=t&world=800"]);
  });

  it("is the base itself without overrides", () => {
    expect(withQuery(Base, new URLSearchParams())).toBe(Base);
  });
});
