#!/usr/bin/env bash
# The comparison benchmark end to end: system packages, release build, run, chart.
#   Benchmarks/run.sh                  # full run: bench/results.json + bench/results.png
#   Benchmarks/run.sh --smoke          # CI gate: short cells, exits 1 only on gross regressions
#   Benchmarks/run.sh --seconds 5 --algs RS256,ES256   # any other flags go to jwtk-compare
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

smoke=0 out="$root/bench/results.json" prev=""
for a in "$@"; do
    [ "$a" = "--smoke" ] && smoke=1
    [ "$prev" = "--out" ] && out="$a"
    prev="$a"
done

"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev libcurl4-openssl-dev libjwt-dev pkg-config
if [ $smoke = 0 ] && ! python3 -c 'import matplotlib' 2>/dev/null; then
    # pip for a pyenv/venv Python; Debian's package where the system Python refuses pip (PEP 668).
    python3 -m pip install -q matplotlib 2>/dev/null || "$root/scripts/apt-deps.sh" python3-matplotlib
fi

# The jwtk-c cells load the shipped C library, installed as `make install` does (own scratch, .build-clib).
"$root/scripts/clib/install.sh" "$root/.build-clib/bench" >/dev/null
export JWTK_LIB="$root/.build-clib/bench/lib/libjwtk.so.0"
swift build -c release --package-path "$here" --product jwtk-compare
"$(swift build -c release --package-path "$here" --show-bin-path)/jwtk-compare" "$@"
if [ $smoke = 0 ]; then
    python3 "$here/plot.py" "$out" "${out%.json}.png"
fi
