#!/usr/bin/env bash
# The C# SDK's step of `npm test` (scripts/test.sh): restores through the repository's
# nuget.config (the machine's /opt/nuget/packages, then nuget.org for the netstandard2.1
# reference pack), builds every C# project (the library, the demo games'
# generated types, the tests, the live harness, the bot of examples/dotnet-bot, the engine
# examples of docs/csharp.md) and runs the xunit tests. Writes RESULTS/dotnet.json in the shape of a vitest report, so the suite's
# closing count includes the C# tests.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="${1:-$ROOT/.tmp/test-results}"
mkdir -p "$RESULTS"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

report() { # passed failed
  printf '{"numPassedTests":%d,"numFailedTests":%d,"numPendingTests":0,"testResults":[]}\n' "$1" "$2" >"$RESULTS/dotnet.json"
}

if ! command -v dotnet >/dev/null 2>&1; then
  echo "dotnet client: the .NET SDK is not on PATH"
  report 0 1
  exit 1
fi

cd "$ROOT"
status=0
# One build of every project (Tikron.Dotnet.sln: the library, the demo games' types, the tests,
# the live harness, the bot, the engine examples): one restore, one graph.
echo "[dotnet] build packages/client-dotnet/Tikron.Dotnet.sln"
dotnet build packages/client-dotnet/Tikron.Dotnet.sln -c Release -nologo -clp:ErrorsOnly || status=1
rm -rf "$RESULTS/dotnet"
echo "[dotnet] test packages/client-dotnet/test/Tikron.Client.Tests"
dotnet test packages/client-dotnet/test/Tikron.Client.Tests -c Release -nologo --no-build \
  --logger "trx;LogFileName=dotnet.trx" --logger "console;verbosity=minimal" --results-directory "$RESULTS/dotnet" || status=1

trx="$RESULTS/dotnet/dotnet.trx"
if [ -f "$trx" ]; then
  counters=$(grep -o '<Counters [^>]*>' "$trx" | head -1)
  passed=$(sed -n 's/.* passed="\([0-9]*\)".*/\1/p' <<<"$counters")
  failed=$(sed -n 's/.* failed="\([0-9]*\)".*/\1/p' <<<"$counters")
  # A build that failed beside tests that passed still counts as one failure.
  report "${passed:-0}" "$(( ${failed:-0} + (status != 0 && ${failed:-0} == 0 ? 1 : 0) ))"
  echo "[dotnet] ${passed:-0} passed, ${failed:-0} failed"
else
  report 0 1
  status=1
fi
exit $status
