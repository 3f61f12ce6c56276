#!/usr/bin/env bash
# The framework integrations (Integrations/, issue 20 section 2), each a package of its own: Hummingbird's
# live tests (`app.test(.live)`) and XCTVapor's running application, both against the core's loopback JWKS
# server. Each package builds in its own scratch path, .build-integrations/hummingbird and /vapor, so neither invalidates the
# main package's .build (nor the other's), and a second run only rebuilds what changed.
#   IntegrationTests/frameworks/run.sh                 # both
#   IntegrationTests/frameworks/run.sh JWTKernelVapor  # one
# Prints each package's build and test times and XCTest totals, then one line:
# `integrations: N passed, M failed` (N, M: XCTest cases of both packages; a package that does not build
# counts as one failure).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
"$root/scripts/apt-deps.sh" libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config python3 openssl >/dev/null

packages=("$@")
[ ${#packages[@]} -eq 0 ] && packages=(JWTKernelHummingbird JWTKernelVapor)
passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for name in "${packages[@]}"; do
    dir="Integrations/$name"
    short=${name#JWTKernel}
    scratch=".build-integrations/${short,,}"   # hummingbird, vapor
    # Hummingbird in release: the forward-auth stage's agent (jwtk-forward-auth, in this package) is built in
    # release in the same scratch path, so CI compiles the package and swift-nio once for both stages (no test
    # uses @testable). Vapor in debug: nothing else needs it, and its debug build is the faster one.
    config=debug
    [ "$name" = JWTKernelHummingbird ] && config=release
    echo "--- $name"
    t0=$(date +%s)
    if ! swift build -c "$config" --package-path "$dir" --scratch-path "$scratch" --build-tests >"$log" 2>&1; then
        tail -60 "$log"
        echo "$name: build FAILED after $(($(date +%s) - t0))s"
        failed=$((failed + 1))
        continue
    fi
    t1=$(date +%s)
    swift test -c "$config" --package-path "$dir" --scratch-path "$scratch" --skip-build --disable-swift-testing >"$log" 2>&1
    status=$?
    t2=$(date +%s)
    grep -E '^(Test Case .* (failed|passed)|.*error: )' "$log" | grep -v ' passed ' || true
    summary=$(grep -E 'Executed [0-9]+ tests?, with [0-9]+ failures?' "$log" | tail -1)
    read -r total bad < <(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/\1 \2/')
    if [ -z "${total:-}" ]; then
        tail -60 "$log"
        total=1 bad=1
    elif [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
        tail -60 "$log"   # a crash after the summary, or an unexpected exit
        bad=1
    fi
    passed=$((passed + total - bad)) failed=$((failed + bad))
    echo "$name: build $((t1 - t0))s, tests $((t2 - t1))s: $((total - bad)) passed, $bad failed"
done

echo "integrations: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
