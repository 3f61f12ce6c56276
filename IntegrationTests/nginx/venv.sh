#!/usr/bin/env bash
# The Python venv the nginx tests run in (.build-nginx/venv, the pinned packages of requirements.txt),
# made or remade when requirements.txt changed. Used by run.sh and module.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
here=IntegrationTests/nginx
venv=$PWD/.build-nginx/venv
want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
    echo "== venv $venv"
    py=/usr/bin/python3; [ -x "$py" ] || py=python3
    "$py" -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" &&
        echo "$want" > "$venv/.requirements.sha256" || exit 1
fi
