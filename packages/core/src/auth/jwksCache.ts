/**
 * The provider's key set, fetched once and kept: refreshed when it is old or when a token names a
 * key it does not hold (the provider rotated), at most once per cooldown however many tokens ask
 * (a flood of made-up `kid`s, or a provider that is down, costs it one request per cooldown), and
 * kept verifying for a while when a refresh fails, so a provider outage does not stop players
 * who hold valid tokens from joining.
 *
 * Key selection and import are jose's (`createLocalJWKSet`); this class only decides when to
 * fetch. One request may wait on a fetch another started (a cold start's burst shares one fetch),
 * but never only on it: on Workers a promise from a request that went away can stay pending, so
 * every wait is raced with the waiter's own timer, and a fetch that outlived its timeout is given
 * up on.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";

/** A fetched key set is refetched on first use after this long (ms). */
export const JWKS_MAX_AGE_MS = 10 * 60_000;
/** Least time between two fetch attempts (ms), successful or not. */
export const JWKS_COOLDOWN_MS = 10_000;
/** How long past {@link JWKS_MAX_AGE_MS} a key set keeps verifying while refreshes fail (ms). */
export const JWKS_STALE_IF_ERROR_MS = 60 * 60_000;
/** A fetch that has not answered in this long has failed (ms). */
export const JWKS_TIMEOUT_MS = 5_000;
/** Largest key set accepted (bytes); real ones are a few KB. */
export const MAX_JWKS_BYTES = 256 * 1024;

/** Tuning and test seams of a {@link JwksCache}; every field has a default. */
export interface JwksCacheOptions {
  /** The fetch to use (default: the global `fetch`). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Current time in ms (default `Date.now`); tests move it. */
  now?: () => number;
  /** Default {@link JWKS_MAX_AGE_MS}. */
  maxAgeMs?: number;
  /** Default {@link JWKS_COOLDOWN_MS}. */
  cooldownMs?: number;
  /** Default {@link JWKS_STALE_IF_ERROR_MS}. */
  staleIfErrorMs?: number;
  /** Default {@link JWKS_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** One fetched key set. */
export interface JwksSnapshot {
  /** jose's key lookup for it (by `kid`, `alg` and key type). */
  readonly getKey: JWTVerifyGetKey;
  /** When it was fetched (ms, the cache's clock). */
  readonly fetchedAt: number;
  /** Counts fetched sets: a higher one is newer. */
  readonly version: number;
}

/** After a token named an unknown key: a newer set is there, or none could be fetched now and why. */
export type JwksRefresh = "refreshed" | "cooling" | "failed";

/** Gives up on a fetch this long after its own timeout (its request may have gone away). */
const ABANDON_MARGIN_MS = 1_000;

/** The key set of one JWKS URL (see the module comment). */
export class JwksCache {
  readonly #url: string;
  readonly #fetch: (url: string, init: RequestInit) => Promise<Response>;
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  readonly #cooldownMs: number;
  readonly #staleIfErrorMs: number;
  readonly #timeoutMs: number;
  #set: JwksSnapshot | null = null;
  #version = 0;
  #lastAttemptAt = Number.NEGATIVE_INFINITY;
  #lastAttemptFailed = false;
  #lastError: string | null = null;
  #inflight: { readonly done: Promise<void>; readonly startedAt: number } | null = null;
  #fetches = 0;

  constructor(url: URL, options: JwksCacheOptions = {}) {
    this.#url = url.href;
    this.#fetch = options.fetch ?? ((u, init) => fetch(u, init));
    this.#now = options.now ?? Date.now;
    this.#maxAgeMs = options.maxAgeMs ?? JWKS_MAX_AGE_MS;
    this.#cooldownMs = options.cooldownMs ?? JWKS_COOLDOWN_MS;
    this.#staleIfErrorMs = options.staleIfErrorMs ?? JWKS_STALE_IF_ERROR_MS;
    this.#timeoutMs = options.timeoutMs ?? JWKS_TIMEOUT_MS;
  }

