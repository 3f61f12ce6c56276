#!/usr/bin/env bash
# libjwtk inside a real nginx (issue 11), one command:
#   IntegrationTests/nginx/run.sh             integration checks + a short load run (3 rounds x 3 s per case; CI)
#   IntegrationTests/nginx/run.sh --load 10   the full load comparison (3 interleaved rounds x 10 s per case)
#   IntegrationTests/nginx/run.sh --load 0    integration checks only
# Installs what it needs from Debian (nginx, nginx-dev, the lua module, lua-resty-core, haproxy, wrk),
# builds and installs the library and ngx_http_jwtk_module into a temp prefix (make nginx-module's
# script, scripts/nginx/build-module.sh), makes a venv with the pinned `cryptography` under
# .build-nginx/, mints fresh keys and tokens, and runs driver.py: nginx with gateways/lua/jwtk.lua and
# nginx with the module on 127.0.0.1, a loopback JWKS server, HAProxy 2.6 with jwt_verify, wrk.
# Ends with one line (read by other tools):
# nginx-integration: checks=N failed=F wrong_answers=W worker_crashes=C rps_nocheck=A rps_jwtk_rs256=B rps_haproxy_rs256=H rps_jwtk_cached=K rps_module_rs256=R rps_module_es256=E rps_module_hs256=S rps_module_cached=M rps_module_jwe_dir=D rps_module_jwe_nested=N
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=IntegrationTests/nginx
load=3 tokens=10000 results=""
while [ $# -gt 0 ]; do
    case $1 in
        --load) load=${2:?--load SECONDS}; shift 2 ;;
        --tokens) tokens=${2:?--tokens N}; shift 2 ;;
        --results) results=$2; shift 2 ;;
        *) echo "usage: run.sh [--load SECONDS] [--tokens N] [--results FILE.json]" >&2; exit 2 ;;
    esac
done
summary_fail() { echo "nginx-integration: checks=0 failed=1 wrong_answers=0 worker_crashes=0 rps_nocheck=0 rps_jwtk_rs256=0 rps_haproxy_rs256=0 rps_jwtk_cached=0 rps_module_rs256=0 rps_module_es256=0 rps_module_hs256=0 rps_module_cached=0 rps_module_jwe_dir=0 rps_module_jwe_nested=0"; exit 1; }

# One apt-get command: wrk and the lua module both accept libluajit2, which apt then keeps.
"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev pkg-config python3 python3-venv procps \
    nginx libnginx-mod-http-lua lua-resty-core haproxy wrk >/dev/null || summary_fail
# Debian's postinst may start the packaged nginx/haproxy on port 80; they are not ours to stop, and the
# test uses its own ports, so they are left alone.

work=$(mktemp -d /tmp/jwtk-nginx.XXXXXX)
chmod 755 "$work"   # nginx workers run as nobody and read the key files under it
cleanup() {
    # Anything the driver left running under the work dir (it stops what it starts; this is the backstop).
    for f in "$work"/*/nginx.pid "$work"/*/*/nginx.pid; do [ -f "$f" ] && kill -QUIT "$(cat "$f")" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

echo "== library and module (scripts/nginx/build-module.sh into a temp prefix)"
./scripts/nginx/build-module.sh "$work/prefix" > "$work/install.log" 2>&1 || { tail -30 "$work/install.log"; summary_fail; }
tail -2 "$work/install.log"
module=$work/prefix/lib/nginx/modules/ngx_http_jwtk_module.so

venv=$root/.build-nginx/venv
"$here/venv.sh" || summary_fail

echo "== keys and tokens ($tokens per load corpus)"
"$venv/bin/python" "$here/mint.py" "$work" "$tokens" || summary_fail

echo "== nginx $(nginx -v 2>&1 | sed 's/.*\///'), haproxy $(haproxy -v | head -1 | awk '{print $3}'), $(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
# Without SWIFT_BACKTRACE set: the library as users load it (the signal check compares with a run without it).
unset SWIFT_BACKTRACE
"$venv/bin/python" "$here/driver.py" --lib "$work/prefix/lib/libjwtk.so.0" --header Sources/CJWTK/include/jwtk.h \
    --examples "$root/gateways/lua" --work "$work" --load "$load" --module "$module" ${results:+--results "$results"}
