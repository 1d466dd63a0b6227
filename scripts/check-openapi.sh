#!/usr/bin/env bash
# Keeps the contract honest without a server: openapi.yaml must be a valid OpenAPI 3.1 document, and
# the copy the binary serves (Sources/LarderAPI/OpenAPIDocument.swift) must be generated from it.
set -euo pipefail
cd "$(dirname "$0")/.."
openapi-spec-validator openapi.yaml
if ! diff -u Sources/LarderAPI/OpenAPIDocument.swift <(scripts/generate-openapi-swift.sh --stdout) >/dev/null; then
    echo "Sources/LarderAPI/OpenAPIDocument.swift is out of date with openapi.yaml;" \
        "run scripts/generate-openapi-swift.sh" >&2
    diff -u Sources/LarderAPI/OpenAPIDocument.swift <(scripts/generate-openapi-swift.sh --stdout) | head -20 >&2 || true
    exit 1
fi
echo "openapi.yaml is valid and the served copy is up to date"
