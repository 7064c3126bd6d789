#!/bin/bash
# sdk_supplier_out_of_tree.sh -- doc/SUPPLIERS.md's build of the example
# application, run against a staged `make install`.
#
# Installs into a temporary DESTDIR, builds doc/tutorial/supplier-example.c
# with exactly the cc line doc/SUPPLIERS.md shows (pkg-config
# dcistat-supplier), and runs it: it must publish (its segment appears
# under the run directory it is given), count exactly (THREADS x
# ITERATIONS increments), and remove its segment when it exits.

# The build lines are matched as text, not expanded.
# shellcheck disable=SC2016,SC1003

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

command -v cc >/dev/null 2>&1 || skip "no C compiler (cc)"
command -v pkg-config >/dev/null 2>&1 || skip "pkg-config not found (apt-get install pkg-config)"
require_built

TUTORIAL=$top_srcdir/doc/SUPPLIERS.md
SOURCE=$top_srcdir/doc/tutorial/supplier-example.c
BUILD_1='cc -std=c11 $(pkg-config --cflags dcistat-supplier) \'
BUILD_2='   -o supplier-example supplier-example.c \'
BUILD_3='   $(pkg-config --libs dcistat-supplier) -lpthread'
for line in "$BUILD_1" "$BUILD_2" "$BUILD_3"; do
	grep -qxF -- "$line" "$TUTORIAL" ||
	    fail "doc/SUPPLIERS.md no longer shows the line '$line' this test runs; update one or the other"
done
ok "doc/SUPPLIERS.md shows the build command this test runs"

STAGE=$TMP_DIR/stage
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$top_builddir" \
    install DESTDIR="$STAGE" >"$TMP_DIR/install.log" 2>&1 ||
    fail "make install DESTDIR=$STAGE failed (see install.log)"
pc_file=$(find "$STAGE" -name dcistat-supplier.pc -print -quit)
[ -n "$pc_file" ] || fail "make install put no dcistat-supplier.pc into $STAGE"
export PKG_CONFIG_LIBDIR=${pc_file%/*} PKG_CONFIG_PATH='' PKG_CONFIG_SYSROOT_DIR=$STAGE
pkg-config --exists dcistat-supplier ||
    fail "pkg-config does not find dcistat-supplier"
library=$(find "$STAGE" -name 'libdcistat-supplier.so.0' -print -quit)
[ -n "$library" ] || fail "make install put no libdcistat-supplier.so.0 into $STAGE"
ok "installed: ${pc_file#"$STAGE"}, ${library#"$STAGE"}"

work=$TMP_DIR/work
mkdir -p "$work" || fail "cannot create $work"
cp "$SOURCE" "$work/" || fail "cannot copy the example"
# A sanitizer build installs an instrumented library: the program needs
# the same runtime, first.
sanitizer_flags=$(sed -n 's/^SANITIZER_FLAGS = //p' "$top_builddir/Makefile")
(
	cd "$work" || exit 1
	# The three lines as the tutorial shows them, joined.
	eval "cc -std=c11 $(pkg-config --cflags dcistat-supplier) -o supplier-example supplier-example.c $(pkg-config --libs dcistat-supplier) -lpthread $sanitizer_flags"
) >"$TMP_DIR/build.log" 2>&1 || fail "the tutorial's build failed: $(tail -n 5 "$TMP_DIR/build.log")"
ok "built supplier-example out of tree with pkg-config dcistat-supplier"

run=$TMP_DIR/run
mkdir -p "$run"
LD_LIBRARY_PATH=${library%/*} "$work/supplier-example" -t 2 -n 1000 -d "$run" -x \
    >"$TMP_DIR/example.out" 2>&1 || fail "the example failed: $(cat "$TMP_DIR/example.out")"
grep -qx "evcnt count 2000" "$TMP_DIR/example.out" ||
    fail "the example counted: $(cat "$TMP_DIR/example.out")"
grep -q "^segment $run/example_app\.[0-9]*\.dciseg$" "$TMP_DIR/example.out" ||
    fail "the example's segment is not in $run: $(head -n 1 "$TMP_DIR/example.out")"
[ -z "$(ls -A "$run")" ] || fail "the example left files in $run: $(ls -A "$run")"
ok "the example published its segment in $run, counted 2 x 1000, and removed it at exit"
