/** The one socket table of every host (socketTable.ts): messages under a socket's id, a close heard once, then forgotten. */
import { describe, expect, it } from "vitest";
import { SocketTable } from "../src/socketTable";
import type { SocketRoom } from "../src/hostedRoom";

function setup() {
  const heard: unknown[][] = [];
  const room = { message: (id: number, data: unknown) => heard.push(["message", id, data]), closed: (id: number, code: number, reason: string) => heard.push(["closed", id, code, reason]) } as unknown as SocketRoom;
  const finished: [string, number][] = [];
  const table = new SocketTable<string, SocketRoom>(room, (s, code) => finished.push([s, code]));
  return { table, heard, finished };
}

describe("SocketTable", () => {
  it("hands a socket's messages to the room under its id, and ignores a socket it does not hold", () => {
    const { table, heard } = setup();
    table.track("a", 7);
    table.message("a", "hi");
    table.message("b", "lost");
    expect(heard).toEqual([["message", 7, "hi"]]);
    expect(table.socketOf(7)).toBe("a");
    expect(table.count).toBe(1);
  });

  it("a close is heard by the room once and finished by the host; a failure is a close with its code", () => {
    const { table, heard, finished } = setup();
    table.track("a", 1);
    table.track("b", 2);
    table.closed("a", 4000, "bye");
    table.closed("a", 4000, "bye");
    table.failed("b", 1009);
    table.failed("b", 1006);
    expect(heard).toEqual([
      ["closed", 1, 4000, "bye"],
      ["closed", 2, 1009, "socket error"],
    ]);
    expect(finished).toEqual([
      ["a", 4000],
      ["a", 4000],
    ]);
    expect(table.count).toBe(0);
    expect(table.socketOf(1)).toBeUndefined();
  });
});
