#!/usr/bin/env bash
# Builds everything the Debian packages hold and installs it under STAGE as it will lie on the system
# (STAGE/usr/...), which dpkg-buildpackage then splits into packages (packaging/debian/*.install):
#   libjwtk.so.0, libjwtk.so, jwtk.h, jwtk.pc   scripts/clib/install.sh, libdir /usr/lib/<multiarch>
#   ngx_http_jwtk_module.so                      scripts/nginx/build-module.sh, against the staged library,
#                                                no RPATH (libjwtk0 puts the library in the system path)
#   mod_auth_jwtk.so                             gateways/apache/build.sh, against the staged library, no RPATH
#   /usr/bin/jwtk                                the CLI, Swift standard library and Foundation static
#   /usr/lib/python3/dist-packages/jwtk.py       the binding, which loads libjwtk.so.0 by its SONAME
#   the Envoy and HAProxy modules                scripts/deb/stage-gateways.sh
# Swift builds have their own scratch paths, so the default .build stays as it is: the library's is install.sh's
# (.build-clib, as make install, the C library tests and the ABI check use: same flags, so built once for all),
# the CLI's .build-deb/cli.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
stage=${1:?usage: stage.sh STAGE}
mkdir -p "$stage"
stage=$(cd "$stage" && pwd)
scratch=$root/.build-deb
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# The library, its header and jwtk.pc (install.sh, called by build-module.sh), then the module.
# hardening=+all: dpkg-buildflags adds -z now and PIE to Debian's default flags for the module, as Debian's
# own nginx modules are built.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
DESTDIR=$stage JWTK_LIBDIR=/usr/lib/$multiarch JWTK_NGINX_BUILD=$scratch/nginx \
    ./scripts/nginx/build-module.sh /usr
if objdump -p "$stage/usr/lib/nginx/modules/ngx_http_jwtk_module.so" | grep -qE 'RPATH|RUNPATH'; then
    echo "stage.sh: the packaged module must not carry an RPATH" >&2; exit 1
fi

# The Apache module, against the staged library, with the same flags and the same no-RPATH rule.
DESTDIR=$stage JWTK_LIBDIR=/usr/lib/$multiarch JWTK_PREBUILT=1 ./gateways/apache/build.sh /usr
if objdump -p "$stage/usr/lib/apache2/modules/mod_auth_jwtk.so" | grep -qE 'RPATH|RUNPATH'; then
    echo "stage.sh: the packaged Apache module must not carry an RPATH" >&2; exit 1
fi

# The CLI. --static-swift-stdlib also links Foundation (and its ICU data) statically on Linux: checked below,
# since a toolchain library left dynamic would make the binary fail on a machine without Swift.
# -z now: Debian's hardening (bindnow; relro is the linker's default), as dpkg-buildflags gives the module.
swift build -c release --product jwtk --static-swift-stdlib --scratch-path "$scratch/cli" -Xlinker -z -Xlinker now
cli="$(swift build -c release --product jwtk --static-swift-stdlib --scratch-path "$scratch/cli" --show-bin-path)/jwtk"
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
if ldd "$cli" | grep -E "swift|Foundation|$toolchain" >&2; then
    echo "stage.sh: jwtk still links the Swift toolchain's libraries (above)" >&2; exit 1
fi
install -D -m 0755 "$cli" "$stage/usr/bin/jwtk"
strip --strip-unneeded "$stage/usr/bin/jwtk"

install -D -m 0644 bindings/python/jwtk.py "$stage/usr/lib/python3/dist-packages/jwtk.py"

# The Envoy and HAProxy modules (their own script, so each gateway's packaging stays separable).
./scripts/deb/stage-gateways.sh "$stage"
echo "staged under $stage"
