#!/usr/bin/env bash
# The operator page in a real browser (issue 19): headless Chromium (Debian's `chromium` package,
# driven by Playwright for Python; no browser is downloaded) loads /ui/ from a real `larder serve` on
# loopback that fetches from a real origin on loopback (scripts/check-ui.py), and checks the thumbnail,
# the progress bar, explain, purge, text-only rendering, an SVG that must not run, the tag filter and
# the tag and soft purges, and that the page logs no console error and violates no CSP rule. Screenshots
# of each view go to .build/check-ui/ (git-ignored). About 25 s once Chromium is installed (the install
# itself: about a minute).
#
#   scripts/check-ui.sh            # build the debug binary if needed, run the check
#   LARDER_BIN=path scripts/check-ui.sh
#   CHECK_UI_DOCS=1 scripts/check-ui.sh   # also copy the entries view to docs/operator-page.png
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    echo "== installing chromium (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! python3 -c 'import playwright' 2>/dev/null; then
    echo "== installing playwright (PyPI; its own browser download is never used)"
    pip install -q playwright || pip install -q --break-system-packages playwright
fi

larder="${LARDER_BIN:-$(swift build --show-bin-path)/larder}"
if [[ -z "${LARDER_BIN:-}" ]]; then
    swift build --product larder >/dev/null
fi

mkdir -p .build/check-ui
exec python3 scripts/check-ui.py --larder "$larder" --chromium "$(command -v chromium)" --out .build/check-ui \
    ${CHECK_UI_DOCS:+--docs docs/operator-page.png}
