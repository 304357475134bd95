/** Long run of the room fuzz suite: `npm run fuzz` (cases per property: `TIKRON_FUZZ_RUNS`, default 100000). */
import { defineRoomFuzz, fuzzRuns } from "./roomFuzzSuite";

defineRoomFuzz(fuzzRuns("long"), 3_600_000);
