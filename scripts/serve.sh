#!/usr/bin/env bash
# Quick start: installs the system libraries if missing, builds a release binary and starts Larder
# on its embedded default (./larder.db, port 8080). Extra arguments go to `larder serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product larder
exec .build/release/larder serve "$@"
