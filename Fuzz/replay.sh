#!/usr/bin/env bash
# Replays every committed input (seeds Fuzz/corpus/<H>/ and crash reproducers
# Fuzz/corpus/regressions/<H>/) through each harness's replay runner: a plain debug build, no
# sanitizer, no libFuzzer, the same entry point and invariants. `make test` runs it after the
# XCTest suite, so a fixed bug that comes back fails the tests. Exit status non-zero on any
# invariant violation or crash.
#
#   Fuzz/replay.sh          (make fuzz-replay)
set -euo pipefail
FUZZ=$(cd "$(dirname "$0")" && pwd)
read -r -a HARNESSES <"$FUZZ/harnesses"

# A harness directory missing from Fuzz/harnesses would be neither fuzzed nor replayed.
for dir in "$FUZZ"/Sources/Fuzz*; do
    name=$(basename "$dir")
    case "$name" in FuzzSupport) continue ;; esac
    [[ " ${HARNESSES[*]} " == *" $name "* ]] || { echo "replay.sh: $name is not listed in Fuzz/harnesses" >&2; exit 1; }
done

mkdir -p "$FUZZ/.build"
echo "=== fuzz corpus replay: building the replay runners (swift build --package-path Fuzz)"
if ! swift build --package-path "$FUZZ" >"$FUZZ/.build/replay-build.log" 2>&1; then
    grep -E 'error' "$FUZZ/.build/replay-build.log" | head -40 || tail -40 "$FUZZ/.build/replay-build.log"
    echo "replay.sh: build failed (log: $FUZZ/.build/replay-build.log)"
    exit 1
fi
status=0
export SWIFT_BACKTRACE=enable=no
for h in "${HARNESSES[@]}"; do
    dirs=("$FUZZ/corpus/$h")
    [ -d "$FUZZ/corpus/regressions/$h" ] && dirs+=("$FUZZ/corpus/regressions/$h")
    "$FUZZ/.build/debug/$h" "${dirs[@]}" || { echo "replay.sh: $h FAILED on a committed input"; status=1; }
done
exit $status
