#!/usr/bin/env bash
# Structural rules the compiler does not enforce (issue 7), checked in CI:
#   1. Only Sources/JWTKernel/Crypto/ imports OpenSSL, and only as `internal import COpenSSL`,
#      so no OpenSSL type can leak into JWTKernel's interface.
#   2. JWTKernel does not import Foundation (a self-contained libjwtk.so must not drag it and ICU in).
#   3. Every `@unchecked Sendable` and `nonisolated(unsafe)` in Sources/ has a `// Safety:` reason
#      on one of the three lines above it (a run of such lines shares one reason).
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0

outside=$(grep -rlE --include='*.swift' '^\s*(@_implementationOnly |public |package |internal |private |fileprivate )?import\s+COpenSSL\b' Sources \
          | grep -v '^Sources/JWTKernel/Crypto/' || true)
if [ -n "$outside" ]; then
    echo "check-layering: OpenSSL imported outside Sources/JWTKernel/Crypto/:"; echo "$outside" | sed 's/^/  /'; fail=1
fi
loose=$(grep -rnE '^\s*(@_implementationOnly |public |package )?import\s+COpenSSL\b' Sources/JWTKernel/Crypto || true)
if [ -n "$loose" ]; then
    echo "check-layering: Crypto/ must use 'internal import COpenSSL':"; echo "$loose" | sed 's/^/  /'; fail=1
fi
# Swift files only: the DocC catalogue's samples (JWTKernel.docc/*.md) may import Foundation, as a caller does.
foundation=$(grep -rnE --include='*.swift' '^\s*([a-z]+ )?import\s+(Foundation|FoundationEssentials)\b' Sources/JWTKernel || true)
if [ -n "$foundation" ]; then
    echo "check-layering: JWTKernel imports Foundation:"; echo "$foundation" | sed 's/^/  /'; fail=1
fi
unsafe=$(find Sources -name '*.swift' -print0 | xargs -0 awk '
    /@unchecked Sendable|nonisolated\(unsafe\)/ {
        if (!(FILENAME in seen) || (FNR - seen[FILENAME]) > 3) print FILENAME ":" FNR ": " $0
        else seen[FILENAME] = FNR   # a run of annotated lines shares the reason above it
    }
    /\/\/ Safety:/ { seen[FILENAME] = FNR }' || true)
if [ -n "$unsafe" ]; then
    echo "check-layering: no '// Safety:' reason within 3 lines above:"; echo "$unsafe" | sed 's/^/  /'; fail=1
fi
[ $fail = 0 ] && echo "check-layering: ok (OpenSSL fenced in Crypto/, no Foundation in JWTKernel, every unchecked/unsafe annotated)"
exit $fail
