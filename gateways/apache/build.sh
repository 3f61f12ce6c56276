#!/usr/bin/env bash
# Builds the Apache httpd module (make apache-module PREFIX=DIR):
#   PREFIX/lib/libjwtk.so.0 ...                   scripts/clib/install.sh PREFIX (its scratch directory is
#                                                 JWTK_SCRATCH, default .build-clib, so CI shares one release
#                                                 build of the library between stages; JWTK_PREBUILT=1: PREFIX
#                                                 already holds it)
#   PREFIX/lib/apache2/modules/mod_auth_jwtk.so   the module (LoadModule auth_jwtk_module ...; docs/APACHE.md),
#                                                 with an RPATH to the library's directory unless that is a
#                                                 system one (the Debian package's module finds libjwtk.so.0
#                                                 from libjwtk0 through ld.so.cache)
# Compiled with Apache's flags from Debian's apxs (apache2-dev) and Debian's build flags (dpkg-buildflags,
# hardening=+all), strict C99 with -pedantic -Wall -Wextra -Werror, -fvisibility=hidden; linked by gcc, since `apxs -c` (through
# libtool) drops -Wl,-rpath. DESTDIR and JWTK_LIBDIR as in scripts/clib/install.sh (the packages:
# DESTDIR=STAGE, PREFIX /usr, JWTK_LIBDIR /usr/lib/x86_64-linux-gnu): the module is linked against the
# staged library and written under the stage.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:?usage: gateways/apache/build.sh PREFIX}
destdir=${DESTDIR:-}
if [ -z "$destdir" ]; then
    mkdir -p "$prefix"
    prefix=$(cd "$prefix" && pwd)
fi
libdir=${JWTK_LIBDIR:-$prefix/lib}
./scripts/apt-deps.sh apache2-dev gcc libc6-dev dpkg-dev >/dev/null
[ "${JWTK_PREBUILT:-0}" = 1 ] || ./scripts/clib/install.sh "$prefix" >/dev/null

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
case "$libdir" in
    /lib | /usr/lib | "/lib/$multiarch" | "/usr/lib/$multiarch") rpath= ;;
    *) rpath="-Wl,-rpath,$libdir" ;;
esac
out=$destdir$prefix/lib/apache2/modules
mkdir -p "$out"
export DEB_BUILD_MAINT_OPTIONS=${DEB_BUILD_MAINT_OPTIONS:-hardening=+all}
apache="$(apxs -q EXTRA_CPPFLAGS) -I$(apxs -q INCLUDEDIR) -I$(apxs -q APR_INCLUDEDIR)"
# shellcheck disable=SC2046,SC2086
gcc -std=c99 -pedantic $(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CFLAGS) $apache \
    -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
    -I"$destdir$prefix/include" -o "$out/mod_auth_jwtk.so.tmp" \
    gateways/apache/mod_auth_jwtk.c gateways/apache/jwtk_apache_config.c gateways/apache/jwtk_apache_claims.c \
    gateways/apache/jwtk_apache_authz.c \
    $(dpkg-buildflags --get LDFLAGS) -L"$destdir$libdir" -ljwtk $rpath
mv "$out/mod_auth_jwtk.so.tmp" "$out/mod_auth_jwtk.so"
# The module exports its module record and nothing else of its own.
if nm -D --defined-only "$out/mod_auth_jwtk.so" | awk '{print $3}' | grep -v '^auth_jwtk_module$' |
    grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | grep -q .; then
    echo "build.sh: mod_auth_jwtk.so exports more than auth_jwtk_module:" >&2
    nm -D --defined-only "$out/mod_auth_jwtk.so" >&2
    exit 1
fi
echo "built $out/mod_auth_jwtk.so"
