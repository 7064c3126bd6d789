#!/bin/bash
# check_mib.sh -- checks of mibs/DCI-STATS-MIB.txt, run by `make check`.
#
#  1. smilint -l 6 reports nothing (see OID_INDEX_NOTES below for the only
#     messages accepted, which the SMI makes unavoidable for this layout);
#     snmptranslate -PW (Net-SNMP's parser with every warning on) warns of
#     nothing in it (lib.sh's netsnmp_warnings: a DESCRIPTION in a
#     MODULE-COMPLIANCE longer than the parser's 128-byte token, say);
#  2. snmptranslate resolves every object the MIB text defines;
#  3. every object the agent serves (tests/dump_agent_oids prints
#     "NAME NUMERIC-OID" lines) has exactly the OID the MIB gives NAME, and
#     every accessible object of the MIB is among them.
#
# Environment: top_srcdir, top_builddir (set by the test harness; default to
# this script's tree); DUMP_AGENT_OIDS overrides the dump program.
# Exit status: 0 pass, 1 fail, 77 skip (a tool or the base MIBs missing).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

set -u

here=$(cd "${0%/*}" 2>/dev/null && pwd) || here=.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

module=DCI-STATS-MIB
mibfile=$top_srcdir/mibs/$module.txt
dump=${DUMP_AGENT_OIDS:-$top_builddir/tests/dump_agent_oids}

[ -r "$mibfile" ] || { printf 'FAIL: %s not readable\n' "$mibfile"; exit 1; }
mib_setup check_mib "$top_srcdir/mibs"

# --- 1. smilint ---------------------------------------------------------------
#
# OID_INDEX_NOTES: dciClassId and dciInstanceId are OBJECT IDENTIFIERs (the
# layout requires it) and SMIv2 allows no size restriction on an OBJECT
# IDENTIFIER, so smilint always reports, for each row they index,
#   {index-element-no-size} ... should but cannot have a size restriction
#   {index-exceeds-too-large} warning: index of row ... can exceed OID size limit
# (it counts an unrestricted OID as 128 sub-identifiers). The MIB states the
# real limits (16 sub-identifiers each) in the TEXTUAL-CONVENTIONs. And
# DciGauge64 is defined for the generated modules (mibs/DCI-*-MIB.txt),
# which import it, so this module never uses it itself:
#   {type-unref} warning: current type `DciGauge64' is not referenced
# Exactly these messages are accepted; any other line fails the test.
smi_ok_re="\{index-element-no-size\} index element \`(dciClassId|dciInstanceId)' of row \`dci[A-Za-z]+Entry' should but cannot have a size restriction\$"
smi_ok_re2="\{index-exceeds-too-large\} warning: index of row \`(dciClassEntry|dciDatumEntry|dciInstanceEntry|dciStatEntry)' can exceed OID size limit by [0-9]+ subidentifier\(s\)\$"
smi_ok_re3="\{type-unref\} warning: current type \`DciGauge64' is not referenced in this module\$"

SMIPATH=$mibpath smilint -l 6 -m -I namelength-32 "$mibfile" >"$tmp/smilint.out" 2>&1
smilint_status=$?
accepted=$(grep -E -c -e "$smi_ok_re" -e "$smi_ok_re2" -e "$smi_ok_re3" "$tmp/smilint.out")
others=$(grep -E -v -e "$smi_ok_re" -e "$smi_ok_re2" -e "$smi_ok_re3" "$tmp/smilint.out")
if [ -n "$others" ] || [ $smilint_status -ne 0 ]; then
	fail "smilint -l 6 reports problems in $mibfile (status $smilint_status):"
	printf '%s\n' "$others" | sed 's/^/    /'
else
	echo "ok: smilint -l 6 clean ($accepted accepted notices: OID indexes, DciGauge64)"
fi

# --- 1b. Net-SNMP's parser, every warning on -------------------------------------

warnings=$(netsnmp_warnings "$module" "$mibfile")
if [ -n "$warnings" ]; then
	fail "snmptranslate -PW warns of $mibfile:"
	printf '%s\n' "$warnings" | sed 's/^/    /'
else
	echo "ok: snmptranslate -PW loads $module with no warning of its own"
fi

# --- 2. every object the MIB defines resolves ----------------------------------

