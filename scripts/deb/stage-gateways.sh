#!/usr/bin/env bash
# The Envoy and HAProxy gateway modules for the Debian packages, into STAGE (called by stage.sh after the library
# is staged there), built against the staged libjwtk with Debian's flags (dpkg-buildflags, hardening=+all) and
# no RPATH (libjwtk0 puts the library in the system path):
#   envoy-jwtk-module   /usr/lib/envoy/dynamic_modules/libjwtk_envoy.so   gateways/envoy/jwtk_envoy.c (ABI excerpt in
#                                                                         gateways/envoy/abi/); Envoy finds it through
#                                                                         ENVOY_DYNAMIC_MODULES_SEARCH_PATH
#                       /usr/share/doc/envoy-jwtk-module/examples/envoy.yaml   gateways/envoy/example.yaml
#   haproxy-jwtk        /usr/lib/<multiarch>/lua/5.3/jwtk.so              gateways/haproxy/jwtk.c, on the default
#                                                                         package.cpath of Debian's Lua 5.3, which
#                                                                         haproxy 2.6 embeds: no lua-prepend-path
#                       /usr/share/haproxy-jwtk/jwtk.lua                  the action (lua-load-per-thread it)
#                       /usr/share/doc/haproxy-jwtk/examples/             haproxy.cfg and jwtk.json
# Kept apart from stage.sh so each gateway's packaging can be added or dropped on its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
stage=${1:?usage: stage-gateways.sh STAGE}
stage=$(cd "$stage" && pwd)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=$stage/usr/lib/$multiarch
[ -e "$libdir/libjwtk.so" ] || { echo "stage-gateways.sh: stage the library first (stage.sh)" >&2; exit 1; }
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags=$(dpkg-buildflags --get CFLAGS)
ldflags=$(dpkg-buildflags --get LDFLAGS)
cc=${CC:-gcc}

# Envoy: the module exports the ABI's event hooks only (-fvisibility=hidden); -z nodelete as gateways/envoy/build.sh.
install -d "$stage/usr/lib/envoy/dynamic_modules" "$stage/usr/share/doc/envoy-jwtk-module/examples"
# shellcheck disable=SC2086
$cc -std=c11 -D_GNU_SOURCE $cflags -fPIC -fvisibility=hidden -Wall -Wextra -Werror -I"$stage/usr/include" \
    -Igateways/envoy -shared -o "$stage/usr/lib/envoy/dynamic_modules/libjwtk_envoy.so" gateways/envoy/jwtk_envoy.c \
    $ldflags -L"$libdir" -ljwtk -lpthread -Wl,-z,nodelete
install -m 0644 gateways/envoy/example.yaml "$stage/usr/share/doc/envoy-jwtk-module/examples/envoy.yaml"

# HAProxy: built against Debian's liblua5.3-dev headers and not linked with liblua (HAProxy's copy serves it).
install -d "$stage/usr/lib/$multiarch/lua/5.3" "$stage/usr/share/haproxy-jwtk" "$stage/usr/share/doc/haproxy-jwtk/examples"
# shellcheck disable=SC2086,SC2046
$cc -std=c99 $cflags -fPIC -shared -Wall -Wextra -Werror -pedantic $(pkg-config --cflags lua5.3) \
    -I"$stage/usr/include" -o "$stage/usr/lib/$multiarch/lua/5.3/jwtk.so" gateways/haproxy/jwtk.c \
    $ldflags -L"$libdir" -ljwtk
install -m 0644 gateways/haproxy/jwtk.lua "$stage/usr/share/haproxy-jwtk/jwtk.lua"
# The example with the packaged paths: no lua-prepend-path (jwtk.so is on the default cpath), the action's file.
sed -e '/lua-prepend-path/d' -e 's|/usr/local/share/haproxy/jwtk.lua|/usr/share/haproxy-jwtk/jwtk.lua|' \
    gateways/haproxy/haproxy.cfg > "$stage/usr/share/doc/haproxy-jwtk/examples/haproxy.cfg"
install -m 0644 gateways/haproxy/jwtk.json "$stage/usr/share/doc/haproxy-jwtk/examples/jwtk.json"

for so in "$stage/usr/lib/envoy/dynamic_modules/libjwtk_envoy.so" "$stage/usr/lib/$multiarch/lua/5.3/jwtk.so"; do
    if objdump -p "$so" | grep -qE 'RPATH|RUNPATH'; then echo "stage-gateways.sh: $so carries an RPATH" >&2; exit 1; fi
    strip --strip-unneeded "$so"
done
if objdump -p "$stage/usr/lib/$multiarch/lua/5.3/jwtk.so" | grep -q 'NEEDED.*liblua'; then
    echo "stage-gateways.sh: jwtk.so links liblua (it must take HAProxy's)" >&2; exit 1
fi
if nm -D --defined-only "$stage/usr/lib/envoy/dynamic_modules/libjwtk_envoy.so" | awk '{print $3}' |
    grep -v '^envoy_dynamic_module_on_' | grep -q .; then
    echo "stage-gateways.sh: libjwtk_envoy.so exports more than envoy_dynamic_module_on_*" >&2; exit 1
fi
echo "staged the Envoy and HAProxy modules under $stage"
