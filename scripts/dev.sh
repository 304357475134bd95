#!/usr/bin/env bash
# `npm run dev`: builds the web app, serves the gateway locally with wrangler.staging.jsonc
# (DEV_MODE: no join tickets), runs the short demo in scripts/dev-smoke.ts, seats a few server
# bots in the rooms agar/lobby and movement/lobby (so the lobby page shows live rooms), then keeps
# serving until Ctrl-C. The server is always stopped on the way out.
#
# Options (or the env vars in brackets):
#   --smoke-only          run the demo step and exit with its status   [TIKRON_SMOKE_ONLY=1]
#   --port N              HTTP port (default 8787)                     [TIKRON_DEV_PORT]
#   --inspector-port N    devtools port (default 9229)                 [TIKRON_DEV_INSPECTOR_PORT]
#   --config FILE         wrangler config (default wrangler.staging.jsonc) [TIKRON_DEV_CONFIG]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

port="${TIKRON_DEV_PORT:-8787}"
inspector_port="${TIKRON_DEV_INSPECTOR_PORT:-9229}"
smoke_only="${TIKRON_SMOKE_ONLY:-0}"
config="${TIKRON_DEV_CONFIG:-wrangler.staging.jsonc}"
ready_timeout_s=60

while [ $# -gt 0 ]; do
  case "$1" in
    --smoke-only) smoke_only=1 ;;
    --port) port="$2"; shift ;;
    --inspector-port) inspector_port="$2"; shift ;;
    --config) config="$2"; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dev: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

export CLOUDFLARE_CF_FETCH_ENABLED=false WRANGLER_SEND_METRICS=false WRANGLER_HIDE_BANNER=true
export WRANGLER_LOG_PATH="${WRANGLER_LOG_PATH:-$ROOT/.wrangler/logs}"

url="http://127.0.0.1:$port"
ws_url="ws://127.0.0.1:$port"

if [ "$smoke_only" = 1 ]; then
  # A throwaway state dir, so a smoke run never touches (or is disturbed by) day-to-day dev state.
  persist="$ROOT/.tmp/dev-smoke-$$"
else
  persist="$ROOT/.wrangler/state"
fi

show_server_log() {
  if [ -n "$server_log" ] && [ -f "$server_log" ]; then
    echo "--- wrangler output ---"
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$server_log" | tail -n 80
    echo "---"
  fi
}

server_pid=""
server_log=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$server_pid" ]; then
    # wrangler runs in its own session/process group (setsid below), so workerd is reached by
    # signalling the group; Ctrl-C in this terminal would not reach it otherwise.
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 -- "-$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
    echo "dev: server stopped"
  fi
  if [ "$smoke_only" = 1 ]; then rm -rf "$persist"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

echo "dev: building web app"
tsx apps/web/build.ts

echo "dev: starting wrangler dev ($config) on $url"
# In smoke-only mode wrangler's chatter goes to a log that is shown only if something fails;
# interactively it streams to the terminal (request logs are useful while developing).
wrangler_args=(
  dev --config "$config"
  --ip 127.0.0.1 --port "$port"
  --inspector-ip 127.0.0.1 --inspector-port "$inspector_port"
  --persist-to "$persist"
  --show-interactive-dev-session=false
)
# setsid: a new process group whose id is the pid we get back, so cleanup can kill the group.
if [ "$smoke_only" = 1 ]; then
  mkdir -p "$persist"
  server_log="$persist/wrangler.out"
  setsid wrangler "${wrangler_args[@]}" </dev/null >"$server_log" 2>&1 &
else
  setsid wrangler "${wrangler_args[@]}" </dev/null &
fi
server_pid=$!
echo "dev: server pid $server_pid"

# Bounded wait for /health; gives up early if wrangler died or (smoke-only) reported a build
# error, after which it would only sit watching for edits.
if ! node -e '
  const fs = require("node:fs");
  const [url, pid, timeoutS, log] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
  const deadline = Date.now() + timeoutS * 1000;
  const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
  const failedBuild = () => { try { return log !== "" && /\[ERROR\]/.test(fs.readFileSync(log, "utf8").replace(/\x1b\[[0-9;]*[A-Za-z]/g, "")); } catch { return false; } };
  (async () => {
    while (Date.now() < deadline) {
      if (!alive()) { console.error("dev: wrangler exited before it was ready"); process.exit(1); }
      if (failedBuild()) { console.error("dev: wrangler reported an error while starting"); process.exit(1); }
      try {
        const res = await fetch(url + "/health", { signal: AbortSignal.timeout(2000) });
        if (res.status === 200) process.exit(0);
      } catch {}
      await new Promise((r) => setTimeout(r, 250));
    }
    console.error(`dev: ${url}/health did not answer within ${timeoutS}s`);
    process.exit(1);
  })();
' "$url" "$server_pid" "$ready_timeout_s" "$server_log"; then
  show_server_log
  exit 1
fi

cat <<EOF

  Tikron gateway is up ($config; staging has DEV_MODE: no tickets needed)
    lobby       $url/                      (every game, live rooms, new-room buttons)
    play        $url/play?game=agar&room=lobby
    join URL    $ws_url/rooms/agar/lobby
    room list   $url/match/agar/rooms     (POST $url/match/agar finds a seat)
    health      $url/health

EOF

echo "dev: running the demo step (scripts/dev-smoke.ts)"
smoke_rc=0
tsx scripts/dev-smoke.ts "$url" || smoke_rc=$?

if [ "$smoke_only" = 1 ]; then
  [ "$smoke_rc" -eq 0 ] || show_server_log
  exit "$smoke_rc"
fi
if [ "$smoke_rc" -ne 0 ]; then
  echo "dev: the demo step failed (exit $smoke_rc); the server keeps running" >&2
fi

# Server bots (the rooms' own, DEV_MODE) so the first visit to the lobby shows life. They leave
# by themselves after five minutes without a human in the room; the page's bots control (or
# POST /rooms/<kind>/<room>/bots?count=N) brings them back.
for spec in agar:6 movement:4; do
  kind="${spec%%:*}"
  count="${spec##*:}"
  if out="$(node -e 'fetch(process.argv[1], { method: "POST", signal: AbortSignal.timeout(5000) }).then(async (r) => { const t = await r.text(); console.log(t); process.exit(r.ok ? 0 : 1); }, (e) => { console.error(String(e)); process.exit(1); })' "$url/rooms/$kind/lobby/bots?count=$count" 2>&1)"; then
    echo "dev: $kind/lobby has bots: $out"
  else
    echo "dev: could not seat bots in $kind/lobby: $out" >&2
  fi
done

echo "dev: serving on $url - open $url/ for the lobby; press Ctrl-C to stop"
wait "$server_pid"
