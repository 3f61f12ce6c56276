#!/usr/bin/env bash
# The ABI check's negative test (scripts/abi-check.sh --self-test): shows it can fail. From scratch copies
# of jwtk.h (no library build needed: the exported functions are taken to be the ones the header
# declares, as install.sh's version script makes them), a baseline is described, then each mutation is
# described and compared with it by the same scripts/abi/compare.sh the real check uses:
#   must fail: two jwtk_claims fields swapped, a jwtk_stats field retyped, a field appended to jwtk_stats,
#              a parameter retyped, a function the library stops exporting, a function gone from both;
#   must pass: the header unchanged, a function added (as another engineer's change adds one).
# Ends with `abi self-test: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/jwtk-abi-selftest.XXXXXX)
trap 'rm -rf "$work"' EXIT
header=Sources/CJWTK/include/jwtk.h
passed=0 failed=0

symbols_of() {   # the functions a header declares, as install.sh's version script exports them
    gcc -aux-info "$work/aux.txt" -fsyntax-only -x c "$1" &&
    sed -nE 's/^\/\* [^*]*\*\/ extern .*[ *](jwtk_[a-z0-9_]+) \(.*/\1@@JWTK_0/p' "$work/aux.txt" | sort
}

mkdir -p "$work/base"
cp "$header" "$work/base/jwtk.h"
symbols_of "$work/base/jwtk.h" > "$work/base/symbols.txt"
scripts/abi/describe.sh "$work/base/jwtk.h" "$work/base/symbols.txt" "$work/base/abi" ||
    { echo "abi self-test: 0 passed, 1 failed (baseline not described)"; exit 1; }

why() {   # the line of a report that says what was caught (or added), for the log
    local line
    line=$(grep -m1 -E "offset changed|size changed|type changed|changed from|\[D\]|^  [a-z].*\(" "$1" | sed 's/^ *//')
    [ -z "$line" ] || echo " ($line)"
}

# case NAME EXPECT SED [DROP]: a copy of the header edited by SED (must change it), its functions minus
# DROP (a function the library no longer exports); EXPECT pass or fail.
case_() {
    local name=$1 expect=$2 edit=$3 drop=${4:-} dir="$work/$1" got
    mkdir -p "$dir"
    sed -E "$edit" "$work/base/jwtk.h" > "$dir/jwtk.h"
    if [ -n "$edit" ] && cmp -s "$dir/jwtk.h" "$work/base/jwtk.h"; then
        failed=$((failed + 1)); echo "FAIL  $name: the edit did not apply (header changed?)"; return
    fi
    symbols_of "$dir/jwtk.h" | { if [ -n "$drop" ]; then grep -vx "$drop@@JWTK_0"; else cat; fi; } > "$dir/symbols.txt"
    # A mutation that breaks the description itself is "error", not the "fail" a case expects.
    if ! scripts/abi/describe.sh "$dir/jwtk.h" "$dir/symbols.txt" "$dir/abi" > "$dir/report.txt" 2>&1; then got=error
    elif scripts/abi/compare.sh "$work/base/abi" "$dir/abi" > "$dir/report.txt" 2>&1; then got=pass
    else got=fail; fi
    if [ "$got" = "$expect" ]; then
        passed=$((passed + 1)); echo "ok    $name: $got$(why "$dir/report.txt")"
    else
        failed=$((failed + 1)); echo "FAIL  $name: $got, expected $expect"; sed 's/^/      /' "$dir/report.txt"
    fi
}

case_ unchanged          pass ''
case_ added-function     pass 's|^#endif /\* JWTK_H \*/|int jwtk_selftest_added(jwtk_ctx *ctx, const jwtk_str *name);\n&|'
case_ claims-swapped     fail 's/^    jwtk_str iss;/    jwtk_str SWAP;/; s/^    jwtk_str sub;/    jwtk_str iss;/; s/^    jwtk_str SWAP;/    jwtk_str sub;/'
case_ stats-retyped      fail 's/^    uint64_t cache_hits; /    uint32_t cache_hits; /'
case_ stats-appended     fail 's/^} jwtk_stats;/    uint64_t selftest_appended;\n} jwtk_stats;/'
case_ param-retyped      fail 's/^int jwtk_status_http\(int status\);/int jwtk_status_http(long status);/'
case_ not-exported       fail '' jwtk_keystore_start
case_ removed-function   fail '/^int  jwtk_keystore_start\(/d' jwtk_keystore_start

echo "abi self-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
