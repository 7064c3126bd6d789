#!/bin/bash
# sdk_out_of_tree.sh -- the provider SDK as a third party uses it: the
# tutorial's provider (doc/tutorial/loadavg.c, walked through in
# doc/PROVIDERS.md) built out of tree against an installed dcistat with
# pkg-config, loaded by dcistatd and read over SNMP.
#
#   - `make install DESTDIR=$TMP_DIR/stage` of this build tree installs
#     dcistat-provider.pc, whose Cflags find <dcistat/provider.h> in the
#     stage (PKG_CONFIG_SYSROOT_DIR), with no Libs, the package version,
#     and providerdir = where the built-in providers were installed;
#   - the tutorial's build commands (checked to be those doc/PROVIDERS.md
#     shows, as are its C excerpts against loadavg.c) compile without a
#     warning, and the plug-in exports dci_provider_entry and nothing else;
#   - `dcistatd -t -c` accepts it by absolute path and by name in a
#     plugin-dir, and refuses an option it does not take;
#   - run under a private snmpd, its five datums are rows of dciStatTable
#     (class 2.100, instance 0) whose load averages equal /proc/loadavg read
#     just before and after the request, in hundredths.
#
# Everything it makes is in $TMP_DIR, removed at exit. Needs a C compiler
# (cc), pkg-config, nm, snmpd and the Net-SNMP tools (exit 77 otherwise);
# not root.

# Functions run through wait_until look unreachable to shellcheck; the
# tutorial's commands are kept as literal text (single quotes, trailing
# backslashes); `A && B || fail` is meant: fail exits.
# shellcheck disable=SC2317,SC2016,SC1003,SC2015

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

command -v cc >/dev/null 2>&1 || skip "no C compiler (cc)"
command -v pkg-config >/dev/null 2>&1 || skip "pkg-config not found (apt-get install pkg-config)"
command -v nm >/dev/null 2>&1 || skip "nm not found (apt-get install binutils)"
require_cmd snmpd snmpget snmpwalk
require_built
[ -r /proc/loadavg ] || skip "no /proc/loadavg"
started=$(now_ms)

TUTORIAL=$top_srcdir/doc/PROVIDERS.md
SOURCE=$top_srcdir/doc/tutorial/loadavg.c
[ -f "$TUTORIAL" ] && [ -f "$SOURCE" ] || fail "missing $TUTORIAL or $SOURCE"

# --- the tutorial and its source agree ----------------------------------------

# Every C block of the tutorial marked as an excerpt is a verbatim part of
# loadavg.c, so what the reader is shown is what this test builds.
excerpts=$TMP_DIR/excerpts
mkdir -p "$excerpts"
awk -v dir="$excerpts" '
	/^<!-- excerpt of doc\/tutorial\/loadavg.c -->$/ { marked = 1; next }
	marked && /^```c$/ { file = sprintf("%s/%02d.c", dir, ++n); inside = 1; marked = 0; next }
	{ marked = 0 }
	inside && /^```$/ { inside = 0; close(file); next }
	inside { print > file }
