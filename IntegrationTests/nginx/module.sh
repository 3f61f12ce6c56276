#!/usr/bin/env bash
# ngx_http_jwtk_module (issue 17) against the real /usr/sbin/nginx on 127.0.0.1, one command:
#   IntegrationTests/nginx/module.sh               everything, 30 s soak (CI)
#   IntegrationTests/nginx/module.sh --soak 600    the 10-minute soak, by hand
#   IntegrationTests/nginx/module.sh --parts surface,plus    a subset (surface, plus, hostile, valgrind, soak)
#   plus: every NGINX Plus-style configuration in plus-configs/ (plus_configs.py)
# Builds libjwtk and the module into a temp prefix (scripts/nginx/build-module.sh), reuses run.sh's venv
# (.build-nginx/venv, the pinned `cryptography`), and runs module_test.py (which imports driver.py's and
# mint.py's helpers). Ends with one line: nginx-module: N passed, M failed
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
here=IntegrationTests/nginx
soak=30 parts=surface,plus,hostile,valgrind,soak
while [ $# -gt 0 ]; do
    case $1 in
        --soak) soak=${2:?--soak SECONDS}; shift 2 ;;
        --parts) parts=${2:?--parts LIST}; shift 2 ;;
        *) echo "usage: module.sh [--soak SECONDS] [--parts surface,plus,hostile,valgrind,soak]" >&2; exit 2 ;;
    esac
done
summary_fail() { echo "nginx-module: 0 passed, 1 failed"; exit 1; }

"$root/scripts/apt-deps.sh" python3 python3-venv procps valgrind nginx >/dev/null || summary_fail

work=$(mktemp -d /tmp/jwtk-nginx-module.XXXXXX)
chmod 755 "$work"   # nginx workers run as nobody and read files under it
cleanup() {
    for f in "$work"/t/*/nginx.pid; do [ -f "$f" ] && kill -QUIT "$(cat "$f")" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

echo "== module (scripts/nginx/build-module.sh into a temp prefix)"
t0=$SECONDS
JWTK_SCRATCH=${JWTK_SCRATCH:-$root/.build-clib} JWTK_NGINX_BUILD=$work/build \
    ./scripts/nginx/build-module.sh "$work/prefix" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; summary_fail; }
echo "$(tail -1 "$work/build.log") ($((SECONDS - t0)) s)"

venv=$root/.build-nginx/venv
"$here/venv.sh" || summary_fail

mkdir -p "$work/t" && chmod 755 "$work/t"
"$venv/bin/python" "$here/module_test.py" --module "$work/prefix/lib/nginx/modules/ngx_http_jwtk_module.so" \
    --work "$work/t" --soak "$soak" --parts "$parts"
