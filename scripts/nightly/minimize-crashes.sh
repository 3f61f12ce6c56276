#!/usr/bin/env bash
# After a failed nightly fuzz run: each reproducer Fuzz/run.sh kept for HARNESS (Fuzz/.build-fuzz/artifacts/H/:
# crash-*, leak-*, timeout-*, oom-*) minimized with libFuzzer's -minimize_crash into
# Fuzz/.build-fuzz/minimized/H/, next to the original, for the workflow to upload. A reproducer that does not
# reproduce (flaky, a timeout on a loaded runner) is copied as it is, named so.
#   scripts/nightly/minimize-crashes.sh HARNESS [runs]     default 20000 minimization runs per input
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
h=${1:?usage: minimize-crashes.sh HARNESS [runs]}
runs=${2:-20000}
bin="$root/Fuzz/.build-fuzz/release/$h"
art="$root/Fuzz/.build-fuzz/artifacts/$h"
out="$root/Fuzz/.build-fuzz/minimized/$h"
mkdir -p "$out"
[ -x "$bin" ] || { echo "minimize-crashes: no harness binary $bin (the fuzz build failed?)"; exit 0; }
export SWIFT_BACKTRACE=enable=no
n=0
for f in "$art"/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    name=$(basename "$f")
    if "$bin" -minimize_crash=1 -runs="$runs" -timeout=10 -exact_artifact_path="$out/$name.min" "$f" \
        >"$out/$name.log" 2>&1 && [ -s "$out/$name.min" ]; then
        echo "minimized $name: $(wc -c <"$f") -> $(wc -c <"$out/$name.min") bytes"
    else
        cp "$f" "$out/$name.unminimized"
        echo "kept $name as it is (did not minimize: $out/$name.log)"
    fi
done
echo "minimize-crashes: $n reproducer(s) of $h"
