#!/usr/bin/env bash
# One entry point for a fresh machine:
#   bash scripts/dev.sh example   automatic recall from the bundled example vault
#   bash scripts/dev.sh test      typecheck, lint and every test (`pnpm test`)
#   bash scripts/dev.sh -- CMD    run CMD with the project's toolchain on PATH
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh

case "${1:-}" in
  example)
    shift
    query="${*:-how do we keep the cache consistent}"
    # The automatic policy: what Pi injects on a turn, on the first one too.
    exec node bin/llm-wiki.js recall --auto "$query" --vault examples/acme-notes
    ;;
  test)
    shift
    exec node scripts/test.ts "$@"
    ;;
  --)
    shift
    exec "$@"
    ;;
  *)
    echo "usage: bash scripts/dev.sh example [QUERY] | test | -- CMD" >&2
    exit 2
    ;;
esac
