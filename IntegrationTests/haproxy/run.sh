#!/usr/bin/env bash
# The HAProxy Lua module (gateways/haproxy) in Debian 12's haproxy 2.6 on 127.0.0.1, one command:
#   IntegrationTests/haproxy/run.sh
# Installs haproxy, lua5.3 (for the C module's header-block test) and liblua5.3-dev from Debian, builds libjwtk
# (scripts/clib/install.sh, scratch JWTK_SCRATCH, default .build-clib, so CI's stages share one release build of
# the library) and the module into a temp prefix (gateways/haproxy/build.sh), and runs haproxy_test.py (standard
# library only, tokens signed with the openssl CLI): gateways/haproxy/haproxy.cfg and jwtk.json with paths and
# ports rewritten, master-worker, two threads, keys from a file and from a loopback JWKS server.
#   IntegrationTests/haproxy/run.sh --load 5   also the load beside HAProxy's own jwt_verify (side_by_side.py: wrk,
#                                             5 s per run, 3 interleaved rounds; the nginx test's venv for minting)
#   IntegrationTests/haproxy/run.sh --load 5 --rounds 5 --instructions 200   5 rounds, and instructions per request
#                                             of each row (valgrind's callgrind, 200 requests per row: steady where
#                                             CPU time is not)
# Prints the steps' seconds before the last line: haproxy: N passed, M failed
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
load=0
instr=0
rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --load) load=${2:?--load SECONDS}; shift 2 ;;
        --instructions) instr=${2:?--instructions REQUESTS}; shift 2 ;;
        --rounds) rounds=${2:?--rounds N}; shift 2 ;;
        *) echo "usage: run.sh [--load SECONDS [--rounds N]] [--instructions REQUESTS]" >&2; exit 2 ;;
    esac
done
summary_fail() { echo "haproxy: 0 passed, 1 failed"; exit 1; }

"$root/scripts/apt-deps.sh" haproxy lua5.3 liblua5.3-dev libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config \
    python3 procps openssl >/dev/null || summary_fail
# Debian's postinst starts the packaged haproxy on its own configuration; the test uses its own ports.

work=$(mktemp -d /tmp/jwtk-haproxy.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== library and module (gateways/haproxy/build.sh into a temp prefix)"
t0=$SECONDS
JWTK_SCRATCH=${JWTK_SCRATCH:-$root/.build-clib} \
    ./gateways/haproxy/build.sh "$work/prefix" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; summary_fail; }
t_build=$((SECONDS - t0))
echo "$(tail -1 "$work/build.log") ($t_build s)"

echo "== haproxy $(haproxy -v | head -1 | awk '{print $3}')"
mkdir -p "$work/t"
# The test prints the stage times (the build's and its own) just before its summary line, which stays last.
if [ "$load" = 0 ] && [ "$instr" = 0 ]; then
    JWTK_STAGE_TIMES="library and module $t_build s" \
        exec python3 IntegrationTests/haproxy/haproxy_test.py --work "$work/t" --prefix "$work/prefix"
fi
JWTK_STAGE_TIMES="library and module $t_build s" \
    python3 IntegrationTests/haproxy/haproxy_test.py --work "$work/t" --prefix "$work/prefix" > "$work/test.log" 2>&1
rc=$?
grep -v '^haproxy: [0-9]* passed' "$work/test.log"
read -r p f < <(sed -n 's/^haproxy: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/test.log" | tail -1)
[ -n "${p:-}" ] || { p=0; f=1; }
echo "== beside jwt_verify (side_by_side.py, --load $load --rounds $rounds --instructions $instr)"
"$root/scripts/apt-deps.sh" wrk valgrind >/dev/null && "$root/IntegrationTests/nginx/venv.sh" >/dev/null || summary_fail
t0=$SECONDS
"$root/.build-nginx/venv/bin/python" IntegrationTests/haproxy/side_by_side.py --prefix "$work/prefix" --work "$work/side" \
    --load "$load" --rounds "$rounds" --instructions "$instr" > "$work/side.log" 2>&1
rc_side=$?
grep -v '^haproxy-side: [0-9]* passed' "$work/side.log"
read -r sp sf < <(sed -n 's/^haproxy-side: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/side.log" | tail -1)
[ -n "${sp:-}" ] || { sp=0; sf=1; }
echo "beside jwt_verify: $sp passed, $sf failed ($((SECONDS - t0)) s)"
echo "haproxy: $((p + sp)) passed, $((f + sf)) failed"
[ "$rc" = 0 ] && [ "$rc_side" = 0 ] && [ "$f" = 0 ] && [ "$sf" = 0 ]
