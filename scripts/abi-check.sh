#!/usr/bin/env bash
# The C library's ABI against the committed baseline (issue 19 section 2; docs/C-API.md, "ABI").
#   scripts/abi-check.sh [PREFIX]           compare; PREFIX: an installed library (PREFIX/lib/libjwtk.so.0,
#                                           PREFIX/include/jwtk.h); without it, build one with
#                                           scripts/clib/install.sh (scratch: JWTK_SCRATCH, default .build-clib)
#   scripts/abi-check.sh --update [PREFIX]  rewrite the baseline from that library (a deliberate ABI change:
#                                           see docs/C-API.md for when that is allowed)
#   scripts/abi-check.sh --self-test        show that the check fails: changed structs, a retyped parameter
#                                           and removed functions are caught, added functions pass
# Fails on any removed or changed function, type or struct layout; added functions pass.
# The description is libabigail's (abidw/abidiff, Debian's abigail-tools); scripts/abi/describe.sh says
# why it is made from a C stand-in rather than from the stripped, Swift-built library itself.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=abi/libjwtk.so.0.abi
./scripts/apt-deps.sh abigail-tools gcc binutils >/dev/null

mode=check
case "${1:-}" in
    --update) mode=update; shift ;;
    --self-test) exec ./scripts/abi/self-test.sh ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
esac
prefix=${1:-}

work=$(mktemp -d /tmp/jwtk-abi.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$prefix" ]; then
    prefix="${JWTK_SCRATCH:-.build-clib}/abi-prefix"
    ./scripts/clib/install.sh "$prefix" >"$work/install.log" 2>&1 || { tail -40 "$work/install.log"; exit 1; }
fi
lib="$prefix/lib/libjwtk.so.0"
header="$prefix/include/jwtk.h"
[ -f "$lib" ] && [ -f "$header" ] || { echo "abi-check: no $lib or $header"; exit 1; }

# The exported functions with their version nodes; a defined symbol of another kind (data, TLS) has no
# stand-in yet, so it stops the check rather than passing unseen. `A` is the version node itself.
nm -D --defined-only --with-symbol-versions "$lib" | awk '
    $2 == "A" { next }
    $2 == "T" || $2 == "W" || $2 == "i" { print $3; next }
    { print "abi-check: exported symbol of kind " $2 ": " $3 > "/dev/stderr"; bad = 1 }
    END { exit bad }' | sort > "$work/symbols.txt"
./scripts/abi/describe.sh "$header" "$work/symbols.txt" "$work/current.abi"

if [ "$mode" = update ]; then
    mkdir -p "$(dirname "$baseline")"
    cp "$work/current.abi" "$baseline"
    echo "abi: baseline $baseline rewritten from $lib ($(wc -l < "$work/symbols.txt") functions); commit it with the reason"
    exit 0
fi
[ -f "$baseline" ] || { echo "abi: no baseline $baseline (scripts/abi-check.sh --update makes it)"; exit 1; }
if ./scripts/abi/compare.sh "$baseline" "$work/current.abi"; then
    echo "abi: $lib keeps the ABI of $baseline"
else
    echo "abi: $lib breaks the ABI of $baseline (a deliberate change: docs/C-API.md, \"ABI\")"
    exit 1
fi
