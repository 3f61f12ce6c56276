#!/usr/bin/env bash
# Builds ngx_http_jwtk_module.so against Debian's packaged nginx (make nginx-module PREFIX=DIR):
#   PREFIX/lib/libjwtk.so.0 ...                       what `make install PREFIX=DIR` installs
#   PREFIX/lib/nginx/modules/ngx_http_jwtk_module.so  the module, linked to PREFIX/lib/libjwtk.so.0
# Debian's own recipe (nginx-dev's nginx_mod.pm): nginx's configure from /usr/share/nginx/src with the
# packaged flags (conf_flags: --with-compat and the rest, so the module's signature matches the binary),
# output only in the build directory, `make modules`; then the module is loaded into the system nginx
# with `nginx -t`. The module gets -Wall -Wextra -Werror on top of Debian's build flags; an RPATH to
# the library's directory so that `load_module` needs no other setting when that is not a system directory
# (none when it is: the Debian package's module finds libjwtk.so.0 from libjwtk0 through ld.so.cache).
# DESTDIR and JWTK_LIBDIR as in scripts/clib/install.sh (the packages: DESTDIR=STAGE, PREFIX /usr,
# JWTK_LIBDIR /usr/lib/x86_64-linux-gnu): the module is linked against the staged library.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
prefix=${1:?usage: build-module.sh PREFIX}
destdir=${DESTDIR:-}
if [ -z "$destdir" ]; then
    mkdir -p "$prefix"
    prefix=$(cd "$prefix" && pwd)
fi
libdir=${JWTK_LIBDIR:-$prefix/lib}
build=${JWTK_NGINX_BUILD:-$root/.build-nginx/module}

./scripts/apt-deps.sh nginx nginx-dev pkg-config dpkg-dev >/dev/null
./scripts/clib/install.sh "$prefix"

# The directories ld.so searches without being told (Debian's multiarch layout) need no RPATH.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
case "$libdir" in
    /lib | /usr/lib | "/lib/$multiarch" | "/usr/lib/$multiarch") rpath= ;;
    *) rpath="-Wl,-rpath,$libdir" ;;
esac

rm -rf "$build"
mkdir -p "$build"
export PKG_CONFIG_PATH="$destdir$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# pkg-config prefixes -I/-L with the stage, while jwtk.pc keeps the installed paths.
[ -z "$destdir" ] || export PKG_CONFIG_SYSROOT_DIR="$destdir"
warn="-Wall -Wextra -Werror -Wunused-parameter"   # nginx's own flags turn the last one off; -Wextra wants it
(
    cd /usr/share/nginx/src
    # shellcheck disable=SC1091
    . ./conf_flags   # bash: the NGX_CONF_FLAGS array Debian built its nginx with
    ./configure \
        --with-cc-opt="$(dpkg-buildflags --get CFLAGS) -fPIC $(dpkg-buildflags --get CPPFLAGS)" \
        --with-ld-opt="$(dpkg-buildflags --get LDFLAGS) -fPIC $rpath" \
        "${NGX_CONF_FLAGS[@]}" \
        --add-dynamic-module="$root/gateways/nginx" \
        --builddir="$build" > "$build/configure.log" 2>&1 || { tail -20 "$build/configure.log"; exit 1; }
)
# The module's objects with the warnings as errors (nginx's headers are clean under them too); -k: every
# file's errors in one run.
sed -i "s|^\(CFLAGS = .*\)$|\1 $warn|" "$build/Makefile"
make -k -f "$build/Makefile" -C /usr/share/nginx/src modules > "$build/make.log" 2>&1 || { grep -E "error|warning" "$build/make.log" | head -40; tail -5 "$build/make.log"; exit 1; }

modules=$destdir$prefix/lib/nginx/modules
install -d "$modules"
install -m 0644 "$build/ngx_http_jwtk_module.so" "$modules/ngx_http_jwtk_module.so"

# Debian's test step: the system nginx loads it. Without DESTDIR through the RPATH (or the system path), as
# load_module will; from a stage, where the library is not in its place yet, through LD_LIBRARY_PATH.
t=$(mktemp)
printf 'load_module %s;\nevents {}\n' "$modules/ngx_http_jwtk_module.so" > "$t"
env ${destdir:+LD_LIBRARY_PATH="$destdir$libdir"} /usr/sbin/nginx -g "error_log /dev/null; pid /dev/null;" -t -q -c "$t" \
    || { rm -f "$t"; echo "nginx cannot load the module" >&2; exit 1; }
rm -f "$t"
echo "installed ngx_http_jwtk_module.so under $modules (nginx $(nginx -v 2>&1 | sed 's/.*\///'))"
