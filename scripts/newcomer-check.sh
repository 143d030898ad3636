#!/usr/bin/env bash
# The newcomer path, exactly: clone the committed branch into a temp dir, run with an empty HOME
# (no ~/.npmrc, no nodedir, no npm cache, no agentx config), then `npm ci && npm test`.
# Proves the project installs without a compiler or Node headers and passes from a clean clone.
# Run it before every stop. Usage: scripts/newcomer-check.sh [extra args passed to `npm test --`]
#   NEWCOMER_CMD='npx vitest run test/e2e/repl.test.ts' scripts/newcomer-check.sh   (a quicker check)
#   NEWCOMER_KEEP=1 keeps the temp dir for inspection.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
branch="$(git -C "$repo" rev-parse --abbrev-ref HEAD)"
commit="$(git -C "$repo" rev-parse --short HEAD)"
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  echo "newcomer-check: note: uncommitted changes are not part of the check (it tests $commit)" >&2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/agentx-newcomer-XXXXXX")"
cleanup() {
  if [ "${NEWCOMER_KEEP:-}" = 1 ]; then echo "newcomer-check: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/home"

echo "newcomer-check: cloning $branch ($commit) into $work/agentx" >&2
git clone --quiet --branch "$branch" "$repo" "$work/agentx"
cd "$work/agentx"

# An empty HOME, and nothing npm-related inherited from the caller's environment.
run() {
  env -i PATH="$PATH" HOME="$work/home" TMPDIR="${TMPDIR:-/tmp}" LANG=C.UTF-8 TERM="${TERM:-dumb}" CI=true "$@"
}

echo "newcomer-check: npm ci (HOME=$work/home)" >&2
run npm ci --no-audit --no-fund
# Nothing may be compiled on install: a binding.gyp anywhere means node-gyp ran (or would on
# another machine, where it needs a C++ toolchain and Node's headers).
gyp="$(find node_modules -name binding.gyp -not -path '*/test/*' | head -5)"
if [ -n "$gyp" ]; then
  echo "newcomer-check: a dependency builds native code with node-gyp:" >&2
  echo "$gyp" >&2
  exit 1
fi

if [ -n "${NEWCOMER_CMD:-}" ]; then
  echo "newcomer-check: $NEWCOMER_CMD" >&2
  run bash -c "$NEWCOMER_CMD"
else
  echo "newcomer-check: npm test" >&2
  run npm test -- "$@"
fi
echo "newcomer-check: OK ($branch $commit)" >&2
