#!/usr/bin/env bash
# mod_auth_jwtk (gateways/apache) in Debian 12's apache2 on 127.0.0.1, one command:
#   IntegrationTests/apache/run.sh [--load N] [--no-valgrind]
# Installs apache2, apache2-dev, libapache2-mod-auth-openidc, wrk and valgrind from Debian, builds libjwtk
# (scripts/clib/install.sh, scratch JWTK_SCRATCH, default .build-clib, so CI's stages share one release
# build of the library) and the module into a temp prefix (gateways/apache/build.sh), and runs
# apache_test.py (standard library only; keys and signatures from the openssl CLI): Apache from its own
# ServerRoot in a temp directory under the event, worker and prefork MPMs, a loopback JWKS server, a
# proxied upstream and CGI scripts; one pass of `apache2 -X` under valgrind; then mod_auth_openidc's
# AuthType oauth20 on the same tokens and key server, and with --load N a wrk comparison (N interleaved
# rounds, medians). Prints the steps' seconds before the last line: apache: N passed, M failed
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
summary_fail() { echo "apache: 0 passed, 1 failed"; exit 1; }

"$root/scripts/apt-deps.sh" apache2 apache2-dev libapache2-mod-auth-openidc wrk valgrind libssl-dev \
    libxxhash-dev libcurl4-openssl-dev pkg-config python3 procps openssl >/dev/null || summary_fail
# Debian's postinst may start the packaged apache2 on port 80 with /etc/apache2; the test never uses it.

work=$(mktemp -d /tmp/jwtk-apache.XXXXXX)
[ -n "${JWTK_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

echo "== library and module (gateways/apache/build.sh into a temp prefix)"
t0=$SECONDS
JWTK_SCRATCH=${JWTK_SCRATCH:-$root/.build-clib} \
    ./gateways/apache/build.sh "$work/prefix" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; summary_fail; }
t_build=$((SECONDS - t0))
echo "$(tail -1 "$work/build.log") ($t_build s)"
# Apache's children run as nobody: the module and the library must be readable by it.
chmod -R a+rX "$work/prefix"

echo "== $(/usr/sbin/apache2 -v | head -1)"
mkdir -p "$work/t"
JWTK_STAGE_TIMES="library and module $t_build s" \
    python3 IntegrationTests/apache/apache_test.py --work "$work/t" --module "$work/prefix/lib/apache2/modules/mod_auth_jwtk.so" "$@"
