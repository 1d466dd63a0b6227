#!/usr/bin/env bash
# Runs README.md's endpoint examples against a real `larder serve` and a loopback origin, and fails
# when one breaks (issue 6: "curl examples that are run by a test, so they cannot rot").
#
# Which blocks run: every ```sh block of the "## Endpoints" section that follows a line
# `<!-- example -->`. They run in order in one bash shell (variables carry from line to line), with
# http://127.0.0.1:8080 replaced by the test server's address and 127.0.0.1:8000 by the test origin's.
# After a command, lines `#> ...` are checked against its last response:
#   #> 200              the status code
#   #> X-Cache: HIT     that header field with that value (a trailing ... means "starts with")
#   #> ~ "purged":      the body (what the command printed) contains the text
# A command with no status line must answer 2xx or 3xx. Every check has a timeout (curl --max-time).
# LARDER_BIN picks the binary (default: the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
larder="${LARDER_BIN:-$(swift build --show-bin-path)/larder}"
source scripts/lib-processes.sh

# The origin the README describes: python3 -m http.server serving a folder with these files.
mkdir -p "$work/origin/img" "$work/run"
python3 - "$work/origin" <<'PY'
import sys, zlib, struct
root = sys.argv[1]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
raw = b"".join(b"\x00" + b"\x00\x00\x00" * 4 for _ in range(4))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
for name in ("logo.png", "img/a.png"):
    open(f"{root}/{name}", "wb").write(png)
open(f"{root}/data.json", "w").write('{"items": [' + ", ".join(f'{{"id": {i}}}' for i in range(200)) + "]}\n")
open(f"{root}/big.bin", "wb").write(bytes(range(256)) * 64)
PY
# Old files, so that the heuristic freshness (RFC 9111 §4.2.2) keeps them fresh for the examples,
# and a conditional dated after this answers 304.
find "$work/origin" -type f -exec touch -d '2026-01-01 00:00:00 UTC' {} +
python3 -u -m http.server --bind 127.0.0.1 --directory "$work/origin" 0 >"$work/origin.log" 2>&1 &
pids+=($!)
origin_port=$(port_from_log "$work/origin.log" 'port [0-9]+')
"$larder" serve --host 127.0.0.1 --port 0 --db "$work/cache.db" --allow-network 127.0.0.0/8 \
    --access-log false >"$work/larder.log" 2>&1 &
pids+=($!)
port=$(port_from_log "$work/larder.log" 'listening on 127\.0\.0\.1:[0-9]+')

python3 - README.md "$work/run" "$port" "$origin_port" <<'PY'
import re, sys
readme, out, port, origin_port = sys.argv[1:]
text = open(readme, encoding="utf-8").read()
section = re.search(r"^## Endpoints\n(.*?)(?=^## )", text, re.S | re.M)
if not section:
    sys.exit("README.md has no '## Endpoints' section")
blocks = re.findall(r"<!-- example -->\n```sh\n(.*?)```", section.group(1), re.S)
if not blocks:
    sys.exit("README.md's Endpoints section has no <!-- example --> blocks")

def quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

script = ["set -u", 'source "$EXAMPLES_LIB"']
total = 0
for number, block in enumerate(blocks, 1):
    block = block.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{port}")
    block = block.replace("127.0.0.1:8000", f"127.0.0.1:{origin_port}")
    # A command continues over lines while it ends with a backslash or a single-quoted string is open.
    lines, pending = [], ""
    for line in block.splitlines():
        if not pending and line.lstrip().startswith("#"):
            lines.append(line)
            continue
        pending = pending + "\n" + line if pending else line
        if not (pending.rstrip().endswith("\\") or pending.count("'") % 2 == 1):
            lines.append(pending)
            pending = ""
    if pending:
        sys.exit(f"example {number}: unterminated command: {pending[:80]}")
    script.append(f"echo '== example {number}'")
    def close(command, checks):
        if command is None:
            return
        script.append(f"run_example {quote(command)}")
        if not any(re.fullmatch(r"\d{3}", c) for c in checks):
            script.append("expect_success")
        for check in checks:
            if re.fullmatch(r"\d{3}", check):
                script.append(f"expect_status {check}")
            elif check.startswith("~ "):
                script.append(f"expect_body {quote(check[2:])}")
            elif ":" in check:
                name, value = check.split(":", 1)
                script.append(f"expect_header {quote(name.strip())} {quote(value.strip())}")
            else:
                sys.exit(f"example {number}: cannot read the check '#> {check}'")
    command, checks = None, []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#>"):
            if command is None:
                sys.exit(f"example {number}: '{stripped}' follows no command")
            checks.append(stripped[2:].strip())
        elif not stripped or stripped.startswith("#"):
            continue
        else:
            close(command, checks)
            command, checks = line, []
            total += 1
    close(command, checks)
open(f"{out}/examples.sh", "w").write("\n".join(script) + "\n")
print(f"{len(blocks)} example blocks, {total} commands")
PY

# What every example script sources: curl records each response's head, checks read it.
cat >"$work/lib.sh" <<'LIB'
example_failed() { echo "FAILED: $EXAMPLE_COMMAND" >&2; echo "  $*" >&2; exit 1; }
curl() { command curl --max-time 10 -D "$EXAMPLE_HEAD" "$@"; }
run_example() {
    EXAMPLE_COMMAND=$1
    : >"$EXAMPLE_HEAD"
    echo "\$ $1"
    eval "$1" >"$EXAMPLE_OUT" 2>&1 || example_failed "exited $?: $(head -c 300 "$EXAMPLE_OUT")"
    head -c 300 "$EXAMPLE_OUT" | cat -v | sed 's/^/  /'
    echo
}
# The last response's head (curl -D appends one head per response).
last_head() { awk '/^HTTP\//{h=""} {h=h $0 "\n"} END{printf "%s", h}' "$EXAMPLE_HEAD" | tr -d '\r'; }
last_status() { last_head | head -1 | awk '{print $2}'; }
expect_status() {
    [[ "$(last_status)" == "$1" ]] || example_failed "status $(last_status), the README says $1"
}
expect_success() {
    local status
    # A line that calls no curl (ORIGIN=...) has no response to check; one that does must have one.
    [[ "$EXAMPLE_COMMAND" == *curl* ]] || return 0
    status=$(last_status)
    [[ "$status" =~ ^[23] ]] || example_failed "status ${status:-none}; add '#> $status' if that is meant"
}
expect_header() {
    local name=$1 value=$2 actual
    actual=$(last_head | grep -i "^$name:" | head -1 | cut -d: -f2- | sed 's/^ *//')
    if [[ "$value" == *... ]]; then
        [[ "$actual" == "${value%...}"* ]] || example_failed "$name is '$actual', the README says '$value'"
    else
        [[ "$actual" == "$value" ]] || example_failed "$name is '$actual', the README says '$value'"
    fi
}
expect_body() { grep -qF -- "$1" "$EXAMPLE_OUT" || example_failed "the output does not contain '$1'"; }
LIB

# All blocks run in one shell, in README order, as a reader would run them in one terminal: a
# variable set in one block (ORIGIN) holds in the next, and the first broken example stops the run.
if ! (cd "$work/run" && EXAMPLES_LIB="$work/lib.sh" EXAMPLE_HEAD="$work/head" EXAMPLE_OUT="$work/out" \
    timeout 60 bash "$work/run/examples.sh"); then
    echo "check-readme-examples: an example in README.md broke (above); larder's log:" >&2
    tail -20 "$work/larder.log" >&2
    exit 1
fi
echo "every README endpoint example ran as documented"
