#!/usr/bin/env bash
# The whole test suite, as `npm test` runs it (scripts/toolchain.sh puts the pinned toolchain on
# PATH first). Every step runs even after a failure, so one run shows everything that is broken;
# the last line is always `tests: N passed, M failed` and the exit code is non-zero on any failure.
#
# To add a step: append a `step NAME command...` line, or `vitest_step PROJECT` for a vitest
# project defined in vitest.config.ts (its results join the closing count).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

RESULTS="$ROOT/.tmp/test-results"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

failed_steps=()
expected_reports=()
suite_started=$SECONDS

step() {
  local name="$1"; shift
  local started=$SECONDS
  echo
  echo "==> $name"
  if "$@"; then
    echo "<== $name: ok ($((SECONDS - started))s)"
  else
    echo "<== $name: FAILED ($((SECONDS - started))s)"
    failed_steps+=("$name")
  fi
}

# A vitest project whose JSON report feeds the closing count. A failing run is not a failed
# *step*: its failures are already counted test by test from the report.
vitest_step() {
  local project="$1"; shift
  local report="$RESULTS/$project.json"
  expected_reports+=(--expect "$project=$report")
  local started=$SECONDS
  echo
  echo "==> vitest $project"
  if vitest run --project "$project" --passWithNoTests \
      --reporter=default --reporter=json --outputFile.json="$report" "$@"; then
    echo "<== vitest $project: ok ($((SECONDS - started))s)"
  else
    echo "<== vitest $project: FAILED ($((SECONDS - started))s)"
  fi
}


step typecheck bash scripts/typecheck.sh
# The API reference from the packages' JSDoc; fails on any undocumented export (typedoc.json).
step "api reference" typedoc --logLevel Warn
step "sdk bundle size" tsx scripts/bundle-size.ts
step "build web" tsx apps/web/build.ts
# The C# SDK (packages/client-dotnet): restored through nuget.config, built, its xunit tests run
# (the golden files, codecs, the connection against fake sockets). Its results join the count.
step "dotnet client" bash scripts/dotnet-test.sh "$RESULTS"
expected_reports+=(--expect "dotnet=$RESULTS/dotnet.json")
vitest_step unit
vitest_step integration
vitest_step integration-timed
vitest_step browser

echo
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "failed steps: ${failed_steps[*]}"
fi
echo "total time: $((SECONDS - suite_started))s"
node scripts/summarize-tests.mjs --failed-steps "${#failed_steps[@]}" "${expected_reports[@]}"
