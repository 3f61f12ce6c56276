#!/usr/bin/env bash
# The main package's whole test suite under AddressSanitizer, its concurrency tests (the
# verified-token cache, batch verification, concurrent verification) under ThreadSanitizer, then
# the threaded StressVerify (Fuzz/Sources/StressVerify: one shared JWTVerifier on 4 threads, the
# verified-token cache, key rotation under load, per-thread scratch and OpenSSL contexts) under
# each. Fails on any sanitizer report or test failure.
#
#   scripts/sanitize.sh [asan|tsan|all] (default all)
#
# Environment: STRESS_ITERATIONS (per thread, default 3000), STRESS_THREADS (default 4),
#   SANITIZE_NO_SUPPRESSIONS=1 (drop the LSan/TSan suppressions below). Logs: .build-sanitize-logs/.
# Build dirs: .build-asan / .build-tsan (root package), Fuzz/.build-asan / Fuzz/.build-tsan.
set -euo pipefail

MODE=${1:-all}
case "$MODE" in asan|tsan|all) ;; *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ITER=${STRESS_ITERATIONS:-3000}
THREADS=${STRESS_THREADS:-4}

"$ROOT/scripts/apt-deps.sh" libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config

export SWIFT_BACKTRACE=enable=no   # let the sanitizer, not Swift's crash handler, report
# TSan keeps going after a report so one run shows them all (the exit code still fails).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:history_size=4}
LOGS="$ROOT/.build-sanitize-logs"
mkdir -p "$LOGS"

# Suppressions for reports that are not JWTKernel's (SANITIZE_NO_SUPPRESSIONS=1 shows everything).
# Each names toolchain code only, never a JWTKernel function.
# (Patterns are substrings of mangled names; a leading "$" would be an end-of-name anchor.)
cat >"$LOGS/lsan.supp" <<'EOF'
# swift-foundation: Data(contentsOf:) of an empty file loses its read buffer (the CLI tests read
# the jwtk process's empty stdout/stderr files); 4 KiB per call.
leak:readBytesFromFile
# Foundation: Bundle.allBundles (CLIHarness looks for the jwtk binary) and Process.run.
leak:_CFBundleCopyAllBundles
leak:s10Foundation7ProcessC3run
# XCTest: the weak-reference side table of its expectation machinery (async await, and the
# synchronous XCTestCase.wait(for:timeout:) that the key store and remote tests use).
leak:s6XCTest21awaitUsingExpectation
leak:s6XCTest0A4CaseC4wait3for7timeout
EOF
# No TSan suppressions: the verified-token cache locks with pthread mutexes, which TSan understands.
: >"$LOGS/tsan.supp"
# Leaks do not set the exit code (exitcode=0): step() fails on *direct* leaks it finds in the log.
# Indirect-only leaks are listed but do not fail: swift-corelibs-xctest keeps every XCTestCase in a
# reference cycle with its XCTestCaseRun, so each test case, and whatever it holds (keys, verifiers),
# shows up as an indirect leak at exit. A leak of the library's own allocations (an OpenSSL object on
# an error path, a lost buffer) is a direct leak; the fuzzers' per-input leak checks cover the rest.
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=0:print_suppressions=0}
if [ "${SANITIZE_NO_SUPPRESSIONS:-0}" != 1 ]; then
    LSAN_OPTIONS="$LSAN_OPTIONS:suppressions=$LOGS/lsan.supp"
    TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$LOGS/tsan.supp"
fi

status=0
summary=()
step() {  # step NAME LOG command...
    local name=$1 log=$2; shift 2
    local t0=$(date +%s) rc=0
    echo "=== $name"
    "$@" >"$log" 2>&1 || rc=$?
    local dt=$(( $(date +%s) - t0 ))
    local reports indirect
    reports=$(grep -c -E '^(==[0-9]+==ERROR: AddressSanitizer|WARNING: ThreadSanitizer:|Direct leak of)' "$log" || true)
    indirect=$(grep -c -E '^Indirect leak of' "$log" || true)
    local tests
    tests=$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1 | sed -E 's/^ *//' || true)
    tail -3 "$log" | sed 's/^/    /'
    if [ "$rc" != 0 ] || [ "$reports" != 0 ]; then
        status=1
        summary+=("$(printf '%-26s FAIL  %4ss  exit %s, %s report(s) %s (log: %s)' "$name" "$dt" "$rc" "$reports" "$tests" "$log")")
        grep -A25 -E '^(==[0-9]+==ERROR: AddressSanitizer|WARNING: ThreadSanitizer:|Direct leak of)' "$log" | head -150 || true
    else
        local note=""
        [ "$indirect" != 0 ] && note=" ($indirect indirect-only leak record(s), see the comment on LSAN_OPTIONS)"
        summary+=("$(printf '%-26s ok    %4ss  %s%s' "$name" "$dt" "$tests" "$note")")
    fi
}

# Under TSan only the tests that share a verifier, a cache or keys across threads: cache, batch,
# concurrent verification, the key store's rotation stress, the refresher thread and its stop (the
# transfers cut from another thread), and the C library's threads verifying through jwtk_* while keys
# reload. The rest are single-threaded, and TSan multiplies their run time for nothing. (A test added
# elsewhere that starts threads belongs in this filter. XCTest names tests Module.Class/method, so a method is matched as Class.method, where
# the dot is the regex's any-character: a literal \. would match nothing.)
TSAN_TESTS=${TSAN_TESTS:-'VerifiedTokenCacheTests|BatchVerificationTests|AttackSuiteTests.testConcurrent|AttackSuiteTests.testCached|JWTKernelCTests.ConcurrencyTests|KeyRotationStressTests|KeyRefresherThreadTests|KeyRefresherStopTests|KeyRefresherServiceStopTests|KeyStoreReadPathTests.testManyThreads|KeyStoreReadPathTests.testAKeyRemovedOnAnotherThread|KeyStoreReadPathTests.testALookupNested'}

run_sanitizer() {  # run_sanitizer address|thread SUFFIX
    local san=$1 sfx=$2
    local flags=(--sanitize="$san" --scratch-path "$ROOT/.build-$sfx")
    local filter=()
    [ "$san" = thread ] && filter=(--filter "$TSAN_TESTS")
    # --build-tests builds every target, so the jwtk binary the CLI tests run sits next to the bundle.
    step "$sfx: build tests" "$LOGS/$sfx-build.log" swift build "${flags[@]}" --build-tests
    step "$sfx: swift test" "$LOGS/$sfx-test.log" swift test "${flags[@]}" --skip-build --disable-swift-testing "${filter[@]}"
    local fflags=(--package-path "$ROOT/Fuzz" --sanitize="$san" --scratch-path "$ROOT/Fuzz/.build-$sfx")
    step "$sfx: build StressVerify" "$LOGS/$sfx-stress-build.log" swift build "${fflags[@]}" --product StressVerify
    step "$sfx: StressVerify" "$LOGS/$sfx-stress.log" "$ROOT/Fuzz/.build-$sfx/debug/StressVerify" "$ITER" "$THREADS"
}

t0=$(date +%s)
[ "$MODE" = tsan ] || run_sanitizer address asan
[ "$MODE" = asan ] || run_sanitizer thread tsan

echo
echo "=== sanitize.sh summary ($(( $(date +%s) - t0 ))s)"
printf '%s\n' "${summary[@]}"
exit $status
