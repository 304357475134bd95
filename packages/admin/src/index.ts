/**
 * The operator console: a page on the admin API of a Tikron server (`/admin/api/…`, the same on
 * a Cloudflare Worker and on the Node host) showing every room live, a room's players, bans and
 * recent errors with a chart of its numbers, its actions (notice, kick, ban, lock, close) behind a
 * confirmation, and the audit log. The page holds no secret: the operator types the admin token
 * (kept in the tab's session storage), or Cloudflare Access in front of `/admin*` signs them in.
 *
 * A Worker serves it ahead of its routing; everything else falls through:
 * ```ts
 * import { adminConsole } from "@tikron/admin";
 * export default {
 *   fetch: (request, env) => adminConsole(request) ?? routeGatewayRequest(request, env, games),
 * };
 * ```
 * (with `"/admin", "/admin/*"` in the Worker's `assets.run_worker_first`). Other servers send
 * {@link CONSOLE_FILES} themselves.
 * @module @tikron/admin
 */
import { CONSOLE_FILES } from "./consoleFiles";
import { consoleResponder } from "./responder";

export { CONSOLE_PATH, type ConsoleFile } from "./consoleFile";
export { consoleResponder } from "./responder";
export { CONSOLE_FILES };

/**
 * Answers `GET`/`HEAD /admin` (and `/admin/`), `/admin/console.js` and `/admin/console.css` with
 * the console; `undefined` for every other request.
 */
export const adminConsole: (request: Request) => Response | undefined = consoleResponder(CONSOLE_FILES);
