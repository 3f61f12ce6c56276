#!/usr/bin/env bash
# Lints the Swift sources (the package's, the benchmarks', the fuzzers', the integrations') against
# .swift-format (the toolchain's `swift format`), strictly: any finding fails. Fix with
# `swift format --in-place --recursive` on the same paths.
#   scripts/format-check.sh            # every Swift source directory of the repository
#   scripts/format-check.sh PATH...    # only these files or directories
set -euo pipefail
cd "$(dirname "$0")/.."

paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
    paths=(Sources Tests Benchmarks/Sources Benchmarks/Benchmarks Fuzz/Sources)
    # The integration packages' sources and tests, named one by one: `--recursive` on Integrations/ itself
    # would also lint a .build folder that `swift build` run inside a package leaves there.
    for dir in Integrations/*/Sources Integrations/*/Tests; do
        [ -d "$dir" ] && paths+=("$dir")
    done
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift format lint --strict --recursive --parallel --configuration .swift-format "${paths[@]}" 2>"$log" || status=$?
cat "$log"
findings=$(grep -c ': \(error\|warning\): \[' "$log" || true)
if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ]; then
    echo "format-check: $findings finding(s); by rule:"
    grep -o ': \(error\|warning\): \[[A-Za-z]*\]' "$log" | sed 's/.*\[//; s/\]//' | sort | uniq -c | sort -rn
    exit 1
fi
echo "format-check: clean"
