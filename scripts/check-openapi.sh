#!/usr/bin/env bash
# Keeps the contract honest without a server: openapi.yaml must be a valid OpenAPI 3.1 document, and
# the file SwiftPM embeds in the binary (Sources/LarderAPI/Resources/openapi.yaml) must be a symlink to
# it, so that there is one document. The tests compare what the binary serves with the file.
set -euo pipefail
cd "$(dirname "$0")/.."
openapi-spec-validator openapi.yaml
embedded=Sources/LarderAPI/Resources/openapi.yaml
if [[ ! -L $embedded || $(readlink "$embedded") != ../../../openapi.yaml ]]; then
    echo "$embedded must be a symlink to ../../../openapi.yaml (the one copy of the contract)" >&2
    exit 1
fi
echo "openapi.yaml is valid and is the document the binary embeds"
