#!/usr/bin/env bash
# The DocC catalogue of JWTKernel (Sources/JWTKernel/JWTKernel.docc: overview, getting started, the hot path's
# contract, error codes) and the module's doc comments, built by swift-docc-plugin (`swift package
# generate-documentation`) into .build-docs/JWTKernel, a static-hosting archive (serve the folder, open
# /documentation/jwtkernel). Every DocC warning is an error: a ``symbol`` link that resolves to nothing, a <doc:>
# link to a missing article. The samples in the articles are compiled and run by
# Tests/JWTKernelRemoteTests/GettingStartedTests.swift (make test), not here.
# Prints the time it took and `docs: built N pages` (N: the archive's page documents), or fails.
#   scripts/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build-docs/JWTKernel
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s%N)

# The plugin moves its archive to --output-path, whose parent must exist; an old archive would be merged into.
rm -rf "$out"
mkdir -p .build-docs
status=0
swift package --allow-writing-to-directory .build-docs \
    generate-documentation --target JWTKernel --warnings-as-errors --disable-indexing \
    --output-path "$out" >"$log" 2>&1 || status=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
seconds=$(printf '%d.%01d' $((elapsed / 1000)) $((elapsed % 1000 / 100)))

if [ "$status" -ne 0 ]; then
    grep -v '^\[[0-9]*/[0-9]*\]' "$log" || true
    echo "docs: FAILED (swift package generate-documentation exit $status) after ${seconds}s"
    exit 1
fi

# The catalogue's articles must be in the archive (a catalogue the plugin did not find builds symbol pages only).
missing=0
for page in jwtkernel gettingstarted hotpathcontract errorcodes; do
    file="$out/data/documentation/jwtkernel.json"
    [ "$page" = jwtkernel ] || file="$out/data/documentation/jwtkernel/$page.json"
    if [ ! -s "$file" ]; then
        echo "docs: $file missing from the archive"
        missing=1
    fi
done
if [ "$missing" -ne 0 ]; then
    echo "docs: FAILED after ${seconds}s"
    exit 1
fi

pages=$(find "$out/data/documentation" -name '*.json' | wc -l)
echo "docs: ${seconds}s, archive $out"
echo "docs: built $pages pages"
