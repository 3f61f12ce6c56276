#!/usr/bin/env bash
# Prints the functions jwtk.h declares, one a line, sorted: the list libjwtk.so.0 exports. The linker
# version script (install.sh) and the Debian symbols file (scripts/deb/symbols-file.sh) are both made
# from it, so the header stays the one list.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -oE '\bjwtk_[a-z0-9_]+\(' Sources/CJWTK/include/jwtk.h | tr -d '(' | sort -u
