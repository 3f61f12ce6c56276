#!/usr/bin/env bash
# Every check of the C library (issue 9), one command:
#   build and `make install` into a temp prefix; the header compiles as C99 and C++11 (gcc and clang,
#   -Wall -Wextra -pedantic -Werror); only jwtk_* exported (nm -D --defined-only); no Swift toolchain
#   library in ldd; SONAME and NODELETE; the C tests plain, under ASan and under valgrind memcheck
#   (no error, no definite or indirect leak); zero allocations per jwtk_verify in steady state, counted;
#   LuaJIT FFI: the header as cdef, a JIT-compiled verify loop, dlclose survived; the Python binding's tests.
# Ends with one line: `clib: N passed, M failed` (N, M count the checks above; the C and Python suites'
# own counts are printed before it).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=IntegrationTests/clib
"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev pkg-config valgrind gcc g++ python3 binutils >/dev/null
# A command-line LuaJIT: Debian's luajit2 (OpenResty's branch, what nginx's lua module uses); an existing
# luajit (either package) is used as is, since the two packages conflict.
command -v luajit >/dev/null || "$root/scripts/apt-deps.sh" luajit2 >/dev/null

work=$(mktemp -d /tmp/jwtk-clib.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
passed=0 failed=0
export SWIFT_BACKTRACE=enable=no   # the library installs no handler (tested below); this keeps any Swift crash plain

check() {   # check NAME COMMAND...: runs it, logs to $work/NAME.log, counts
    local name=$1; shift
    if "$@" >"$work/$name.log" 2>&1; then
        passed=$((passed + 1)); echo "ok    $name"
    else
        failed=$((failed + 1)); echo "FAIL  $name (log below)"; tail -40 "$work/$name.log" | sed 's/^/      /'
    fi
}

check install ./scripts/clib/install.sh "$prefix"
lib="$prefix/lib/libjwtk.so.0"
if [ ! -f "$lib" ]; then echo "clib: $passed passed, $((failed + 1)) failed"; exit 1; fi

installed_layout() {
    test -L "$prefix/lib/libjwtk.so" && test "$(readlink "$prefix/lib/libjwtk.so")" = libjwtk.so.0 &&
    test -f "$prefix/include/jwtk.h" && cmp -s "$prefix/include/jwtk.h" Sources/CJWTK/include/jwtk.h &&
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --exists jwtk &&
    test "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion jwtk)" = \
         "$(sed -n 's/^#define JWTK_VERSION  *"\(.*\)"$/\1/p' Sources/CJWTK/include/jwtk.h)"
}
check installed-layout installed_layout

header_compiles() {
    printf '#include <jwtk.h>\nint main(void) { return jwtk_version_number() == JWTK_VERSION_NUMBER ? 0 : 1; }\n' > "$work/h.c"
    cp "$work/h.c" "$work/h.cpp"
    local flags="-Wall -Wextra -pedantic -Werror $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags jwtk)"
    gcc -std=c99 $flags -c "$work/h.c" -o "$work/h1.o" &&
    g++ -std=c++11 $flags -c "$work/h.cpp" -o "$work/h2.o" &&
    clang -std=c99 $flags -c "$work/h.c" -o "$work/h3.o" &&
    clang++ -std=c++11 $flags -c "$work/h.cpp" -o "$work/h4.o" &&
    gcc -std=c99 $flags "$work/h.c" -o "$work/h" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs jwtk) \
        -Wl,-rpath,"$prefix/lib" && "$work/h"
}
check header-c99-cxx11 header_compiles

exported_symbols() {
    # Every defined dynamic symbol must be a jwtk_* function (or the version node JWTK_0), and every
    # function the header declares must be among them.
    local globals declared
    globals=$(nm -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u)
    echo "exported:"; echo "$globals"
    if echo "$globals" | grep -vE '^(jwtk_[a-z0-9_]+|JWTK_0)$'; then echo "symbols other than jwtk_* are exported"; return 1; fi
    declared=$(grep -oE '\bjwtk_[a-z0-9_]+\(' Sources/CJWTK/include/jwtk.h | tr -d '(' | sort -u)
    # Here-strings, not `echo | grep -q`: under pipefail, grep -q leaving early can fail the echo with SIGPIPE
    # (seen once: "declared but not exported: jwtk_verify" with jwtk_verify in the list).
    for f in $declared; do grep -qx "$f" <<<"$globals" || { echo "declared but not exported: $f"; return 1; }; done
    for f in $(grep '^jwtk_' <<<"$globals"); do grep -qx "$f" <<<"$declared" || { echo "exported, not declared: $f"; return 1; }; done
}
check exported-symbols exported_symbols

