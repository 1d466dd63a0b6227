#!/usr/bin/env bash
# Keeps README.md true: the settings table between its markers must be exactly what the built
# `larder settings --markdown` prints (the same table that feeds --help and the environment overlay).
set -euo pipefail
cd "$(dirname "$0")/.."
larder=$(swift build --show-bin-path)/larder
expected=$("$larder" settings --markdown)
actual=$(sed -n '/<!-- settings:begin -->/,/<!-- settings:end -->/p' README.md | sed '1d;$d')
if [[ "$expected" != "$actual" ]]; then
    echo "README.md's settings table is out of date; replace it with \`larder settings --markdown\`:" >&2
    diff <(echo "$actual") <(echo "$expected") >&2 || true
    exit 1
fi
echo "README settings table matches larder settings --markdown"
# README is for its readers (issue 20): reference material goes to docs/, measurement history to
# Benchmarks/README.md.
lines=$(wc -l <README.md)
if ((lines > 450)); then
    echo "README.md has $lines lines, more than 450: move reference material to docs/ or Benchmarks/README.md" >&2
    exit 1
fi
