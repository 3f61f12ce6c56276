#!/usr/bin/env bash
# CI's short fuzz run: every harness for N seconds (default 30) through Fuzz/run.sh, the nightly
# command (build with libFuzzer + ASan, fuzz, merge into Fuzz/.build-fuzz/corpus, per-harness
# exec/s, total execs, coverage and crashes). Fails on any crash, leak, timeout or invariant
# violation.
#
#   scripts/fuzz.sh [seconds-per-harness]      default 30; nightly: Fuzz/run.sh 600
#
# Environment: FUZZ_HARNESSES, FUZZ_JOBS, FUZZ_FRESH (see Fuzz/run.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
exec "$ROOT/Fuzz/run.sh" "${1:-30}"
