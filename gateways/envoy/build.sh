#!/usr/bin/env bash
# Builds the Envoy filter module (make envoy-module PREFIX=DIR):
#   PREFIX/lib/libjwtk.so.0 ...              what `make install PREFIX=DIR` installs (scripts/clib/install.sh;
#                                            its scratch directory is JWTK_SCRATCH, default .build-clib, so CI
#                                            shares one release build of the library between stages)
#   PREFIX/lib/envoy/libjwtk_envoy.so        the module, linked to PREFIX/lib/libjwtk.so.0 with an RPATH to it;
#                                            Envoy loads it as dynamic module "jwtk_envoy" from the directory
#                                            named by ENVOY_DYNAMIC_MODULES_SEARCH_PATH (docs/ENVOY.md)
# Built against the ABI excerpt in gateways/envoy/abi/abi.h with -Wall -Wextra -Werror; -z nodelete keeps
# the module mapped if Envoy closes it (its per-thread destructor must outlive a dlclose), -z now and
# -z defs with the envoy_dynamic_module_callback_* symbols left to Envoy.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:?usage: gateways/envoy/build.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
./scripts/apt-deps.sh gcc libc6-dev >/dev/null
./scripts/clib/install.sh "$prefix" >/dev/null
out=$prefix/lib/envoy
mkdir -p "$out"
cc=${CC:-cc}
$cc -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
    -I"$prefix/include" -Igateways/envoy \
    -shared -o "$out/libjwtk_envoy.so.tmp" gateways/envoy/jwtk_envoy.c \
    -L"$prefix/lib" -ljwtk -lpthread -Wl,-rpath,"$prefix/lib" \
    -Wl,-z,nodelete -Wl,-z,now -Wl,-z,relro
mv "$out/libjwtk_envoy.so.tmp" "$out/libjwtk_envoy.so"
# The module exports the ABI's event hooks and nothing else.
if nm -D --defined-only "$out/libjwtk_envoy.so" | awk '{print $3}' | grep -v '^envoy_dynamic_module_on_' | grep -q .; then
    echo "build.sh: libjwtk_envoy.so exports more than envoy_dynamic_module_on_*" >&2
    nm -D --defined-only "$out/libjwtk_envoy.so" >&2
    exit 1
fi
echo "built $out/libjwtk_envoy.so"
