#!/usr/bin/env bash
# The comparison benchmark end to end: system packages, release build, run, chart.
#   Benchmarks/run.sh                 # full run: bench/results.json + bench/results.png
#   Benchmarks/run.sh --smoke         # CI gate: short cells, exits 1 only on gross regressions
#   Benchmarks/run.sh --seconds 5 --algs RS256,ES256   # other flags go to jwtk-compare
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

need=()
for p in libssl-dev libxxhash-dev libjwt-dev pkg-config; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

smoke=0
for a in "$@"; do [ "$a" = "--smoke" ] && smoke=1; done
if [ $smoke = 0 ] && ! python3 -c 'import matplotlib' 2>/dev/null; then
    python3 -m pip install -q matplotlib
fi

cd "$here"
swift build -c release --product jwtk-compare
bin="$(swift build -c release --product jwtk-compare --show-bin-path)/jwtk-compare"
"$bin" "$@"
if [ $smoke = 0 ] && [ -f "$root/bench/results.json" ]; then
    python3 "$here/plot.py" "$root/bench/results.json" "$root/bench/results.png"
fi
