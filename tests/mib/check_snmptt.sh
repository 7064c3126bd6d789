#!/bin/bash
# check_snmptt.sh -- DCI-STATS-MIB's notifications as snmptt reads them.
#
# snmpttconvertmib turns each NOTIFICATION-TYPE into an snmptt EVENT whose
# FORMAT line is the text an operator reads for each trap received. The
# test converts the module twice and asserts:
#
#  1. by default (the module's --#TYPE, --#SUMMARY and --#ARGUMENTS lines):
#     each of the seven notifications' FORMAT, with every $N replaced by
#     the name of the N-th variable in its OBJECTS list, is exactly the
#     sentence expected below (so every argument points at the varbind it
#     names), and its severity is the one expected;
#  2. with --no_format_summary (FORMAT from the DESCRIPTION's first line):
#     each FORMAT is one whole sentence, ending in "." before snmptt's $*.
#
# Environment: top_srcdir (set by the test harness). Exit status: 0 pass,
# 1 fail, 77 skip (snmpttconvertmib, snmptranslate or the base MIBs
# missing).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

set -u

here=$(cd "${0%/*}" 2>/dev/null && pwd) || here=.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

command -v snmpttconvertmib >/dev/null 2>&1 ||
    skip "snmpttconvertmib not found (Debian: apt-get install snmptt)"
mib_setup check_snmptt "$top_srcdir/mibs"

# EVENT name, severity, then FORMAT with variable names for $N.
expected='dciInstanceAdded INFORMATIONAL DCI instance added: dciNotifyInstanceLabel in class dciNotifyClassLabel (class id dciNotifyClassId, instance id dciNotifyInstanceId, supplier dciNotifySupplierModule)
dciInstanceRemoved INFORMATIONAL DCI instance removed: dciNotifyInstanceLabel in class dciNotifyClassLabel (class id dciNotifyClassId, instance id dciNotifyInstanceId, supplier dciNotifySupplierModule)
dciInstancesSummary INFORMATIONAL DCI changes summed up: class dciNotifyClassLabel (class id dciNotifyClassId, supplier dciNotifySupplierModule): dciNotifyAddedCount added, dciNotifyRemovedCount removed, dciNotifyChangedCount changed
dciSupplierFailed MAJOR DCI supplier failed: dciNotifySupplierModule: dciNotifyReason
dciSupplierRecovered INFORMATIONAL DCI supplier recovered: dciNotifySupplierModule
dciSupplierRestarted MINOR DCI supplier restarted: dciNotifySupplierModule, its counters started again
dciDataChanged INFORMATIONAL DCI watched datum changed: dciNotifyDatumLabel of dciNotifyInstanceLabel in class dciNotifyClassLabel, from dciNotifyOldValue to dciNotifyNewValue (supplier dciNotifySupplierModule)'

# convert OUTPUT [OPTION...]: snmpttconvertmib of DCI-STATS-MIB into OUTPUT.
convert() {
	local output=$1
	shift
	rm -f -- "$output"
	MIBDIRS=$mibpath snmpttconvertmib "$@" \
	    --in="$top_srcdir/mibs/DCI-STATS-MIB.txt" --out="$output" \
	    >"$tmp/convert.log" 2>&1
	if ! grep -q '^Successful translations: *7$' "$tmp/convert.log"; then
		fail "snmpttconvertmib $* did not translate all 7 notifications:"
		sed 's/^/    /' "$tmp/convert.log" | tail -n 5
		return 1
	fi
}

# named OUTPUT: each EVENT's name, severity and FORMAT, $N replaced by the
# N-th name of its "Variables:" list.
named() {
	awk '
	/^EVENT / { flush(); name = $2; severity = $NF; count = 0; next }
	/^FORMAT / { format = substr($0, 8); next }
	/^  [0-9]+: / { count++; variable[count] = $2; next }
	function flush(   i) {
		if (name == "")
			return
		for (i = count; i >= 1; i--)
			gsub("\\$" i, variable[i], format)
		print name, severity, format
		name = ""
	}
	END { flush() }
	' "$1"
}

# --- 1. the --#SUMMARY lines -------------------------------------------------------
if convert "$tmp/summary.conf"; then
	named "$tmp/summary.conf" >"$tmp/summary.named"
	if ! diff -u <(printf '%s\n' "$expected") "$tmp/summary.named" >"$tmp/diff"; then
		fail "snmptt's FORMAT lines from --#SUMMARY are not the expected ones:"
		sed 's/^/    /' "$tmp/diff"
	else
		echo "ok: 7 FORMAT lines from --#SUMMARY name their varbinds as expected"
	fi
fi

# --- 2. the DESCRIPTION's first line -------------------------------------------------
if convert "$tmp/description.conf" --no_format_summary; then
	formats=$(grep -c '^FORMAT ' "$tmp/description.conf")
	cut=$(grep '^FORMAT ' "$tmp/description.conf" | grep -v '\. \$\*$')
	if [ "$formats" -ne 7 ]; then
		fail "$formats FORMAT lines from the descriptions, not 7"
	elif [ -n "$cut" ]; then
		fail "a DESCRIPTION's first line is not a whole sentence:"
		printf '    %s\n' "$cut"
	else
		echo "ok: every DESCRIPTION's first line is a whole sentence"
	fi
fi

mib_finish "snmptt"
