#!/usr/bin/env bash
# Runs the public HTTP caching suite http-tests/cache-tests (the suite behind cache-tests.fyi)
# through Larder's /fetch and prints the score and the failing test ids. For humans: it needs the
# suite's repository, which CI cannot fetch (CI runs the project's own tests of the same rules).
#
#   scripts/cache-tests.sh [TEST_ID]
#
# The suite comes from CACHE_TESTS_GIT (a git directory holding the pinned commit) or is cloned
# from GitHub into ~/.cache/larder/cache-tests. Node 20 runs it with no npm package: the suite's
# own origin (scripts/cache-tests/origin.mjs) and a relay (relay.mjs) that maps its requests onto
# /fetch?url= are started on 127.0.0.1; undici, needed for the interim-response tests, is replaced
# by a shim over Node's built-in fetch. Larder is the release build (LARDER_BIN to run another
# binary) with a fresh database and loopback origins allowed; extra flags go in CACHE_TESTS_FLAGS.
# With TEST_ID it runs that one test and prints its requests and responses.
# Output: the score, the scored tests that fail, the unscored "check" tests; the raw results are
# kept in CACHE_TESTS_RESULTS (default: $TMPDIR/cache-tests-results.json). Takes about 3 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-processes.sh
suite_commit=b55b8bda3dbb8c927c04e85bd8d496a8caa3e4ba   # 2026-07-20; README's figure is for this commit
helpers=$(realpath scripts/cache-tests)

git_dir=${CACHE_TESTS_GIT:-}
if [[ -z "$git_dir" ]]; then
    git_dir="$HOME/.cache/larder/cache-tests"
    if ! git --git-dir="$git_dir" cat-file -e "$suite_commit^{commit}" 2>/dev/null; then
        rm -rf "$git_dir"
        git clone --bare --quiet https://github.com/http-tests/cache-tests.git "$git_dir"
    fi
fi
mkdir -p "$work/suite/node_modules/undici"
git --git-dir="$git_dir" archive "$suite_commit" test-engine tests package.json | tar -x -C "$work/suite"
cp "$helpers/undici-shim.mjs" "$work/suite/node_modules/undici/index.mjs"
echo '{"name": "undici", "type": "module", "main": "index.mjs"}' >"$work/suite/node_modules/undici/package.json"

larder=${LARDER_BIN:-}
if [[ -z "$larder" ]]; then
    swift build -c release --product larder >&2
    larder=.build/release/larder
fi
# shellcheck disable=SC2086 # CACHE_TESTS_FLAGS is a list of flags
"$larder" serve --host 127.0.0.1 --port 0 --db "$work/larder.db" --allow-network 127.0.0.1/32 \
    --access-log false ${CACHE_TESTS_FLAGS:-} >"$work/larder.log" 2>&1 &
pids+=($!)
larder_port=$(port_from_log "$work/larder.log" 'listening on [^ ]*:[0-9]+')
node "$helpers/origin.mjs" "$work/suite" >"$work/origin.log" 2>&1 &
pids+=($!)
origin_port=$(port_from_log "$work/origin.log" 'origin listening on [^ ]*:[0-9]+')
node "$helpers/relay.mjs" "$origin_port" "$larder_port" >"$work/relay.log" 2>&1 &
pids+=($!)
relay_port=$(port_from_log "$work/relay.log" 'relay listening on [^ ]*:[0-9]+')

echo "suite http-tests/cache-tests@${suite_commit:0:12}; larder $larder on :$larder_port, origin :$origin_port, relay :$relay_port" >&2
node --no-warnings "$helpers/run.mjs" "$work/suite" "http://127.0.0.1:$relay_port" \
    "${CACHE_TESTS_RESULTS:-${TMPDIR:-/tmp}/cache-tests-results.json}" "${1:-}"
