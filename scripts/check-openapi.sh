#!/usr/bin/env bash
# Keeps the contract honest without a server: openapi.yaml must be a valid OpenAPI 3.1 document, and
# the copy the binary serves (Sources/LarderAPI/OpenAPI/) must be generated from it.
set -euo pipefail
cd "$(dirname "$0")/.."
openapi-spec-validator openapi.yaml
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
scripts/generate-openapi-swift.sh --out "$fresh" >/dev/null
if ! diff -ru Sources/LarderAPI/OpenAPI "$fresh" >/dev/null; then
    echo "Sources/LarderAPI/OpenAPI/ is out of date with openapi.yaml; run scripts/generate-openapi-swift.sh" >&2
    diff -ru Sources/LarderAPI/OpenAPI "$fresh" | head -20 >&2 || true
    exit 1
fi
echo "openapi.yaml is valid and the served copy is up to date"
