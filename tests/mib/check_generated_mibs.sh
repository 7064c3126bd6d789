#!/bin/bash
# check_generated_mibs.sh -- checks of the modules `dcistatd --mib` generates,
# run by `make check`. For each built-in provider (netif, devstat, evcnt) and
# the example provider, alone in a configuration:
#
#  1. the module generated now equals the committed one (mibs/DCI-*-MIB.txt;
#     the example's is tests/unit/expected/DCI-EXAMPLE-MIB.txt): `make mibs`
#     regenerates them;
#  2. smilint -l 6 reports nothing about it (no message is accepted), nor
#     snmptranslate -PW (lib.sh's netsnmp_warnings);
#  3. every table, entry and datum column the agent serves
#     (tests/dump_class_oids prints "NAME NUMERIC-OID", the OIDs computed
#     from the registry and src/agent/mib_oids.h) resolves with snmptranslate
#     to exactly that OID, and every other OBJECT-TYPE of the module is a
#     not-accessible index column of one of those entries.
#
# Environment: top_srcdir, top_builddir (set by the test harness; default to
# this script's tree). Exit status: 0 pass, 1 fail, 77 skip (a tool or the
# base MIBs missing).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

set -u
shopt -s extglob

here=$(cd "${0%/*}" 2>/dev/null && pwd) || here=.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

dump=$top_builddir/tests/dump_class_oids
generate=$top_srcdir/scripts/generate-mib
# PROVIDER:MODULE:DIRECTORY of each committed module (DIRECTORY relative to
# top_srcdir), from GENERATED_MIBS in Makefile.am, which `make mibs` reads.
modules=$(sed -n -E '/^GENERATED_MIBS =/,/[^\\]$/p' "$top_srcdir/Makefile.am" |
    tr -s ' \t\\' '\n' | sed -n -E 's|^([a-z]+):(.+)/([A-Z0-9-]+)$|\1:\3:\2|p')
[ -n "$modules" ] || { echo "FAIL: no GENERATED_MIBS in $top_srcdir/Makefile.am"; exit 1; }

[ -x "$dump" ] || { printf 'FAIL: %s not built (make check builds it)\n' "$dump"; exit 1; }
# The tools read the generated modules, not the committed ones: the source
# tree's mibs/ directory is not in their path, only DCI-STATS-MIB from it.
mib_setup check_generated_mibs
mkdir "$tmp/gen"
cp "$top_srcdir/mibs/DCI-STATS-MIB.txt" "$tmp/gen/" || exit 1
mibpath=$tmp/gen:$mibpath

for entry in $modules; do
	IFS=: read -r provider module directory <<<"$entry"
	generated=$tmp/gen/$module.txt
	committed=$top_srcdir/$directory/$module.txt
	plugin=$top_builddir/src/providers/$provider/.libs/$provider.so
	echo "== $module ($provider)"

	# --- generate -----------------------------------------------------------
	if ! "$generate" "$top_builddir" "$provider" "$module" >"$generated" 2>"$tmp/generate.err"; then
		fail "generating $module failed:"
		sed 's/^/    /' "$tmp/generate.err"
		continue
	fi
	if ! grep -q "^$module DEFINITIONS ::= BEGIN\$" "$generated"; then
		fail "generated $module does not start its module definition"
		continue
	fi

	# --- 1. committed = generated -------------------------------------------
	if [ ! -r "$committed" ]; then
		fail "$committed is missing (make mibs writes it)"
	elif ! cmp -s "$committed" "$generated"; then
		fail "$committed differs from what dcistatd generates now (run make mibs):"
		diff -u "$committed" "$generated" | head -n 40 | sed 's/^/    /'
	else
		echo "ok: $directory/$module.txt is what dcistatd generates"
	fi

	# --- 2. smilint -----------------------------------------------------------
	SMIPATH=$mibpath smilint -l 6 -m "$generated" >"$tmp/smilint.out" 2>&1
	status=$?
	if [ -s "$tmp/smilint.out" ] || [ $status -ne 0 ]; then
		fail "smilint -l 6 reports on $module (status $status):"
		sed 's/^/    /' "$tmp/smilint.out"
	else
		echo "ok: smilint -l 6 reports nothing"
	fi

	# --- 2b. Net-SNMP's parser, every warning on ----------------------------
	warnings=$(netsnmp_warnings "$module" "$generated")
	if [ -n "$warnings" ]; then
		fail "snmptranslate -PW warns of $module:"
		printf '%s\n' "$warnings" | sed 's/^/    /'
	else
		echo "ok: snmptranslate -PW loads it with no warning of its own"
	fi

	# --- 3. OIDs as served ----------------------------------------------------
	printf 'providers:\n  - module: %s\n' "$plugin" >"$tmp/dcistatd.yaml"
	if ! "$dump" "$tmp/dcistatd.yaml" >"$tmp/dump" 2>"$tmp/dump.err"; then
		fail "$dump failed for $provider:"
		sed 's/^/    /' "$tmp/dump.err"
		continue
	fi
	declare -A served=()
	lines=0 matched=0 entries=()
	while read -r name oid; do
		lines=$((lines + 1))
		served[$name]=$oid
		case $name in *Entry) entries+=("$oid") ;; esac
		if ! got=$(translate "$module" "$name"); then
			fail "snmptranslate does not resolve $module::$name: $(head -n 1 "$tmp/translate.err")"
		elif [ "$got" != "$oid" ]; then
			fail "$module::$name is $got, the agent serves it at $oid"
		else
			matched=$((matched + 1))
		fi
	done <"$tmp/dump"
	[ $lines -gt 0 ] || fail "$dump printed nothing for $provider"
	echo "checked $lines served objects: $matched resolve to the served OID"

	# Every other OBJECT-TYPE: a not-accessible column of a served entry.
	others=0
	while read -r name; do
		[ -n "${served[$name]+x}" ] && continue
		others=$((others + 1))
		if ! oid=$(translate "$module" "$name"); then
			fail "snmptranslate does not resolve $module::$name"
			continue
		fi
		access=$(access_of "$module" "$name")
		under=no
		for prefix in "${entries[@]}"; do
			[[ $oid == "$prefix".+([0-9]) ]] && under=yes
		done
		if [ "$access" != not-accessible ] || [ $under != yes ]; then
			fail "$module::$name ($oid, $access) is not served and not an index column"
		fi
	done < <(sed -n -E 's/^([a-z][A-Za-z0-9]*) OBJECT-TYPE$/\1/p' "$generated")
	echo "checked $others index objects: not-accessible columns of served entries"
	unset served
done

mib_finish "generated MIB"
