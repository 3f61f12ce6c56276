#!/usr/bin/env bash
# Builds the Apache httpd module (make apache-module PREFIX=DIR):
#   PREFIX/lib/libjwtk.so.0 ...                   scripts/clib/install.sh PREFIX (its scratch directory is
#                                                 JWTK_SCRATCH, default .build-clib, so CI shares one release
#                                                 build of the library between stages)
#   PREFIX/lib/apache2/modules/mod_auth_jwtk.so   the module, linked to PREFIX/lib/libjwtk.so.0 with an RPATH
#                                                 to it (LoadModule auth_jwtk_module ...; docs/APACHE.md)
# Compiled with Apache's flags from Debian's apxs (apache2-dev), -Wall -Wextra -Werror, -fvisibility=hidden.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:?usage: gateways/apache/build.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
./scripts/apt-deps.sh apache2-dev gcc libc6-dev >/dev/null
[ "${JWTK_PREBUILT:-0}" = 1 ] || ./scripts/clib/install.sh "$prefix" >/dev/null
out=$prefix/lib/apache2/modules
mkdir -p "$out"
# apxs (apache2-dev) gives Apache's include directories and flags; gcc links, so that the RPATH to
# PREFIX/lib is kept (apxs -c through libtool drops -Wl,-rpath).
cflags="$(apxs -q CFLAGS) $(apxs -q EXTRA_CPPFLAGS) -I$(apxs -q INCLUDEDIR) -I$(apxs -q APR_INCLUDEDIR)"
# shellcheck disable=SC2086
gcc -std=gnu11 $cflags -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror -Wno-missing-field-initializers \
    -I"$prefix/include" -o "$out/mod_auth_jwtk.so.tmp" \
    gateways/apache/mod_auth_jwtk.c gateways/apache/jwtk_apache_config.c gateways/apache/jwtk_apache_claims.c \
    gateways/apache/jwtk_apache_authz.c \
    -L"$prefix/lib" -ljwtk -Wl,-rpath,"$prefix/lib" -Wl,-z,now -Wl,-z,relro
mv "$out/mod_auth_jwtk.so.tmp" "$out/mod_auth_jwtk.so"
# The module exports its module record and nothing else of its own.
if nm -D --defined-only "$out/mod_auth_jwtk.so" | awk '{print $3}' | grep -v '^auth_jwtk_module$' |
    grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | grep -q .; then
    echo "build.sh: mod_auth_jwtk.so exports more than auth_jwtk_module:" >&2
    nm -D --defined-only "$out/mod_auth_jwtk.so" >&2
    exit 1
fi
echo "built $out/mod_auth_jwtk.so"
