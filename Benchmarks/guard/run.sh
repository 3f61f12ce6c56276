#!/usr/bin/env bash
# The cost guard (docs/PERFORMANCE.md, "Cost thresholds"): builds what it measures into .build-guard/, then
# Benchmarks/guard/guard.py measures every cell under callgrind against Benchmarks/thresholds.json.
#   Benchmarks/guard/run.sh                    check (CI): exit 1 if a cell is over its threshold
#   Benchmarks/guard/run.sh update             rewrite the thresholds from this tree's measures (make thresholds-update)
#   Benchmarks/guard/run.sh check --cells 'swift/HS256/.*'     a subset (a regular expression on the cell names)
# Reuses the builds of the stages before it in .ci/run: the benchmark package's release build (Benchmarks/.build:
# the product here compiles only JWTKernel) and the C library's (.build-clib, the same scratch as
# Benchmarks/run.sh and IntegrationTests/clib); the nginx module ~30 s.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
action=${1:-check}
[ $# -gt 0 ] && shift
out="${JWTK_GUARD_PREFIX:-$root/.build-guard}"

"$root/scripts/apt-deps.sh" valgrind binutils nginx python3 gcc libssl-dev pkg-config >/dev/null
mkdir -p "$out"
# The Swift API's cells. valgrind 3.19 cannot read the toolchain's DWARF: strip it (Benchmarks/README.md).
swift build -c release --package-path "$root/Benchmarks" --product jwtk-instructions >&2
objcopy --strip-debug "$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/jwtk-instructions" \
    "$out/jwtk-instructions"
# libjwtk.so.0 and the nginx module into $out (lib/, lib/nginx/modules/), the library from .build-clib; the module
# (nginx's configure and make, ~40 s) only when the library or the module's sources changed since the last build.
"$root/scripts/clib/install.sh" "$out" >"$out/install.log" 2>&1 || { tail -30 "$out/install.log"; exit 1; }
stamp=$(cat "$out/lib/libjwtk.so.0" "$root"/gateways/nginx/config "$root"/gateways/nginx/src/* | sha256sum)
if [ ! -f "$out/lib/nginx/modules/ngx_http_jwtk_module.so" ] || [ "$(cat "$out/module.stamp" 2>/dev/null)" != "$stamp" ]; then
    JWTK_NGINX_BUILD="$out/nginx-build" "$root/scripts/nginx/build-module.sh" "$out" >"$out/module.log" 2>&1 ||
        { tail -30 "$out/module.log"; exit 1; }
    echo "$stamp" >"$out/module.stamp"
fi
# The C API's cells: the jwtk-c benchmark cells' driver with a main around it.
cc -O2 -Wall -Wextra -Werror -I "$root/Benchmarks/Sources/CBenchPeers/include" -o "$out/jwtk_c" \
    "$here/jwtk_c.c" "$root/Benchmarks/Sources/CBenchPeers/jwtk_c_driver.c" -ldl
if [ "$action" = check ]; then  # the checker first: every kind of excess on made-up measures must fail
    python3 "$here/guard.py" self-test >"$out/self-test.log" || { cat "$out/self-test.log"; exit 1; }
    tail -1 "$out/self-test.log"
fi
python3 "$here/guard.py" "$action" --bin "$out" "$@"
