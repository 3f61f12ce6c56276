#!/usr/bin/env bash
# The Python venv the nginx tests run in (.build-nginx/venv, the pinned packages of requirements.txt),
# made or remade when requirements.txt changed. Used by run.sh and module.sh.
#   venv.sh [MORE_REQUIREMENTS.txt...]   also installs those files' packages into the same venv (the
#   forward-auth test's gateways), each file when it changed, so the nginx tests never download them.
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
for more in "$@"; do
    want=$(sha256sum "$more" | cut -d' ' -f1)
    stamp=$venv/.requirements-$(basename "$(dirname "$(realpath "$more")")").sha256
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        echo "== venv $venv: $more"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$more" && echo "$want" > "$stamp" || exit 1
    fi
done
