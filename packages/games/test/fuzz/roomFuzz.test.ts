/** CI budget of the room fuzz suite (unit project); the long run is `npm run fuzz`. */
import { defineRoomFuzz, fuzzRuns } from "./roomFuzzSuite";

defineRoomFuzz(fuzzRuns("ci"), 120_000);