  /** Why the last fetch failed (for logs), or `null` when it succeeded or none was tried. */
  get lastError(): string | null {
    return this.#lastError;
  }

  /** How many fetches were started (for stats and tests). */
  get fetches(): number {
    return this.#fetches;
  }

  /**
   * The key set to verify with now, fetching it if there is none or it is older than the max
   * age; a set whose refresh failed serves on for the stale-if-error window. `null`: no usable
   * set (see {@link lastError}).
   */
  async current(): Promise<JwksSnapshot | null> {
    const set = this.#set;
    if (set && this.#now() - set.fetchedAt < this.#maxAgeMs) return set;
    await this.#refresh();
    const latest = this.#set;
    return latest && this.#now() - latest.fetchedAt < this.#maxAgeMs + this.#staleIfErrorMs ? latest : null;
  }

  /**
   * Called when a token names a key that `seen` does not hold: fetches a newer set unless one
   * was fetched since `seen` or the cooldown forbids it. `"cooling"`: the set is recent and the
   * key is not in it; `"failed"`: the provider could not be asked.
   */
  async refreshAfterMiss(seen: JwksSnapshot): Promise<JwksRefresh> {
    if (this.#version > seen.version) return "refreshed";
    await this.#refresh();
    if (this.#version > seen.version) return "refreshed";
    return this.#lastAttemptFailed ? "failed" : "cooling";
  }

  /** The newest set fetched, if any (whatever its age). */
  get latest(): JwksSnapshot | null {
    return this.#set;
  }

  async #refresh(): Promise<void> {
    const now = this.#now();
    let inflight = this.#inflight;
    if (inflight && now - inflight.startedAt > this.#timeoutMs + ABANDON_MARGIN_MS) inflight = this.#inflight = null;
    if (!inflight) {
      if (now - this.#lastAttemptAt < this.#cooldownMs) return;
      inflight = this.#start();
    }
    await settleWithin(inflight.done, this.#timeoutMs + ABANDON_MARGIN_MS);
  }

  #start(): { readonly done: Promise<void>; readonly startedAt: number } {
    const startedAt = this.#now();
    this.#lastAttemptAt = startedAt;
    this.#fetches++;
    const done = this.#load().then(
      (getKey) => {
        this.#set = { getKey, fetchedAt: this.#now(), version: ++this.#version };
        this.#lastAttemptFailed = false;
        this.#lastError = null;
      },
      (err: unknown) => {
        this.#lastAttemptFailed = true;
        this.#lastError = errorLine(err);
      },
    );
    const entry = { done, startedAt };
    this.#inflight = entry;
    void done.then(() => {
      if (this.#inflight === entry) this.#inflight = null;
    });
    return entry;
  }

  async #load(): Promise<JWTVerifyGetKey> {
    const response = await this.#fetch(this.#url, {
      method: "GET",
      // A redirect is refused rather than followed: the keys come from the configured URL only.
      redirect: "manual",
      headers: { accept: "application/jwk-set+json, application/json" },
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      const hint = response.status >= 300 && response.status < 400 ? " (a redirect: configure the URL it points to)" : "";
      throw new Error(`the JWKS URL answered HTTP ${response.status}${hint}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(await readCapped(response, MAX_JWKS_BYTES));
    } catch (err) {
      throw new Error(`the JWKS URL did not answer a JSON key set: ${errorLine(err)}`);
    }
    return createLocalJWKSet(json as JSONWebKeySet);
  }
}

async function readCapped(response: Response, max: number): Promise<string> {
  if (Number(response.headers.get("content-length")) > max) {
    await response.body?.cancel();
    throw new Error(`larger than ${max} bytes`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
}

function settleWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
}

/** An error as one line for logs, with its cause (fetch failures keep the reason there). */
export function errorLine(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.name}: ${err.message}${cause}`;
}
