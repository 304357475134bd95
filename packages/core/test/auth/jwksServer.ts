/**
 * A provider in the test process: signing keys made with jose (WebCrypto), a JWKS served by
 * node:http on 127.0.0.1, and tokens signed with those keys. The server's answer can be changed
 * (rotation), broken (HTTP 500, not JSON, a redirect) or taken away (stopped: connection refused).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

/** The provider's issuer and the game's audience in every test. */
export const ISSUER = "https://id.test.example/";
export const AUDIENCE = "tikron-game";
/** Test clock: a fixed instant, in ms. */
export const T0 = Date.UTC(2030, 0, 1);

/** A signing key of the test provider. */
export interface TestKey {
  kid: string;
  alg: "RS256" | "ES256" | "EdDSA";
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** The public key as PEM text (what an HS/RS confusion attack signs with). */
  publicPem: string;
}

/** Makes a key pair; its public JWK carries `kid`, `alg` and `use: sig` as providers publish them. */
export async function makeKey(kid: string, alg: TestKey["alg"]): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

/** Signs a token with `key`: iss, aud, sub, iat and a 10-minute exp by default (times from `nowMs`). */
export async function sign(key: TestKey, nowMs: number, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const payload: JWTPayload = { iss: ISSUER, aud: AUDIENCE, sub: "user-1", iat, exp: iat + 600, ...claims };
  for (const k of Object.keys(payload)) if (payload[k] === undefined) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...header }).sign(key.privateKey);
}

/** base64url of a JSON value (for hand-made tokens). */
export function b64json(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** How the server answers. */
export type JwksMode = "ok" | "error" | "not_json" | "redirect";

/** A JWKS endpoint on 127.0.0.1. */
export class JwksServer {
  keys: JWK[] = [];
  mode: JwksMode = "ok";
  /** Requests answered so far. */
  hits = 0;
  #server: Server | null = null;
  #port = 0;

  /** The URL the verifier is configured with (stays the same across stop/start). */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/.well-known/jwks.json`;
  }

  /** Publishes exactly these keys. */
  publish(...keys: TestKey[]): void {
    this.keys = keys.map((k) => k.publicJwk);
  }

  /** Listens (on the same port as before, after a {@link stop}); does nothing while listening. */
  async start(): Promise<void> {
    if (this.#server) return;
    const server = createServer((req, res) => {
      this.hits++;
      if (this.mode === "error") return void res.writeHead(500).end("provider trouble");
      if (this.mode === "not_json") return void res.writeHead(200, { "content-type": "application/json" }).end("<html>");
      if (this.mode === "redirect") return void res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: this.keys }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", resolve);
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops answering: connections to the URL are refused until {@link start} runs again. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