self_contained() {
    ldd "$lib"
    ! ldd "$lib" | grep -iE 'swift|not found|/opt/' &&
    readelf -d "$lib" | grep -q 'SONAME.*\[libjwtk.so.0\]' &&
    readelf -d "$lib" | grep -q 'FLAGS_1.*NODELETE' &&
    ! nm -D "$lib" | grep -qE ' U (OPENSSL_cleanup|CONF_modules_load|OPENSSL_init_crypto)$'
}
check ldd-soname-nodelete self_contained

cflags="-std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I$prefix/include"
ldflags="-L$prefix/lib -ljwtk -lcrypto -lpthread -Wl,-rpath,$prefix/lib"
check c-tests-build gcc $cflags $here/test_jwtk.c $here/mint.c -o "$work/test_jwtk" $ldflags
check c-tests "$work/test_jwtk" --freed
check alloc-tests-build gcc $cflags $here/test_alloc.c $here/malloc_count.c $here/mint.c -o "$work/test_alloc" $ldflags
check alloc-tests "$work/test_alloc"
check c-tests-asan-build gcc $cflags -g -fsanitize=address -fno-omit-frame-pointer $here/test_jwtk.c $here/mint.c \
    -o "$work/test_jwtk_asan" $ldflags
check c-tests-asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$work/test_jwtk_asan"
check c-tests-valgrind env JWTK_TEST_ITERATIONS=200 valgrind --error-exitcode=3 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect "$work/test_jwtk"
# Pull mode against a real loopback JWKS server (the Swift remote tests' jwks_server.py): threads, rotation, flood,
# stale, stats, fork.
jwks_server=Tests/JWTKernelRemoteTests/Server/jwks_server.py
# Not under valgrind: its timing checks (rotation within a cooldown, no wait on a hanging fetch) assume native speed.
check pull-tests-build gcc $cflags -D_DEFAULT_SOURCE $here/test_pull.c $here/mint.c -o "$work/test_pull" $ldflags
check pull-tests "$work/test_pull" $jwks_server
check pull-tests-asan-build gcc $cflags -D_DEFAULT_SOURCE -g -fsanitize=address -fno-omit-frame-pointer \
    $here/test_pull.c $here/mint.c -o "$work/test_pull_asan" $ldflags
check pull-tests-asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$work/test_pull_asan" $jwks_server
# Concurrent first starts in forked children (its own program: no start before the forks), ~1 s.
check start-race-build gcc $cflags -D_DEFAULT_SOURCE $here/test_start_race.c -o "$work/test_start_race" \
    $ldflags -lpthread
check start-race "$work/test_start_race"
# LINE web login: "channel_secret" (HS256 with the channel secret), push and pull mode, plain and under ASan.
check line-tests-build gcc $cflags $here/test_line_secret.c $here/mint.c -o "$work/test_line" $ldflags
check line-tests "$work/test_line"
check line-tests-asan-build gcc $cflags -g -fsanitize=address -fno-omit-frame-pointer $here/test_line_secret.c \
    $here/mint.c -o "$work/test_line_asan" $ldflags
check line-tests-asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$work/test_line_asan"
luajit_ffi() {
    python3 $here/make_hs256.py "$work/lj.jwks" "$work/lj.token" &&
    luajit -jv="$work/jit.log" $here/test_luajit.lua "$lib" Sources/CJWTK/include/jwtk.h "$work/lj.jwks" "$work/lj.token" &&
    cat "$work/jit.log" && grep -q 'test_luajit.lua:[0-9]* loop\]' "$work/jit.log" && ! grep -q 'abort' "$work/jit.log"
}
check luajit-ffi luajit_ffi
check python-tests env JWTK_LIBRARY="$lib" python3 -m unittest discover -s bindings/python -p 'test_*.py' -v

for suite in c-tests c-tests-asan c-tests-valgrind; do grep -h '^c-tests:' "$work/$suite.log" | sed "s/^c-tests: /$suite: /"; done
grep -hE 'allocations|^alloc-tests:' "$work/alloc-tests.log" || true
for suite in pull-tests pull-tests-asan; do grep -h '^pull-tests:' "$work/$suite.log" | sed "s/^pull-tests: /$suite: /"; done
grep -h '^start-race-tests:' "$work/start-race.log" || true
for suite in line-tests line-tests-asan; do grep -h '^line-tests:' "$work/$suite.log" | sed "s/^line-tests: /$suite: /"; done
grep -h '^luajit-tests:' "$work/luajit-ffi.log" || true
grep -h 'attack suite via' "$work/python-tests.log" || true
grep -hE '^(Ran|OK|FAILED)' "$work/python-tests.log" | sed 's/^/python: /' || true
grep -h 'ERROR SUMMARY\|definitely lost\|possibly lost' "$work/c-tests-valgrind.log" | sed 's/^==[0-9]*== /valgrind: /' || true
echo "clib: $passed passed, $failed failed"
[ "$failed" = 0 ]
