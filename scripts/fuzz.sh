#!/usr/bin/env bash
# Builds the libFuzzer harnesses in Fuzz/ (release, ASan + libFuzzer) and runs each for
# N seconds; fails on any crash, leak, timeout or invariant violation.
#
#   scripts/fuzz.sh [seconds-per-harness]      default 20 (CI smoke); nightly: 3600
#
# Environment:
#   FUZZ_HARNESSES   space-separated subset (default: all four)
#   FUZZ_JOBS        harnesses run at once (default: online cores; each fuzzer is one process)
#   FUZZ_KEEP_CORPUS 1: keep the grown corpus in Fuzz/.build-fuzz/corpus between runs
#
# New corpus entries go to Fuzz/.build-fuzz/corpus/<H> (never into the committed seeds);
# crash/leak/timeout reproducers to Fuzz/.build-fuzz/artifacts/<H>/. A reproducer worth
# keeping belongs in Fuzz/corpus/regressions/<H>/, which every run replays first.
set -euo pipefail

SECONDS_PER=${1:-20}
[[ "$SECONDS_PER" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [seconds-per-harness >= 1]" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FUZZ="$ROOT/Fuzz"
SCRATCH="$FUZZ/.build-fuzz"
HARNESSES=${FUZZ_HARNESSES:-"FuzzVerify FuzzJSON FuzzBase64URL FuzzJWKS"}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

# System packages the build needs; install only what is missing.
"$ROOT/scripts/apt-deps.sh" libssl-dev libxxhash-dev pkg-config

# Why the extra -Xswiftc: SwiftPM passes `-sanitize=address -sanitize=fuzzer` to swiftc, and the
# driver keeps only the LAST -sanitize= option, so Swift code gets coverage but no ASan
# instrumentation (a heap overflow in Swift goes unnoticed). The combined form, appended after
# SwiftPM's own flags, instruments for both; --sanitize=... still makes SwiftPM link libFuzzer.
build_flags=(-c release --sanitize=fuzzer --sanitize=address
             -Xswiftc -sanitize=address,fuzzer -Xswiftc -DFUZZING
             --package-path "$FUZZ" --scratch-path "$SCRATCH")

t0=$(date +%s)
for h in $HARNESSES; do
    echo "=== build $h"
    mkdir -p "$SCRATCH/logs"
    if ! swift build "${build_flags[@]}" --product "$h" >"$SCRATCH/logs/build-$h.log" 2>&1; then
        grep -E 'error|note:' "$SCRATCH/logs/build-$h.log" | head -40 || tail -40 "$SCRATCH/logs/build-$h.log"
        echo "fuzz.sh: build of $h failed (log: $SCRATCH/logs/build-$h.log)"
        exit 1
    fi
    tail -1 "$SCRATCH/logs/build-$h.log"
done
t_build=$(( $(date +%s) - t0 ))
echo "=== built in ${t_build}s; fuzzing ${SECONDS_PER}s per harness, $JOBS at a time"

export SWIFT_BACKTRACE=enable=no   # else a crash is reported inside Swift's crash handler
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}

run_one() {
    local h=$1 work="$SCRATCH/corpus/$1" art="$SCRATCH/artifacts/$1" log="$SCRATCH/logs/$1.log"
    [ "${FUZZ_KEEP_CORPUS:-0}" = 1 ] || rm -rf "$work"
    mkdir -p "$work" "$art" "$(dirname "$log")"
    local dirs=("$work" "$FUZZ/corpus/$h")
    [ -d "$FUZZ/corpus/regressions/$h" ] && dirs+=("$FUZZ/corpus/regressions/$h")
    "$SCRATCH/release/$h" -max_total_time="$SECONDS_PER" -max_len=20000 -timeout=10 \
        -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$art/" "${dirs[@]}" >"$log" 2>&1
}

t1=$(date +%s)
declare -A pids=()
for h in $HARNESSES; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    run_one "$h" & pids[$h]=$!
done
status=0
declare -A rc=()
for h in $HARNESSES; do
    if wait "${pids[$h]}"; then rc[$h]=0; else rc[$h]=$?; status=1; fi
done
t_run=$(( $(date +%s) - t1 ))

echo
printf '%-14s %6s %10s %8s %8s %s\n' harness result exec/s cov corpus runs
for h in $HARNESSES; do
    log="$SCRATCH/logs/$h.log"
    execs=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
    corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' <<<"$last" | cut -d' ' -f2 || true)
    result=$([ "${rc[$h]}" = 0 ] && echo ok || echo "FAIL(${rc[$h]})")
    printf '%-14s %6s %10s %8s %8s %s\n' "$h" "$result" "${execs:--}" "${cov:--}" "${corp:--}" "${runs:--}"
done
echo "fuzz.sh: build ${t_build}s, fuzzing ${t_run}s"

if [ "$status" != 0 ]; then
    for h in $HARNESSES; do
        [ "${rc[$h]}" = 0 ] && continue
        echo
        echo "=== $h failed (exit ${rc[$h]}); end of $SCRATCH/logs/$h.log:"
        grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse)' "$SCRATCH/logs/$h.log" | tail -60
        echo "reproducers: $(ls "$SCRATCH/artifacts/$h" 2>/dev/null | tr '\n' ' ')"
        echo "replay under ASan: $SCRATCH/release/$h FILE   (no sanitizer: swift build --package-path Fuzz --product $h && Fuzz/.build/debug/$h FILE)"
    done
fi
exit $status
