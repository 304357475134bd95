/**
 * The published packages, in build order (each one's `@tikron/*` dependencies come before it).
 * The one list the build, pack, version and API-reference scripts read.
 */
export const PUBLISHED_PACKAGES = ["protocol", "aoi", "core", "cloudflare", "node", "client"] as const;

/** A published package's folder name under `packages/`. */
export type PublishedPackage = (typeof PUBLISHED_PACKAGES)[number];
