#!/usr/bin/env bash
# Installs the system packages Larder builds, runs and tests with, when they are missing.
# Debian/Ubuntu; run as root or with sudo available. Idempotent and quiet when all is present.
set -euo pipefail

build_packages=(libsqlite3-dev zlib1g-dev libcurl4-openssl-dev libssl-dev pkg-config)
test_packages=(python3 python3-pip curl iproute2 nginx-light sqlite3)
wanted=("${build_packages[@]}")
if [[ "${1:-}" == "--test" ]]; then wanted+=("${test_packages[@]}"); fi

missing=()
for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]} > 0)); then
    echo "install-deps: installing ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ "${1:-}" == "--test" ]]; then
    # Python packages: one per line in python-requirements.txt; pip runs only when one is missing.
    requirements="$(dirname "$0")/python-requirements.txt"
    if ! python3 "$(dirname "$0")/python-requirements-met.py" "$requirements"; then
        echo "install-deps: installing Python packages from $requirements"
        python3 -m pip install -q -r "$requirements" 2>/dev/null ||
            python3 -m pip install -q --break-system-packages -r "$requirements"
    fi
fi
