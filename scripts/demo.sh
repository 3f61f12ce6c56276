#!/usr/bin/env bash
# Verifies every bundled real provider token (Apple, Google, Firebase, Facebook,
# Microsoft, others) with the release jwtk, each at iat + 1 with its issuer and audience.
set -euo pipefail
cd "$(dirname "$0")/.."
jwtk=.build/release/jwtk
[ -x "$jwtk" ] || swift build -c release --product jwtk
ok=0; bad=0
for dir in Tests/JWTKernelTests/Fixtures/real-tokens/*/; do
  read -r iat iss aud < <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); a=m["aud"]; print(m["iat"], m["iss"], a if isinstance(a,str) else a[0])' "$dir/meta.json")
  if line=$("$jwtk" verify --jwks "$dir/jwks.json" --iss "$iss" --aud "$aud" --now $((iat + 1)) "$(cat "$dir/token.txt")"); then
    ok=$((ok + 1)); printf '%-52s %s\n' "$(basename "$dir")" "${line:0:60}..."
  else
    bad=$((bad + 1)); printf '%-52s FAILED %s\n' "$(basename "$dir")" "$line"
  fi
done
echo "demo: $ok verified, $bad failed"
[ "$bad" -eq 0 ]
