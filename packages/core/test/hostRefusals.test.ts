import { REFUSAL_CAUSES } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { HostRefusals, REFUSAL_UPGRADE_BURST, REFUSAL_UPGRADE_PER_SEC } from "../src/hostRefusals";
import { credentialRefusalCause } from "../src/join/joinRefusals";

describe("HostRefusals: refusals counted by cause, and each address's budget of refusals read as a close", () => {
  it("answers an address's refusals as closes up to its budget, then plain, and gives the budget back over time", () => {
    const r = new HostRefusals(0);
    let closes = 0;
    for (let i = 0; i < 100; i++) if (r.upgradeAllowed("203.0.113.9", 0)) closes++;
    expect(closes).toBe(REFUSAL_UPGRADE_BURST);
    // Another address has its own budget; unknown addresses share one.
    expect(r.upgradeAllowed("198.51.100.1", 0)).toBe(true);
    expect(r.upgradeAllowed(null, 0)).toBe(true);
    expect(r.snapshot().plain).toBe(100 - REFUSAL_UPGRADE_BURST);
    expect(r.upgradeAllowed("203.0.113.9", 1000 / REFUSAL_UPGRADE_PER_SEC)).toBe(true);
    expect(r.upgradeAllowed("203.0.113.9", 1000 / REFUSAL_UPGRADE_PER_SEC)).toBe(false);
  });

  it("counts by cause, and reports an interval's counts once it has passed (none when nothing was refused)", () => {
    const r = new HostRefusals(1_000);
    r.count("no_credential");
    r.count("no_credential");
    r.count("forged");
    r.upgradeAllowed("a", 1_000);
    expect(r.takeReport(30_000, 60_000)).toBeNull();
    const report = r.takeReport(61_000, 60_000)!;
    expect(report.intervalMs).toBe(60_000);
    expect(report.byCause).toMatchObject({ no_credential: 2, forged: 1, malformed: 0 });
    expect(Object.keys(report.byCause)).toEqual([...REFUSAL_CAUSES]);
    expect(r.takeReport(200_000, 60_000)).toBeNull();
    // The totals stay.
    expect(r.snapshot()).toMatchObject({ since: 1_000, byCause: { no_credential: 2, forged: 1 }, plain: 0 });
  });

  it("names a cause for every refusal reason of a credential", () => {
    expect(credentialRefusalCause("missing")).toBe("no_credential");
    expect(credentialRefusalCause("bad_signature")).toBe("forged");
    expect(credentialRefusalCause("unknown_key")).toBe("forged");
    expect(credentialRefusalCause("expired")).toBe("expired");
    expect(credentialRefusalCause("wrong_room")).toBe("wrong_room");
    expect(credentialRefusalCause("wrong_audience")).toBe("wrong_room");
    expect(credentialRefusalCause("two_identities")).toBe("two_identities");
    expect(credentialRefusalCause("not_a_reservation")).toBe("malformed");
    expect(credentialRefusalCause("unconfigured")).toBe("unavailable");
  });
});
