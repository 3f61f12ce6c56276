#!/usr/bin/env bash
# Differential run: jwtk against PyJWT and joserfc on generated tokens.
#
#   IntegrationTests/differential/run.sh --ci                 # fixed-seed subset (CI, < 3 min after setup)
#   IntegrationTests/differential/run.sh --tokens N --seed S  # full / nightly form
#
# Sets itself up on a fresh Debian 12 machine with the Swift toolchain: Debian
# packages, a virtualenv under .build-venv/ with the pinned oracles, and the
# release jwtk if it is missing. Extra arguments go to the Python program
# (--show K, --dump FILE, --save-failures DIR, --jwtk PATH). The last line is
# `differential: N passed, M failed`; the exit status is non-zero if M > 0.
set -euo pipefail
caller="$PWD"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.build-venv"
cd "$root"

# System packages: the build's (the same list as the Makefile) and Python's venv.
./scripts/apt-deps.sh libssl-dev libxxhash-dev pkg-config python3 python3-venv

# Oracles, pinned; reinstalled only when requirements.txt changes.
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setting up $venv"
    py=/usr/bin/python3; [ -x "$py" ] || py=python3   # Debian's own Python where there is one
    "$py" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    echo "$want" > "$stamp"
fi

# The jwtk under test: --jwtk PATH, or the release build (built here when missing).
jwtk=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = "--jwtk" ] && ((i + 1 < ${#args[@]})); then
        jwtk="${args[i + 1]}"
        [[ "$jwtk" = /* ]] || jwtk="$caller/$jwtk"   # relative to where run.sh was called from
        args[i + 1]="$jwtk"
    fi
done
if [ -z "$jwtk" ]; then
    jwtk="$root/.build/release/jwtk"
    if [ ! -x "$jwtk" ]; then
        echo "building jwtk (release)"
        swift build -c release --product jwtk
    fi
    args+=(--jwtk "$jwtk")
elif [ ! -x "$jwtk" ]; then
    echo "run.sh: --jwtk $jwtk is not an executable" >&2
    exit 2
fi

cd "$here"
exec "$venv/bin/python" -m differential "${args[@]}"
