#!/usr/bin/env bash
# The HAProxy Lua module (gateways/haproxy) in Debian 12's haproxy 2.6 on 127.0.0.1, one command:
#   IntegrationTests/haproxy/run.sh
# Installs haproxy and liblua5.3-dev from Debian, builds libjwtk (scripts/clib/install.sh, scratch
# JWTK_SCRATCH, default .build-clib, so CI's stages share one release build of the library) and the module
# into a temp prefix (gateways/haproxy/build.sh), and runs haproxy_test.py (standard library only, tokens
# signed with the openssl CLI): gateways/haproxy/haproxy.cfg and jwtk.json with paths and ports rewritten,
# master-worker, two threads, keys from a file and from a loopback JWKS server.
# Prints the steps' seconds before the last line: haproxy: N passed, M failed
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
summary_fail() { echo "haproxy: 0 passed, 1 failed"; exit 1; }

"$root/scripts/apt-deps.sh" haproxy liblua5.3-dev libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config \
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
JWTK_STAGE_TIMES="library and module $t_build s" \
    python3 IntegrationTests/haproxy/haproxy_test.py --work "$work/t" --prefix "$work/prefix"
