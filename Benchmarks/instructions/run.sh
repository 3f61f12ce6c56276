#!/usr/bin/env bash
# Instructions per HS256 verification, by callgrind, of the benchmark's token under three policies:
# "single" (jwtk-compare's single row: issuer and audience), "required" (its "required" row: four claim
# requirements, one per kind) and "nested" (the same with "/amr/1" equals "hwk", a nested step, in place of the
# array requirement). Deterministic, so usable on a loaded machine. Builds main.swift as the benchmark package's
# product jwtk-instructions (release, JWTKernel only: no jwt-kit); each figure is
# (Ir(11000 verifications) - Ir(1000)) / 10000, so start-up cancels out. Every algorithm and mode, the C API, the
# nginx module and the allocations: the cost guard, Benchmarks/guard/run.sh.
#   Benchmarks/instructions/run.sh [scratch-dir]      default /tmp/jwtk-instructions
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${1:-/tmp/jwtk-instructions}"
"$root/scripts/apt-deps.sh" valgrind binutils >/dev/null
mkdir -p "$work"
swift build -c release --package-path "$root/Benchmarks" --product jwtk-instructions >&2
# valgrind 3.19 cannot read the toolchain's DWARF: strip it (Benchmarks/README.md).
objcopy --strip-debug "$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/jwtk-instructions" \
    "$work/instructions"
ir() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/instructions" HS256 "$1" "$2" "$root/Benchmarks/Fixtures" 2>&1 |
        awk '/Collected/ {print $4}'
}
for mode in single required nested; do
    a=$(ir "$mode" 1000)
    b=$(ir "$mode" 11000)
    echo "$mode $(((b - a) / 10000))"
done
