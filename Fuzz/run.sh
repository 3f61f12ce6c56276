#!/usr/bin/env bash
# The nightly fuzz command: builds every libFuzzer harness (release, libFuzzer + AddressSanitizer),
# fuzzs each for SECONDS, merges what it found into a persistent minimized corpus, keeps crash
# reproducers, and prints per harness: exec/s, total execs, coverage (edges/features), crashes.
# Exit status: non-zero on any crash, leak, timeout, out-of-memory or invariant violation.
#
#   Fuzz/run.sh SECONDS [--write-back]     e.g. `Fuzz/run.sh 600` (make fuzz-nightly), CI: 30
#   Fuzz/run.sh --build-only               build the harnesses only, into Fuzz/.build-fuzz/release/ (ClusterFuzzLite's
#                                          .clusterfuzzlite/build.sh builds through this)
#
#   --write-back   after the merge, replace the committed seeds Fuzz/corpus/<H>/ with the
#                  minimized corpus (seeds + everything found), for a reviewed commit.
# Environment:
#   FUZZ_HARNESSES   space-separated subset (default: all, see HARNESSES below)
#   FUZZ_JOBS        harnesses fuzzed at once (default: online cores; each fuzzer is one process)
#   FUZZ_FRESH=1     start from the committed seeds only (drop the persistent corpus first)
#   FUZZ_BUILD_FLAGS extra `swift build` arguments (ClusterFuzzLite: a static Swift runtime and an RPATH)
#
# Where things go (all under Fuzz/.build-fuzz/, never into the committed seeds unless --write-back):
#   corpus/<H>/      persistent minimized corpus, grows run after run (a nightly job may cache it)
#   artifacts/<H>/   crash-*, leak-*, timeout-*, oom-* reproducers of this run
#   logs/            build, fuzz and merge logs
# A reproducer worth keeping goes to Fuzz/corpus/regressions/<H>/ (replayed by every run and by
# `make test`); see Fuzz/README.md.
set -euo pipefail

usage() { echo "usage: $0 SECONDS [--write-back] | $0 --build-only" >&2; exit 2; }
[ $# -ge 1 ] || usage
BUILD_ONLY=0
if [ "$1" = --build-only ]; then BUILD_ONLY=1; SECONDS_PER=1; else SECONDS_PER=$1; fi
shift
[[ "$SECONDS_PER" =~ ^[1-9][0-9]*$ ]] || usage
WRITE_BACK=0
for arg in "$@"; do
    case "$arg" in --write-back) WRITE_BACK=1 ;; *) usage ;; esac
done

FUZZ=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$FUZZ/.." && pwd)
SCRATCH="$FUZZ/.build-fuzz"
# Fuzz/harnesses lists every harness (deep HMAC ones first, so a 2-core run pairs them with
# the slower public-key ones).
HARNESSES=${FUZZ_HARNESSES:-$(cat "$FUZZ/harnesses")}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$SCRATCH/logs"

# System packages the build needs; install only what is missing.
"$ROOT/scripts/apt-deps.sh" libssl-dev libxxhash-dev pkg-config

# Why the extra -Xswiftc: SwiftPM passes `-sanitize=address -sanitize=fuzzer` to swiftc, and the
# driver keeps only the LAST -sanitize= option, so Swift code gets coverage but no ASan
# instrumentation (a heap overflow in Swift goes unnoticed). The combined form, appended after
# SwiftPM's own flags, instruments for both; --sanitize=... still makes SwiftPM link libFuzzer
# (`-Xswiftc -sanitize=fuzzer` alone links but SwiftPM's entry point wins: nothing is fuzzed).
# shellcheck disable=SC2054   # -sanitize=address,fuzzer is one swiftc argument, its comma meant
build_flags=(-c release --sanitize=fuzzer --sanitize=address
             -Xswiftc -sanitize=address,fuzzer -Xswiftc -DFUZZING
             --package-path "$FUZZ" --scratch-path "$SCRATCH")
# shellcheck disable=SC2206   # FUZZ_BUILD_FLAGS is a list of words by design
[ -n "${FUZZ_BUILD_FLAGS:-}" ] && build_flags+=($FUZZ_BUILD_FLAGS)

t0=$(date +%s)
for h in $HARNESSES; do
    [ -d "$FUZZ/corpus/$h" ] && [ -f "$FUZZ/dict/$h.dict" ] || { echo "run.sh: $h has no corpus/$h or dict/$h.dict" >&2; exit 2; }
    echo "=== build $h"
    # --product: without it every executable is built, and the replay @main clashes with libFuzzer's main.
    if ! swift build "${build_flags[@]}" --product "$h" >"$SCRATCH/logs/build-$h.log" 2>&1; then
        grep -E 'error|note:' "$SCRATCH/logs/build-$h.log" | head -40 || tail -40 "$SCRATCH/logs/build-$h.log"
        echo "run.sh: build of $h failed (log: $SCRATCH/logs/build-$h.log)"
        exit 1
    fi
done
t_build=$(( $(date +%s) - t0 ))
if [ "$BUILD_ONLY" = 1 ]; then echo "=== built in ${t_build}s into $SCRATCH/release"; exit 0; fi
echo "=== built in ${t_build}s; fuzzing ${SECONDS_PER}s per harness, $JOBS at a time"

