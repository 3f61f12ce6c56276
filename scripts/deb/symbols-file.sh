#!/usr/bin/env bash
# Writes libjwtk0's symbols file (deb-symbols(5)) to stdout: every function jwtk.h declares, in the library's
# version node JWTK_0, needing libjwtk0 >= VERSION. dh_makeshlibs -c4 (packaging/debian/rules) fails the
# build when the library exports anything else or misses one of them.
# Every function gets the version being built, which is exact for 0.1.0, the first release, and later only
# stricter than needed (a program would ask for the newest libjwtk0 even when it calls only older functions):
# once a second version ships, the functions of the first keep their version here.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:?usage: symbols-file.sh VERSION}
echo "libjwtk.so.0 libjwtk0 #MINVER#"
echo "* Build-Depends-Package: libjwtk-dev"
./scripts/clib/exported-functions.sh | sed "s/.*/ &@JWTK_0 $version/"
