#!/usr/bin/env bash
# Builds the HAProxy Lua module against an installed libjwtk (make haproxy-module PREFIX=DIR):
#   PREFIX/lib/libjwtk.so.0 ...              scripts/clib/install.sh PREFIX (built here unless
#                                            JWTK_PREBUILT=1 says PREFIX already holds it)
#   PREFIX/lib/haproxy/lua/jwtk.so           the C module (luaopen_jwtk), RPATH to PREFIX/lib
#   PREFIX/share/haproxy/jwtk.lua            the action (lua-load it)
# Compiled against Debian's liblua5.3-dev headers (HAProxy 2.6 is built with Lua 5.3) and not linked
# with liblua: HAProxy's own copy provides the symbols. JWTK_SCRATCH as in scripts/clib/install.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:?usage: build.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

./scripts/apt-deps.sh liblua5.3-dev libcurl4-openssl-dev libssl-dev libxxhash-dev pkg-config gcc >/dev/null
[ "${JWTK_PREBUILT:-0}" = 1 ] || ./scripts/clib/install.sh "$prefix"

install -d "$prefix/lib/haproxy/lua" "$prefix/share/haproxy"
# -Wl,--no-undefined is deliberately absent: lua_* are undefined here and resolved from haproxy.
gcc -std=c99 -O2 -g -fPIC -shared -Wall -Wextra -Werror -pedantic \
    $(pkg-config --cflags lua5.3) -I"$prefix/include" \
    -o "$prefix/lib/haproxy/lua/jwtk.so" gateways/haproxy/jwtk.c \
    -L"$prefix/lib" -ljwtk -Wl,-rpath,"$prefix/lib"
if ldd "$prefix/lib/haproxy/lua/jwtk.so" | grep -q liblua; then
    echo "build.sh: jwtk.so links liblua (it must take HAProxy's)" >&2; exit 1
fi
install -m 0644 gateways/haproxy/jwtk.lua "$prefix/share/haproxy/jwtk.lua"
echo "built $prefix/lib/haproxy/lua/jwtk.so and $prefix/share/haproxy/jwtk.lua"
