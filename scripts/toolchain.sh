#!/usr/bin/env bash
# Runs "$@" with the project's pinned toolchain (Node 22 + pnpm) on PATH, installing it and the
# workspace dependencies first when they are missing or stale. Works on a fresh machine that only
# has the stock Node 20 + npm: the Node 22 binary comes from the npm registry's `node` package.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/tools/toolchain"
want_node="$(sed -n 's/.*"node": "\([0-9.]*\)".*/\1/p' "$TC/package.json")"

if [ ! -x "$TC/node_modules/.bin/node" ] || [ "$("$TC/node_modules/.bin/node" --version 2>/dev/null)" != "v$want_node" ]; then
  echo "[toolchain] installing Node $want_node + pnpm into tools/toolchain (one time)" >&2
  (cd "$TC" && npm install --no-audit --no-fund --no-package-lock --loglevel=error >&2)
fi
export PATH="$TC/node_modules/.bin:$ROOT/node_modules/.bin:$PATH"
# pnpm does not read npm's `cafile`; on machines whose registry traffic is re-signed by a local
# CA, point Node at the system bundle so installs do not fail TLS.
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi
export npm_config_update_notifier=false
export CLOUDFLARE_CF_FETCH_ENABLED=false
export WRANGLER_SEND_METRICS=false
export CI_NO_UPDATE_NOTIFIER=1

# Reinstall workspace deps only when the lockfile changed since the last install.
stamp="$ROOT/node_modules/.tikron-lock"
lockhash="$(sha1sum "$ROOT/pnpm-lock.yaml" 2>/dev/null | cut -d' ' -f1 || echo none)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lockhash" ]; then
  echo "[toolchain] pnpm install" >&2
  (cd "$ROOT" && if [ -f pnpm-lock.yaml ]; then pnpm install --frozen-lockfile --reporter=append-only >&2; else pnpm install --reporter=append-only >&2; fi)
  lockhash="$(sha1sum "$ROOT/pnpm-lock.yaml" | cut -d' ' -f1)"
  echo "$lockhash" > "$stamp"
fi
cd "$ROOT"
exec "$@"
