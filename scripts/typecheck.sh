#!/usr/bin/env bash
# Typechecks every TypeScript program of the repo: each root tsconfig*.json except the shared
# base is its own program (Node code, Worker code, tooling, adapter tests). Then checks that no
# source files anywhere in the tree (packages, apps, tools, tests, scripts) import each other in
# a cycle, that no import runs back up against AGENTS.md's dependency table, and that no source
# file passes 500 lines without saying why.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rc=0
for cfg in tsconfig.json tsconfig.*.json; do
  [ -f "$cfg" ] && [ "$cfg" != "tsconfig.base.json" ] || continue
  echo "tsc -p $cfg"
  tsc -p "$cfg" --noEmit --pretty false || rc=1
done
echo "import cycles"
node scripts/import-cycles.mjs || rc=1
echo "import direction"
node scripts/import-direction.mjs || rc=1
echo "file lengths"
node scripts/file-lengths.mjs || rc=1
exit $rc
