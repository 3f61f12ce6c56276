#!/usr/bin/env bash
# make deb OUT=DIR: the Debian 12 packages libjwtk0, libjwtk-dev, jwtk, libnginx-mod-http-jwtk,
# libapache2-mod-auth-jwtk, python3-jwtk, envoy-jwtk-module and haproxy-jwtk,
# one version for all, written to DIR and checked with lintian (any error fails; warnings are printed).
# The build happens in .build-deb/: stage.sh compiles into .build-deb/pkg/stage, then dpkg-buildpackage
# packages it from packaging/debian (copied there, so nothing is written into the tree).
set -euo pipefail
out=$(realpath -m "${1:?usage: build-packages.sh OUT}")   # relative to where it was called from
cd "$(dirname "$0")/../.."
root=$PWD

# The version of every package: the one version (VERSION; scripts/version-check.sh keeps the rest equal to it).
version=$(tr -d '[:space:]' < VERSION)
[ -n "$version" ] || { echo "build-packages.sh: no version" >&2; exit 1; }

# Debian's tools for the packaging (Build-Depends of packaging/debian/control) and lintian.
./scripts/apt-deps.sh dpkg-dev debhelper dh-python python3 nginx nginx-dev apache2-dev libssl-dev libxxhash-dev \
    libcurl4-openssl-dev pkgconf help2man lintian >/dev/null
# The gateway modules' (scripts/deb/stage-gateways.sh): Lua 5.3's headers, and haproxy for haproxy-jwtk's Depends.
./scripts/apt-deps.sh liblua5.3-dev >/dev/null

pkg=$root/.build-deb/pkg
rm -rf "$pkg" "$root"/.build-deb/*.deb "$root"/.build-deb/*.changes "$root"/.build-deb/*.buildinfo
mkdir -p "$pkg"
cp -r packaging/debian "$pkg/debian"
t0=$SECONDS
./scripts/deb/stage.sh "$pkg/stage"
t1=$SECONDS

./scripts/deb/symbols-file.sh "$version" > "$pkg/debian/libjwtk0.symbols"
./scripts/deb/manual-page.sh "$pkg/stage/usr/bin/jwtk" "$version" > "$pkg/debian/jwtk.1"
# The changelog dated by the commit, so the same commit gives the same packages (SOURCE_DATE_EPOCH).
commit=$(git rev-parse --short HEAD)
date=$(git log -1 --format=%cD HEAD)
maintainer=$(sed -n 's/^Maintainer: //p' packaging/debian/control)
dirty=""; git diff --quiet HEAD -- || dirty=" (with uncommitted changes)"
cat > "$pkg/debian/changelog" <<CHANGES
jwt-kernel ($version) bookworm; urgency=medium

  * Built from commit $commit$dirty.
  * The changes are listed in CHANGELOG.md.

 -- $maintainer  $date
CHANGES

# -b: binary packages only; -nc: no `debian/rules clean` first (there is nothing to clean).
(cd "$pkg" && dpkg-buildpackage -b -nc -us -uc) > "$root/.build-deb/dpkg-buildpackage.log" 2>&1 \
    || { tail -40 "$root/.build-deb/dpkg-buildpackage.log"; echo "dpkg-buildpackage failed (.build-deb/dpkg-buildpackage.log)" >&2; exit 1; }
t2=$SECONDS

mkdir -p "$out"
debs=()
for p in libjwtk0 libjwtk-dev jwtk libnginx-mod-http-jwtk libapache2-mod-auth-jwtk python3-jwtk envoy-jwtk-module haproxy-jwtk; do
    f=$(ls "$root"/.build-deb/"${p}_${version}"_*.deb)
    cp "$f" "$out/"
    debs+=("$out/$(basename "$f")")
done

# lintian prints every tag; --fail-on error makes an error (not a warning) fail the build.
status=0
lintian --fail-on error --info "${debs[@]}" || status=$?
t3=$SECONDS
echo "deb: ${#debs[@]} packages of jwt-kernel $version in $out (stage $((t1 - t0)) s, dpkg-buildpackage $((t2 - t1)) s, lintian $((t3 - t2)) s)"
exit $status
