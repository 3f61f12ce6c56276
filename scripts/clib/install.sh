#!/usr/bin/env bash
# Builds the self-contained C library and installs it under PREFIX (make install PREFIX=DIR):
#   PREFIX/lib/libjwtk.so.0    Swift runtime linked statically, SONAME libjwtk.so.0, -z nodelete,
#                              only jwtk_* exported (scripts/clib/jwtk.map)
#   PREFIX/lib/libjwtk.so      symlink, for -ljwtk
#   PREFIX/include/jwtk.h      the hand-written header
#   PREFIX/lib/pkgconfig/jwtk.pc
# The flags are given here, not as unsafeFlags in Package.swift, so the package stays usable as a
# dependency; the build has its own scratch directory so it never invalidates the default .build.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:?usage: install.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
scratch=${JWTK_SCRATCH:-.build-clib}

swift build -c release --product jwtkc --scratch-path "$scratch" \
    -Xswiftc -static-stdlib \
    -Xlinker --version-script="$PWD/scripts/clib/jwtk.map" \
    -Xlinker --exclude-libs=ALL \
    -Xlinker -soname=libjwtk.so.0 \
    -Xlinker -z -Xlinker nodelete

built="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/libjwtkc.so"
version=$(sed -n 's/^#define JWTK_VERSION  *"\(.*\)"$/\1/p' Sources/CJWTK/include/jwtk.h)

install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 "$built" "$prefix/lib/libjwtk.so.0"
strip --strip-unneeded "$prefix/lib/libjwtk.so.0"
ln -sf libjwtk.so.0 "$prefix/lib/libjwtk.so"
install -m 0644 Sources/CJWTK/include/jwtk.h "$prefix/include/jwtk.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" scripts/clib/jwtk.pc.in > "$prefix/lib/pkgconfig/jwtk.pc"
echo "installed libjwtk $version under $prefix"
