/**
 * The load tool's command line (`npm run loadtest -- <command>`): the table of commands. Each
 * command is a module of commands/ that registers itself on the program.
 */
import { Command } from "commander";
import { registerAbCommand } from "./commands/abCommand";
import { registerBenchGeneratorCommand, registerBenchLiveCommand } from "./commands/benchCommands";
import { registerCapacityCommand } from "./commands/capacityCommand";
import { registerGateCommand } from "./commands/gateCommand";
import { registerMatchBenchCommand } from "./commands/matchBenchCommand";
import { registerProfileCommand } from "./commands/profileCommand";
import { registerCompareCommand, registerMergeCommand } from "./commands/reportCommands";
import { registerRunCommand } from "./commands/runCommand";
import { registerScenariosCommand } from "./commands/scenariosCommand";
import { registerServeCommand } from "./commands/serveCommand";
import { registerSweepCommand } from "./commands/sweepCommand";
import { registerTransportBenchCommand } from "./commands/transportBenchCommand";
import { ExitCode } from "./report/verdict";

const program = new Command()
  .name("loadtest")
  .description(
    "Load generator for Tikron rooms: simulated players on a fixed input schedule, honest latency (from scheduled send time), mergeable JSON reports.",
  )
  .showHelpAfterError()
  // Bad arguments exit 97 ("could not run"), like a failed start; --help and --version exit 0.
  // Set before the commands are registered so every command inherits it.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : ExitCode.couldNotRun));

// In the order `--help` lists them.
for (const register of [
  registerRunCommand,
  registerGateCommand,
  registerSweepCommand,
  registerCompareCommand,
  registerMergeCommand,
  registerServeCommand,
  registerBenchGeneratorCommand,
  registerBenchLiveCommand,
  registerScenariosCommand,
  registerAbCommand,
  registerCapacityCommand,
  registerProfileCommand,
  registerMatchBenchCommand,
  registerTransportBenchCommand,
]) {
  register(program);
}

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = ExitCode.couldNotRun;
});