' "$TUTORIAL"
source_text=$(cat "$SOURCE")
count=0
for excerpt in "$excerpts"/*.c; do
	[ -f "$excerpt" ] || continue
	count=$((count + 1))
	[[ $source_text == *"$(cat "$excerpt")"* ]] ||
	    fail "doc/PROVIDERS.md excerpt $count is not in doc/tutorial/loadavg.c: $(head -n 3 "$excerpt" | tr '\n' ' ')"
done
[ "$count" -ge 4 ] || fail "doc/PROVIDERS.md has $count marked excerpts of loadavg.c, expected at least 4"
ok "the $count C excerpts of doc/PROVIDERS.md are verbatim parts of doc/tutorial/loadavg.c"

# The tutorial's commands, as it shows them (each line checked verbatim).
BUILD_1='cc -std=c11 -Wall -Wextra -O2 -fPIC -fvisibility=hidden \'
BUILD_2='   $(pkg-config --cflags dcistat-provider) -shared -o loadavg.so loadavg.c'
MAP_LINE="{ global: dci_provider_entry; local: *; };"
MAP_BUILD_1='cc -std=c11 -Wall -Wextra -O2 -fPIC -fvisibility=hidden \'
MAP_BUILD_2='   $(pkg-config --cflags dcistat-provider) -shared \'
MAP_BUILD_3='   -Wl,--version-script=provider.map -o loadavg.so loadavg.c'
for line in "$BUILD_1" "$BUILD_2" "$MAP_LINE" "$MAP_BUILD_2" "$MAP_BUILD_3"; do
	grep -qxF -- "$line" "$TUTORIAL" ||
	    fail "doc/PROVIDERS.md no longer shows the line '$line' this test runs; update one or the other"
done
ok "doc/PROVIDERS.md shows the build commands this test runs"

# --- install into a stage -------------------------------------------------------

STAGE=$TMP_DIR/stage
# A clean sub-make: not the jobserver or the variables of a `make check`
# that may be running this test.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$top_builddir" \
    install DESTDIR="$STAGE" >"$TMP_DIR/install.log" 2>&1 ||
    fail "make install DESTDIR=$STAGE failed (see install.log)"
pc_file=$(find "$STAGE" -name dcistat-provider.pc -print -quit)
[ -n "$pc_file" ] || fail "make install put no dcistat-provider.pc into $STAGE"
note "installed into $STAGE; ${pc_file#"$STAGE"}"

# Only the stage's .pc files, never the system's.
export PKG_CONFIG_LIBDIR=${pc_file%/*} PKG_CONFIG_PATH='' PKG_CONFIG_SYSROOT_DIR=$STAGE
pkg-config --exists dcistat-provider || fail "pkg-config does not find dcistat-provider: $(pkg-config --print-errors --exists dcistat-provider 2>&1)"

version=$(pkg-config --modversion dcistat-provider)
package_version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
[ "$version" = "$package_version" ] ||
    fail "dcistat-provider version '$version', package version '$package_version'"
cflags=$(pkg-config --cflags dcistat-provider)
cflags=${cflags%"${cflags##*[! ]}"} # pkg-config ends it with a blank
header_found=
for flag in $cflags; do
	case $flag in
	-I*) [ -f "${flag#-I}/dcistat/provider.h" ] && header_found=${flag#-I} ;;
	esac
done
[ -n "$header_found" ] || fail "Cflags '$cflags' name no directory holding dcistat/provider.h"
libs=$(pkg-config --libs dcistat-provider)
[ -z "${libs// /}" ] || fail "dcistat-provider has Libs '$libs', expected none"
# pkgconf prefixes the sysroot to variables too, pkg-config 0.29 does not.
providerdir=$(pkg-config --variable=providerdir dcistat-provider)
providerdir=${providerdir#"$STAGE"}
[ -n "$providerdir" ] && [ -f "$STAGE$providerdir/netif.so" ] ||
    fail "providerdir '$providerdir' is not where make install put the providers ($(find "$STAGE" -name netif.so))"
ok "dcistat-provider $version: Cflags $cflags, no Libs, providerdir $providerdir"

# --- build the tutorial's provider -------------------------------------------------

work=$TMP_DIR/myprovider
mkdir -p "$work" && cp "$SOURCE" "$work/" || fail "cannot copy loadavg.c"
cd "$work" || fail "cannot enter $work"
eval "${BUILD_1%\\}${BUILD_2}" 2>"$TMP_DIR/cc.log" ||
    fail "the tutorial's build command failed: $(head -n 5 "$TMP_DIR/cc.log")"
[ ! -s "$TMP_DIR/cc.log" ] || fail "the tutorial's provider compiles with warnings: $(head -n 5 "$TMP_DIR/cc.log")"

# exported_symbols SO: the dynamic symbols SO defines, less those the linker
# itself adds to some shared objects.
exported_symbols() {
	nm -D --defined-only "$1" | awk '{ print $NF }' |
	    grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort
}
check_exports() {
	local symbols functions
	symbols=$(exported_symbols "$1")
	[ "$symbols" = dci_provider_entry ] ||
	    fail "$2 exports '$(echo "$symbols" | tr '\n' ' ')', expected only dci_provider_entry"
	functions=$(nm -D --defined-only "$1" | awk '$2 ~ /^[TtWwi]$/ { print $3 }')
	[ -z "$functions" ] || fail "$2 exports functions: $functions"
}
check_exports loadavg.so "loadavg.so (-fvisibility=hidden)"
ok "built loadavg.so as the tutorial says: no warning, exports only dci_provider_entry (nm -D)"

# The version-script variant, for plug-ins that link static libraries.
printf '%s\n' "$MAP_LINE" >provider.map
eval "${MAP_BUILD_1%\\}${MAP_BUILD_2%\\}${MAP_BUILD_3}" 2>"$TMP_DIR/cc.log" ||
    fail "the tutorial's version-script build failed: $(head -n 5 "$TMP_DIR/cc.log")"
check_exports loadavg.so "loadavg.so (version script)"
ok "with the version script too: exports only dci_provider_entry"
LOADAVG_SO=$work/loadavg.so
cd "$TMP_DIR" || fail "cannot enter $TMP_DIR"

# --- dcistatd -t ----------------------------------------------------------------------

config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $LOADAVG_SO
    refresh: 0.01
EOF
run_dcistatd "$TMP_DIR/t.out" "$TMP_DIR/t.err" -t -c "$config"
[ "$RUN_STATUS" -eq 0 ] && grep -q 'configuration OK' "$TMP_DIR/t.out" ||
    fail "dcistatd -t -c (module by absolute path): status $RUN_STATUS, $(cat "$TMP_DIR/t.out" "$TMP_DIR/t.err")"
ok "dcistatd -t -c: $(cat "$TMP_DIR/t.out")"

# Installed into providerdir (here: the stage's) and named in plugin-dir.
install -m 755 "$LOADAVG_SO" "$STAGE$providerdir/" || fail "cannot install loadavg.so"
by_name=$TMP_DIR/by-name.yaml
cat >"$by_name" <<EOF
agent:
  agentx-socket: $SNMPD_AGENTX
  plugin-dir: $STAGE$providerdir
providers:
  - module: loadavg
EOF
run_dcistatd "$TMP_DIR/t.out" "$TMP_DIR/t.err" -t -c "$by_name"
[ "$RUN_STATUS" -eq 0 ] && grep -q 'configuration OK' "$TMP_DIR/t.out" ||
    fail "dcistatd -t (module: loadavg in plugin-dir): status $RUN_STATUS, $(cat "$TMP_DIR/t.out" "$TMP_DIR/t.err")"
ok "dcistatd -t: module 'loadavg' found as loadavg.so in plugin-dir"

# option_keys is NULL: any option is a configuration error.
cat >>"$by_name" <<EOF
    options:
      scale: 100
EOF
run_dcistatd "$TMP_DIR/t.out" "$TMP_DIR/t.err" -t -c "$by_name"
[ "$RUN_STATUS" -eq 1 ] && grep -q "unknown option 'scale' for provider loadavg: expected none" "$TMP_DIR/t.err" ||
    fail "an option for loadavg: status $RUN_STATUS, $(cat "$TMP_DIR/t.err")"
ok "an option loadavg does not take is refused: $(head -n 1 "$TMP_DIR/t.err")"

# --- served over SNMP ----------------------------------------------------------------

start_snmpd
DCISTATD_FIRST_MODULE=loadavg
start_dcistatd "$config"
wait_dcistatd_ready 10
ok "dcistatd serves the loadavg supplier over udp:127.0.0.1:$SNMPD_PORT"
SNMP_TARGET=unix:$SNMPD_UNIX

CLASS=2.2.10                         # class 2.100, length-prefixed
ROW=$CLASS.1.0                       # instance 0
STAT=$DCI_ARC.1.5.1                  # dciStatEntry
LABELS=$(printf '%s\n' "$STAT.1.$ROW.1 load1" "$STAT.1.$ROW.2 load5" \
    "$STAT.1.$ROW.3 load15" "$STAT.1.$ROW.4 runnable" "$STAT.1.$ROW.5 entities")

labels=$(snmp_walk "$STAT.1.$CLASS") || fail "cannot walk dciStatLabel of class 2.10"
[ "$labels" = "$LABELS" ] || fail "class 2.10 rows: '$labels', expected '$LABELS'"
instance=$(snmp_get "$DCI_ARC.1.4.1.2.$ROW") || fail "no dciInstanceLabel for instance 0"
[ "$instance" = system ] || fail "dciInstanceLabel.$ROW is '$instance', expected system"
types=$(snmp_walk "$STAT.2.$CLASS" | awk '{ print $2 }' | sort -u)
[ "$types" = 5 ] || fail "dciStatType of class 2.10: '$types', expected integer32(5) only"
# Gauge32 rows only: no Counter64/Counter32/Integer32 column in the class.
for column in 4 5 7; do
	[ -z "$(snmp_walk "$STAT.$column.$CLASS")" ] ||
	    fail "class 2.10 has values in dciStatEntry.$column, expected dciStatGauge32 only"
done
ok "dciStatTable class 2.10, instance 0 ('system'): load1 load5 load15 runnable entities, integer32 in dciStatGauge32"

# hundredths "0.61 0.74 0.66": the load averages in hundredths.
hundredths() {
	local field
	for field in "$@"; do
		field=${field/./}
		printf '%s ' "$((10#$field))"
	done
}
# The snapshot a GET reads was taken after the first reading of
# /proc/loadavg (refresh is 10 ms; the GET comes 50 ms later) and before
# the second; the kernel updates the load averages every 5 s, so when both
# readings agree and less than 4.5 s passed, the snapshot must agree too.
attempt=0
while :; do
	attempt=$((attempt + 1))
	[ "$attempt" -le 20 ] || fail "/proc/loadavg changed during each of 20 GETs"
	read -r a1 a5 a15 _ </proc/loadavg
	before=$(now_ms)
	sleep 0.05
	values=$(snmp_get "$STAT.6.$ROW.1" "$STAT.6.$ROW.2" "$STAT.6.$ROW.3" \
	    "$STAT.6.$ROW.4" "$STAT.6.$ROW.5" "$STAT.3.$ROW.1") ||
	    fail "cannot GET the loadavg values: $values"
	read -r b1 b5 b15 _ </proc/loadavg
	[ "$a1 $a5 $a15" = "$b1 $b5 $b15" ] && [ $(($(now_ms) - before)) -lt 4500 ] || continue
	read -r load1 load5 load15 runnable entities text <<<"$(echo "$values" | tr '\n' ' ')"
	expected=$(hundredths "$a1" "$a5" "$a15")
	[ "$load1 $load5 $load15 " = "$expected" ] ||
	    fail "dcistatd load1 load5 load15 = $load1 $load5 $load15, /proc/loadavg '$a1 $a5 $a15' = $expected"
	# DCI_UNIT_HUNDREDTHS: the text is the fraction, as /proc shows it.
	[ "$text" = "$a1" ] || fail "dciStatText of load1 '$text', /proc/loadavg $a1 (dciStatGauge32 $load1)"
	[ "$runnable" -ge 1 ] && [ "$entities" -ge "$runnable" ] ||
	    fail "runnable $runnable, entities $entities: expected 1 <= runnable <= entities"
	break
done
ok "load averages equal /proc/loadavg ('$a1 $a5 $a15' = $load1 $load5 $load15 hundredths; attempt $attempt), runnable $runnable, entities $entities"

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