export SWIFT_BACKTRACE=enable=no   # else a crash is reported inside Swift's crash handler
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}
# Only fixture initialisers are suppressed, each line with its reason (Fuzz/lsan.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$FUZZ/lsan.supp:print_suppressions=0}

# -max_len per harness: Fuzz/max-len (why there), 4096 for one not listed.
max_len() { awk -v h="$1" '$1 == h { print $2; found = 1 } END { if (!found) print 4096 }' "$FUZZ/max-len"; }

fuzz_one() {  # fuzz, then merge seeds + persistent corpus + new finds into a minimized corpus
    local h=$1 corpus="$SCRATCH/corpus/$1" art="$SCRATCH/artifacts/$1" log="$SCRATCH/logs/$1.log"
    [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$corpus"
    rm -rf "$art" "$corpus.new" "$corpus.merged"
    mkdir -p "$corpus" "$corpus.new" "$art"
    local inputs=("$corpus" "$FUZZ/corpus/$h")
    [ -d "$FUZZ/corpus/regressions/$h" ] && inputs+=("$FUZZ/corpus/regressions/$h")
    # New inputs go to corpus.new (the first directory); every seed and regression runs first.
    local rc=0
    "$SCRATCH/release/$h" "$corpus.new" "${inputs[@]}" -max_total_time="$SECONDS_PER" -max_len="$(max_len "$h")" \
        -timeout=10 -rss_limit_mb=2560 -dict="$FUZZ/dict/$h.dict" -print_final_stats=1 \
        -artifact_prefix="$art/" >"$log" 2>&1 || rc=$?
    # Merge: the smallest set of inputs that keeps every feature seen, into a fresh directory.
    mkdir -p "$corpus.merged"
    if "$SCRATCH/release/$h" -merge=1 -max_len="$(max_len "$h")" -timeout=10 -rss_limit_mb=2560 \
        -artifact_prefix="$art/merge-" "$corpus.merged" "${inputs[@]}" "$corpus.new" \
        >"$SCRATCH/logs/$h-merge.log" 2>&1; then
        rm -rf "$corpus" "$corpus.new"
        mv "$corpus.merged" "$corpus"
    else
        echo "run.sh: merge of $h failed (log: $SCRATCH/logs/$h-merge.log); corpus kept unmerged" >&2
        cp -n "$corpus.new"/* "$corpus"/ 2>/dev/null || true
        rm -rf "$corpus.new" "$corpus.merged"
        [ "$rc" = 0 ] && rc=3
    fi
    return "$rc"
}

t1=$(date +%s)
declare -A pids=()
for h in $HARNESSES; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    fuzz_one "$h" & pids[$h]=$!
done
status=0
declare -A rc=()
for h in $HARNESSES; do
    if wait "${pids[$h]}"; then rc[$h]=0; else rc[$h]=$?; status=1; fi
done
t_run=$(( $(date +%s) - t1 ))

stat() { grep -o "stat::$1: *[0-9]*" "$2" | tail -1 | grep -o '[0-9]*$' || true; }
echo
printf '%-17s %-9s %9s %12s %7s %8s %7s %7s\n' harness result exec/s "total execs" edges features corpus crashes
for h in $HARNESSES; do
    log="$SCRATCH/logs/$h.log"
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    edges=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
    ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
    crashes=$(find "$SCRATCH/artifacts/$h" -type f 2>/dev/null | wc -l)
    [ "$crashes" != 0 ] && status=1
    result=$([ "${rc[$h]}" = 0 ] && [ "$crashes" = 0 ] && echo ok || echo "FAIL(${rc[$h]})")
    printf '%-17s %-9s %9s %12s %7s %8s %7s %7s\n' "$h" "$result" "$(stat average_exec_per_sec "$log")" \
        "$(stat number_of_executed_units "$log")" "${edges:--}" "${ft:--}" \
        "$(find "$SCRATCH/corpus/$h" -type f | wc -l)" "$crashes"
done
echo "run.sh: ${SECONDS_PER}s per harness; build ${t_build}s, fuzzing and merging ${t_run}s; corpus in $SCRATCH/corpus"

if [ "$WRITE_BACK" = 1 ]; then
    for h in $HARNESSES; do
        rm -f "$FUZZ/corpus/$h"/*
        cp "$SCRATCH/corpus/$h"/* "$FUZZ/corpus/$h"/
        echo "run.sh: wrote $(ls "$FUZZ/corpus/$h" | wc -l) minimized inputs back to Fuzz/corpus/$h"
    done
fi

if [ "$status" != 0 ]; then
    for h in $HARNESSES; do
        [ "${rc[$h]}" = 0 ] && [ -z "$(ls -A "$SCRATCH/artifacts/$h" 2>/dev/null)" ] && continue
        echo
        echo "=== $h failed (exit ${rc[$h]}); end of $SCRATCH/logs/$h.log:"
        grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse)' "$SCRATCH/logs/$h.log" | tail -60
        echo "reproducers: $(ls "$SCRATCH/artifacts/$h" 2>/dev/null | tr '\n' ' ')"
        echo "replay under ASan: $SCRATCH/release/$h FILE   (no sanitizer: swift build --package-path Fuzz --product $h && Fuzz/.build/debug/$h FILE)"
        echo "keep it: cp FILE Fuzz/corpus/regressions/$h/<what-it-shows>"
    done
fi
exit $status
