#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are not installed yet
# (one `apt-get update` only when something is missing). Every entry point calls it.
set -euo pipefail
missing=()
for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
