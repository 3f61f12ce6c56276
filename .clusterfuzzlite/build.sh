#!/bin/bash -eu
# ClusterFuzzLite's build step (run inside .clusterfuzzlite/Dockerfile's image, $SRC/jwt-kernel, output to $OUT):
# every harness of Fuzz/harnesses, built exactly as the nightly and CI build them (Fuzz/run.sh --build-only:
# release, libFuzzer + AddressSanitizer on Swift code as well, -DFUZZING), with three additions the runner image
# needs, because it has no Swift toolchain and no OpenSSL 3 or xxHash: the Swift runtime linked statically, the
# two C libraries copied to $OUT/lib, and an RPATH to them. Beside each harness: its dictionary, its seed corpus
# (the committed seeds and regression inputs, zipped) and its max_len (Fuzz/max-len, as the nightly's, in an .options file).
cd "$SRC/jwt-kernel"
export FUZZ_BUILD_FLAGS="-Xswiftc -static-stdlib -Xlinker -rpath -Xlinker \$ORIGIN/lib"
Fuzz/run.sh --build-only
mkdir -p "$OUT/lib"
for h in $(cat Fuzz/harnesses); do
    cp "Fuzz/.build-fuzz/release/$h" "$OUT/$h"
    # the shared libraries the runner lacks (libcrypto, libxxhash), next to the harnesses
    ldd "$OUT/$h" | awk '/libcrypto|libxxhash/ {print $3}' | xargs -r -I{} cp -Ln {} "$OUT/lib/"
    cp "Fuzz/dict/$h.dict" "$OUT/$h.dict"
    seeds=("$h")
    [ -d "Fuzz/corpus/regressions/$h" ] && seeds+=("regressions/$h")
    (cd Fuzz/corpus && zip -q -r "$OUT/${h}_seed_corpus.zip" "${seeds[@]}")
    len=$(awk -v h="$h" '$1 == h { print $2; found = 1 } END { if (!found) print 4096 }' Fuzz/max-len)
    printf '[libfuzzer]\nmax_len = %s\ndict = %s.dict\ntimeout = 10\nrss_limit_mb = 2560\n' "$len" "$h" >"$OUT/$h.options"
done
