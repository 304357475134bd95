/**
 * The published packages, in build order (each one's `@tikron/*` dependencies come before it):
 * the libraries, the operator console (`admin`), then `create-tikron`, the command that makes a
 * project from the starter. The one list the build, pack and version scripts read.
 */
export const PUBLISHED_PACKAGES = ["protocol", "aoi", "core", "cloudflare", "node", "client", "admin", "create-tikron"] as const;

/** A published package's folder name under `packages/`. */
export type PublishedPackage = (typeof PUBLISHED_PACKAGES)[number];
