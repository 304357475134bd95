import { describe, expect, it } from "vitest";
import { CloseCode } from "@tikron/protocol";
import { ADMISSION_CLOSE_HEADER, FakeClock, Room, admissionReply, botsReply, statsReply, type AdmissionRefusal } from "../src";
import { CounterGame } from "./fakes";

const room = (bots = false) =>
  new Room({ kind: "counter", roomId: "r1", game: new CounterGame(), clock: new FakeClock(), ...(bots ? { bots: { inputEveryMs: 100, create: () => ({ next: () => null }) } } : {}) });

describe("the HTTP answers both hosts give", () => {
  it("stats: the snapshot with the host's own figures, or the idle shape of a room not made yet", () => {
    const r = room();
    const live = statsReply("counter", "r1", r, { sockets: 0 });
    expect(live).toMatchObject({ status: 200, headers: { "content-type": "application/json" } });
    expect(JSON.parse(live.body)).toMatchObject({ kind: "counter", roomId: "r1", ccu: 0, adapter: { sockets: 0 } });
    expect(JSON.parse(statsReply("counter", "r2", undefined, { sockets: 0 }).body)).toEqual({ kind: "counter", roomId: "r2", ccu: 0, idle: true, adapter: { sockets: 0 } });
  });

  it("bots: 400 for a bad count before any room is made, 404 without bots, else the seated count", () => {
    let made = 0;
    const make = (r: Room | null) => () => (made++, r);
    expect(botsReply("counter", new URLSearchParams("count=x"), make(room(true))).status).toBe(400);
    expect(made).toBe(0);
    expect(botsReply("nope", new URLSearchParams("count=1"), make(null)).status).toBe(404);
    expect(botsReply("counter", new URLSearchParams("count=1"), make(room(false)))).toMatchObject({ status: 404, body: "counter has no bots" });
    const r = room(true);
    const ok = botsReply("counter", new URLSearchParams("count=2"), make(r));
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ bots: 2, ccu: 2 });
  });

  it("an admission refusal: its status and reason, Retry-After in whole seconds, at least 1", () => {
    const refusal = (retryAfterMs: number): AdmissionRefusal => ({ status: 429, counter: "cooldown", closeCode: CloseCode.join_throttled, reason: "kicked", retryAfterMs });
    expect(admissionReply(refusal(2500))).toMatchObject({ status: 429, body: "kicked; retry later", headers: { "retry-after": "3", [ADMISSION_CLOSE_HEADER]: String(CloseCode.join_throttled) } });
    expect(admissionReply(refusal(10)).headers["retry-after"]).toBe("1");
    // A ban is no invitation to retry: its reason stands as the operator gave it, with the close a ban gets.
    const ban: AdmissionRefusal = { status: 403, counter: "banned", closeCode: CloseCode.banned, reason: "banned from this room: cheating", retryAfterMs: 60_000 };
    expect(admissionReply(ban)).toMatchObject({ status: 403, body: "banned from this room: cheating", headers: { "retry-after": "60", [ADMISSION_CLOSE_HEADER]: String(CloseCode.banned) } });
  });
});
