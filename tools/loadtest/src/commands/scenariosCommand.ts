/** `loadtest scenarios`: the built-in scenarios and whether each can run. */
import type { Command } from "commander";
import { scenarios } from "../scenarios/index";

/** Registers `scenarios` on the program. */
export function registerScenariosCommand(program: Command): void {
  program
    .command("scenarios")
    .description("list scenarios and whether they can run yet")
    .action(() => {
      for (const s of scenarios) console.log(s.available ? `${s.name}: available` : `${s.name}: unavailable (${s.reason})`);
    });
}
