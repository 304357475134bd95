/**
 * `npm run golden`: writes the golden files (test/golden/*.json) from the current code. Run it
 * after a deliberate protocol change, then update every client (the C# SDK's tests read them).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { clientMessages, recordAll } from "./record";
import { goldenText } from "./files";

const dir = import.meta.dirname;
for (const g of await recordAll()) writeFileSync(join(dir, `${g.name}.json`), goldenText(g));
writeFileSync(join(dir, "client-messages.json"), goldenText(clientMessages()));
console.log(`golden files written to ${dir}`);
