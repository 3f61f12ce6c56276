#!/usr/bin/env bash
# Writes jwtk(1) to stdout from the CLI's own help (help2man on `jwtk --help`, then each subcommand's
# `jwtk help NAME` as a preformatted section), so the manual page says what the binary says and needs no
# upkeep. Debian wants a manual page for every command in /usr/bin (lintian: no-manual-page).
set -euo pipefail
jwtk=${1:?usage: manual-page.sh JWTK VERSION}
version=${2:?usage: manual-page.sh JWTK VERSION}
include=$(mktemp)
trap 'rm -f "$include"' EXIT
roff_text() { sed -e 's/\\/\\e/g' -e "s/^[.']/\\\\\&&/"; }   # backslashes and leading . or ' are roff syntax
for sub in verify inspect jwks; do
    printf '[SUBCOMMAND %s]\n.nf\n' "$(echo "$sub" | tr a-z A-Z)"
    "$jwtk" help "$sub" | roff_text
    printf '.fi\n'
done > "$include"
# help2man's --version-string: jwtk has no --version option (the library's version is jwtk_version()).
help2man --no-info --no-discard-stderr --version-string="$version" --include="$include" \
    --name="verify JSON Web Tokens against trusted key sets" "$jwtk"
