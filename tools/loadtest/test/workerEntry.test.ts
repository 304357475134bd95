import { describe, expect, it } from "vitest";
import { parseListening } from "../src/server/workerEntry";

// Shape of /proc/<pid>/net/tcp: sl, local, remote, state, queues, tr, retrnsmt, uid, timeout, inode.
const TABLE = [
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
  "   0: 0100007F:9FA7 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0",
  "   1: 0100007F:812F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 100 0 0 10 0",
  "   2: 0100007F:AE49 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2001 1 0000000000000000 100 0 0 10 0",
  "   3: 0100007F:812F 0100007F:B7F8 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 20 4 30 10 -1",
].join("\n");

describe("listening ports of a process from /proc/net/tcp", () => {
  it("keeps sockets in LISTEN state whose inode the process holds", () => {
    expect(parseListening(TABLE, new Set(["1001", "1002", "1003"]))).toEqual([0x812f, 0x9fa7]);
  });
  it("drops other processes' sockets and established connections", () => {
    expect(parseListening(TABLE, new Set(["2001"]))).toEqual([0xae49]);
    expect(parseListening(TABLE, new Set(["1003"]))).toEqual([]);
    expect(parseListening("garbage\nnot a table", new Set(["1001"]))).toEqual([]);
  });
});