# Definitions in the MIB text, comments stripped: `name OBJECT-TYPE`,
# `name OBJECT IDENTIFIER ::=`, `name MODULE-IDENTITY`, and the other macros.
defs_re='^[[:space:]]*([a-z][A-Za-z0-9-]*)[[:space:]]+(OBJECT-TYPE|OBJECT-IDENTITY|MODULE-IDENTITY|MODULE-COMPLIANCE|OBJECT-GROUP|NOTIFICATION-TYPE|NOTIFICATION-GROUP|AGENT-CAPABILITIES|OBJECT[[:space:]]+IDENTIFIER[[:space:]]*::=)'
sed -e 's/--.*$//' "$mibfile" | grep -E "$defs_re" |
    sed -E "s/$defs_re.*/\1 \2/" >"$tmp/defs"
mapfile -t names < <(cut -d' ' -f1 "$tmp/defs")

declare -A mib_oid=()
resolved=0
if [ ${#names[@]} -eq 0 ]; then
	fail "found no object definitions in $mibfile"
fi
for name in "${names[@]}"; do
	if [ -n "${mib_oid[$name]+x}" ]; then
		fail "$name is defined twice in $mibfile"
		continue
	fi
	if oid=$(translate "$module" "$name"); then
		mib_oid[$name]=$oid
		resolved=$((resolved + 1))
	else
		fail "snmptranslate does not resolve $module::$name: $(head -n 1 "$tmp/translate.err")"
	fi
done
echo "checked ${#names[@]} objects defined in the MIB: $resolved resolve with snmptranslate"

# Accessible objects (MAX-ACCESS other than not-accessible): the agent must
# serve each of them.
accessible=()
while read -r name kind; do
	[ "$kind" = OBJECT-TYPE ] || continue
	access=$(access_of "$module" "$name")
	if [ -z "$access" ]; then
		fail "no MAX-ACCESS found for OBJECT-TYPE $name"
	elif [ "$access" != not-accessible ]; then
		accessible+=("$name")
	fi
done <"$tmp/defs"
[ ${#accessible[@]} -gt 0 ] || fail "found no accessible objects in $mibfile"

# --- 3. the agent's OIDs are the MIB's ----------------------------------------

if [ ! -x "$dump" ]; then
	fail "$dump does not exist or is not executable (build it: make tests/dump_agent_oids)"
else
	"$dump" >"$tmp/dump" 2>"$tmp/dump.err"
	dump_status=$?
	if [ $dump_status -ne 0 ]; then
		fail "$dump exited with status $dump_status:"
		sed 's/^/    /' "$tmp/dump.err"
	fi
	declare -A dumped=()
	lines=0 matched=0
	while IFS= read -r line || [ -n "$line" ]; do
		lines=$((lines + 1))
		if ! [[ $line =~ ^([A-Za-z][A-Za-z0-9-]*)\ (\.[0-9]+(\.[0-9]+)*)$ ]]; then
			fail "dump line $lines is not 'NAME .NUMERIC.OID': '$line'"
			continue
		fi
		name=${BASH_REMATCH[1]} oid=${BASH_REMATCH[2]}
		if [ -n "${dumped[$name]+x}" ]; then
			fail "dump lists $name twice"
			continue
		fi
		dumped[$name]=$oid
		if [ -n "${mib_oid[$name]+x}" ]; then
			want=${mib_oid[$name]}
		elif ! want=$(translate "$module" "$name"); then
			fail "agent serves $name ($oid), which $module does not define"
			continue
		fi
		if [ "$oid" = "$want" ]; then
			matched=$((matched + 1))
		else
			fail "agent OID of $name is $oid, MIB says $want"
		fi
	done <"$tmp/dump"
	if [ $lines -eq 0 ]; then
		fail "$dump printed nothing"
	fi
	echo "checked $lines agent objects from ${dump##*/}: $matched have the MIB's OID"

	# An empty dump has failed already: do not list every object as missing.
	if [ $lines -gt 0 ]; then
		missing=0
		for name in "${accessible[@]}"; do
			if [ -z "${dumped[$name]+x}" ]; then
				fail "accessible object $name is missing from the agent's dump"
				missing=$((missing + 1))
			fi
		done
		echo "checked ${#accessible[@]} accessible MIB objects: $((${#accessible[@]} - missing)) served by the agent"
	fi
fi

mib_finish MIB
