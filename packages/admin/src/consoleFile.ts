/** One file of the console as a server sends it: the page, its script or its stylesheet. */
export interface ConsoleFile {
  /** The path it answers at: {@link CONSOLE_PATH} (the page), or a file under it. */
  readonly path: string;
  /** Its `content-type`. */
  readonly contentType: string;
  /** Its text. */
  readonly body: string;
}

/**
 * Where the console's page is served. Its script and stylesheet are under it (`/admin/console.js`,
 * `/admin/console.css`), beside the admin API it calls (`/admin/api/…`, same origin).
 */
export const CONSOLE_PATH = "/admin";
