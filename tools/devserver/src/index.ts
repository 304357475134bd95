/**
 * Local `wrangler dev` servers for integration tests and the load tool: free ports, own process
 * group, optional CPU pinning, and three independent nets so no workerd outlives its owner.
 */
export {
  startWranglerDev,
  StartError,
  groupMembers,
  pickFreePort,
  hasTaskset,
  REPO_ROOT,
  type Affinity,
  type WranglerDevOptions,
  type WranglerDevServer,
} from "./wranglerDev";
export { launchWatchdog } from "./watchdogProcess";
