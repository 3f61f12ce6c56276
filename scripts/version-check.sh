#!/usr/bin/env bash
# One version number, in one place: the top-level VERSION file (X.Y.Z). Every other place that writes the
# library's version must agree with it; this fails, naming the place, when one does not.
#   scripts/version-check.sh             check
#   scripts/version-check.sh --set X.Y.Z rewrite VERSION and every place below, then check
#   scripts/version-check.sh --self-test a scratch copy with one place changed must fail
# Places, each with how it follows VERSION:
#   Sources/CJWTK/include/jwtk.h   JWTK_VERSION, JWTK_VERSION_NUMBER (major*1000000 + minor*1000 + patch):
#                                  checked (SwiftPM compiles the hand-written header as is, nothing generates it)
#   Sources/JWTKernelC/API/Version.swift  no literal: returns the header's (CJWTKSupport/jwtk_support_version.h)
#   jwtk.pc                        generated: scripts/clib/install.sh writes VERSION into it
#   the Debian packages            generated: scripts/deb/build-packages.sh writes VERSION into debian/changelog
#   gateways/lua/jwtk.lua        _M._VERSION and VERSION_NUMBER: checked
#   CHANGELOG.md                   checked: its newest release section is "## [X.Y.Z]"
#   bindings/python/jwtk.py        no literal: version() asks the loaded library
#   the jwtk CLI                   no literal: `jwtk --version` prints jwtk.h's JWTK_VERSION (CJWTK)
# Files are read under JWTK_VERSION_ROOT (default: the repository), which the self-test points at its copy.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
root=${JWTK_VERSION_ROOT:-$repo}
header=Sources/CJWTK/include/jwtk.h
lua=gateways/lua/jwtk.lua

number_of() {   # 1.2.3 -> 1002003
    local IFS=.; set -- $1; echo $(( 10#$1 * 1000000 + 10#$2 * 1000 + 10#$3 ))
}

check() {
    local v n bad=0 got
    v=$(tr -d '[:space:]' < "$root/VERSION" 2>/dev/null)
    [[ $v =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || { echo "VERSION: '$v' is not X.Y.Z"; return 1; }
    n=$(number_of "$v")
    agree() {   # agree PLACE GOT WANT
        if [ "$2" = "$3" ]; then echo "ok    $1 = $2"; else echo "FAIL  $1 = '$2', VERSION says '$3'"; bad=1; fi
    }
    agree "$header JWTK_VERSION" "$(sed -nE 's/^#define JWTK_VERSION +"(.*)"$/\1/p' "$root/$header")" "$v"
    agree "$header JWTK_VERSION_NUMBER" "$(sed -nE 's/^#define JWTK_VERSION_NUMBER +([0-9]+)$/\1/p' "$root/$header")" "$n"
    agree "$lua _VERSION" "$(sed -nE 's/^local _M = \{ _VERSION = "(.*)" \}$/\1/p' "$root/$lua")" "$v"
    agree "$lua VERSION_NUMBER" "$(sed -nE 's/^local VERSION_NUMBER = ([0-9]+)$/\1/p' "$root/$lua")" "$n"
    got=$(grep -m1 -oE '^## \[[0-9]+\.[0-9]+\.[0-9]+\]' "$root/CHANGELOG.md")
    agree "CHANGELOG.md newest release" "${got#\#\# }" "[$v]"
    # The places that must not spell a version at all (they derive it), so they cannot drift.
    if grep -nE '"[0-9]+\.[0-9]+\.[0-9]+"' "$root/Sources/JWTKernelC/API/Version.swift"; then
        echo "FAIL  Sources/JWTKernelC/API/Version.swift spells a version (it returns the header's)"; bad=1
    fi
    return $bad
}

set_version() {
    local v=$1 n
    [[ $v =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || { echo "--set: '$v' is not X.Y.Z"; exit 2; }
    n=$(number_of "$v")
    echo "$v" > "$root/VERSION"
    sed -i -E "s/^(#define JWTK_VERSION +)\".*\"$/\1\"$v\"/; s/^(#define JWTK_VERSION_NUMBER +)[0-9]+$/\1$n/" "$root/$header"
    sed -i -E "s/^(local _M = \{ _VERSION = )\".*\"( \})$/\1\"$v\"\2/; s/^(local VERSION_NUMBER = )[0-9]+$/\1$n/" "$root/$lua"
    grep -qE "^## \[$v\]" "$root/CHANGELOG.md" ||
        echo "CHANGELOG.md has no \"## [$v]\" section yet: move the Unreleased entries under one (the check fails until then)"
}

self_test() {
    local failed=0 place
    work=$(mktemp -d /tmp/jwtk-version.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    copy() {
        rm -rf "$work/tree"; mkdir -p "$work/tree/Sources/CJWTK/include" "$work/tree/Sources/JWTKernelC/API" "$work/tree/gateways/lua"
        for f in VERSION CHANGELOG.md "$header" "$lua" Sources/JWTKernelC/API/Version.swift; do cp "$repo/$f" "$work/tree/$f"; done
    }
    copy
    JWTK_VERSION_ROOT="$work/tree" "$repo/scripts/version-check.sh" >/dev/null ||
        { echo "FAIL  the unchanged copy does not pass"; failed=1; }
    # One place off at a time: each must fail.
    for place in "$header|s/^(#define JWTK_VERSION +)\"[^\"]*\"/\1\"9.9.9\"/" \
                 "$header|s/^(#define JWTK_VERSION_NUMBER +)[0-9]+/\1 9009009/" \
                 "$lua|s/_VERSION = \"[^\"]*\"/_VERSION = \"9.9.9\"/" \
                 "$lua|s/^local VERSION_NUMBER = [0-9]+/local VERSION_NUMBER = 9009009/" \
                 "CHANGELOG.md|s/^## \[[0-9.]+\]/## [9.9.9]/" \
                 "Sources/JWTKernelC/API/Version.swift|s|^import CJWTK$|import CJWTK\nlet spelled = \"9.9.9\"|"; do
        copy
        sed -i -E "${place#*|}" "$work/tree/${place%%|*}"
        if cmp -s "$work/tree/${place%%|*}" "$repo/${place%%|*}"; then
            echo "FAIL  edit of ${place%%|*} did not apply"; failed=1
        elif JWTK_VERSION_ROOT="$work/tree" "$repo/scripts/version-check.sh" >/dev/null; then
            echo "FAIL  ${place%%|*} changed alone, the check passed"; failed=1
        else
            echo "ok    ${place%%|*} changed alone: caught"
        fi
    done
    # --set moves every place together: the check passes again.
    copy
    JWTK_VERSION_ROOT="$work/tree" "$repo/scripts/version-check.sh" --set 1.2.3 >/dev/null
    sed -i 's/^## \[Unreleased\]/## [1.2.3]/' "$work/tree/CHANGELOG.md"
    if JWTK_VERSION_ROOT="$work/tree" "$repo/scripts/version-check.sh" >/dev/null &&
       grep -q '^#define JWTK_VERSION_NUMBER 1002003$' "$work/tree/$header"; then
        echo "ok    --set 1.2.3: every place follows"
    else
        echo "FAIL  --set 1.2.3 left a place behind"; failed=1
    fi
    [ $failed = 0 ] && echo "version self-test: passed" || echo "version self-test: FAILED"
    return $failed
}

case "${1:-}" in
    --set) set_version "${2:?--set X.Y.Z}"; check ;;
    --self-test) self_test ;;
    "") check ;;
    *) sed -n '2,8p' "$0"; exit 2 ;;
esac
