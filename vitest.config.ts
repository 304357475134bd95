import { defineConfig } from "vitest/config";

/**
 * Test projects:
 * - unit: pure Node tests of every package (fast; fake clocks, property tests).
 * - integration: real `wrangler dev` processes on loopback (slower; two files at a time).
 * - integration-timed: the integration files whose bars are timings or CPU, and those that must
 *   not share the machine's `wrangler dev`s with another file (one file at a time).
 * - fuzz: the long fuzz run (`npm run fuzz`); CI runs the smaller in-unit fuzz budget instead.
 * - browser: the demo page in headless Chromium against `wrangler dev` (installs Chromium if missing).
 */
/**
 * Integration files whose bars are timings or CPU next to honest players (ack p99 against a
 * baseline, seats back within 5 s, CPU readings): they run one at a time, alone on the machine.
 */
const TIMED_INTEGRATION = [
  "apps/gateway/test/hostile.integration.test.ts",
  "apps/gateway/test/abuse.integration.test.ts",
  "apps/gateway/test/hardening.integration.test.ts",
  "apps/gateway/test/restartDrill.integration.test.ts",
  "apps/gateway/test/restart.integration.test.ts",
  "apps/gateway/test/relays.integration.test.ts",
  "apps/gateway/test/relayFailover.integration.test.ts",
  "apps/gateway/test/relayPromotion.integration.test.ts",
  // An idle object's eviction and the runtime's keepalive answers, timed in seconds.
  "apps/gateway/test/socketApis.integration.test.ts",
  "tools/loadtest/test/loadtest.integration.test.ts",
  "tools/loadtest/test/serverCpu.integration.test.ts",
  "tools/loadtest/test/transportBench.integration.test.ts",
  "tools/loadtest/test/match.integration.test.ts",
  // Runs `npm run dev`, which rebuilds apps/web/dist: every other running `wrangler dev` serves
  // and watches that directory, so it would reload and drop its sockets (1006) mid-test.
  "apps/gateway/test/devScript.integration.test.ts",
];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "tools/loadtest/test/**/*.test.ts", "tools/replay/test/**/*.test.ts", "apps/*/test/unit/**/*.test.ts", "scripts/test/**/*.test.ts", "test/golden/**/*.test.ts"],
          exclude: ["**/*.integration.test.ts", "**/*.fuzz.test.ts", "**/*.e2e.test.ts", "**/node_modules/**"],
          environment: "node",
          // A hang guard, not a speed check: property tests run hundreds of cases and a busy
          // 2-core machine can stretch them past vitest's 5 s default.
          testTimeout: 30_000,
          // Vitest's default is one worker fewer than the cores: one worker on CI's 2 cores. Much
          // of a unit file's time is loading its modules, which two workers overlap.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: "integration",
          include: ["**/*.integration.test.ts"],
          exclude: ["**/node_modules/**", ...TIMED_INTEGRATION],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // These files assert what a server did, not how fast: two at a time, each with its own
          // wrangler dev (ports and state directories are unique per server). Much of a file's
          // time is waiting on a server's start or a client's timers, which the two overlap.
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: "integration-timed",
          include: TIMED_INTEGRATION,
          exclude: ["**/node_modules/**"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "fuzz",
          include: ["**/*.fuzz.test.ts"],
          exclude: ["**/node_modules/**"],
          environment: "node",
          testTimeout: 600_000,
        },
      },
      {
        test: {
          name: "browser",
          include: ["**/*.e2e.test.ts"],
          exclude: ["**/node_modules/**"],
          environment: "node",
          testTimeout: 180_000,
          // Setup may install Chromium (apt) and build the page before starting wrangler dev.
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
