import { CONSOLE_PATH, type ConsoleFile } from "./consoleFile";

/**
 * A fetch-style handler serving `files`: `GET` or `HEAD` of a file's path (the page also at
 * `/admin/`) answers it; anything else is `undefined`, for the rest of the Worker to route (the
 * admin API under `/admin/api/` among it). The console holds no secret, so it needs no credential;
 * the API it calls checks one on every request.
 */
export function consoleResponder(files: readonly ConsoleFile[]): (request: Request) => Response | undefined {
  const byPath = new Map(files.map((f) => [f.path, f]));
  return (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const path = new URL(request.url).pathname;
    const file = byPath.get(path === `${CONSOLE_PATH}/` ? CONSOLE_PATH : path);
    if (!file) return undefined;
    return new Response(request.method === "HEAD" ? null : file.body, {
      headers: {
        "content-type": file.contentType,
        // Revalidated on every load, so an updated package shows at once.
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
      },
    });
  };
}
