# lib.sh -- what the MIB checks (check_mib.sh, check_generated_mibs.sh) share:
# paths, failure counting, the tools and IETF base modules they need, a
# temporary directory, and snmptranslate/smilint isolated from the user's
# and the system's configuration.
#
# Sourced after `set -u`. Sets here, top_srcdir, top_builddir (from the
# environment the test harness sets, else this tree), netsnmp_mibs. Call
# mib_setup NAME [MIB-DIRECTORY...] before using tmp, base or mibpath.
# shellcheck shell=bash

if [ -z "${BASH_VERSION:-}" ]; then
	echo "lib.sh: needs bash" >&2
	exit 1
fi

here=$(cd "${0%/*}" 2>/dev/null && pwd) || here=.
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
netsnmp_mibs=/usr/share/snmp/mibs

failures=0
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
skip() { printf 'SKIP: %s\n' "$*"; exit 77; }

# mib_setup NAME [MIB-DIRECTORY...]: skips without smilint, snmptranslate or
# the base modules; makes $tmp (removed on exit); sets $base (the base
# modules' directory) and $mibpath (the directories given, then $base and
# Net-SNMP's modules); isolates the tools: no ~/.smirc or ~/.snmp/snmp.conf,
# no MIBS/MIBDIRS, no writes to /var/lib/snmp.
mib_setup() {
	local name=$1 directory
	shift
	for tool in smilint snmptranslate; do
		command -v "$tool" >/dev/null 2>&1 ||
		    skip "$tool not found (Debian: apt-get install smitools snmp)"
	done
	base=$("$top_srcdir/scripts/fetch-base-mibs") ||
	    skip "IETF base MIBs unavailable (scripts/fetch-base-mibs failed)"
	base=${base%$'\n'}
	[ -d "$base" ] || skip "fetch-base-mibs printed no directory"

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || exit 1
	# shellcheck disable=SC2064 # $tmp is fixed from here on
	trap "rm -rf -- '$tmp'" EXIT

	mibpath=
	for directory in "$@"; do
		mibpath=$mibpath$directory:
	done
	mibpath=$mibpath$base:$netsnmp_mibs
	unset MIBS MIBDIRS
	export HOME=$tmp SNMPCONFPATH=$tmp SNMP_PERSISTENT_DIR=$tmp/persist
}

# Net-SNMP's MIB parser reads a sub-identifier of 2^31 or more as a negative
# number and prints it sign-extended to 64 bits (2^64 - 2^32 + n); the
# module is right, so undo that before comparing. Bash's integers are
# signed 64-bit: split the 20 digits in two halves of 10.
normalise_oid() {
	local out='' part high low
	local IFS=.
	for part in ${1#.}; do
		if [ ${#part} -eq 20 ]; then
			high=$((10#${part:0:10} - 1844674406))
			low=$((10#${part:10} - 9414584320))
			part=$((high * 10000000000 + low))
		fi
		out=$out.$part
	done
	printf '%s\n' "$out"
}

# translate MODULE NAME: NAME's numeric OID on stdout, status 0 if it
# resolves; snmptranslate's complaint in $tmp/translate.err otherwise.
translate() {
	local out
	out=$(snmptranslate -M "$mibpath" -m "$1" -On "$1::$2" 2>"$tmp/translate.err") || return 1
	out=${out%%$'\n'*}
	case $out in
	.[0-9]*) normalise_oid "$out" ;;
	*) return 1 ;;
	esac
}

# access_of MODULE NAME: NAME's MAX-ACCESS.
access_of() {
	snmptranslate -M "$mibpath" -m "$1" -Td "$1::$2" 2>/dev/null |
	    sed -n -E 's/^[[:space:]]*MAX-ACCESS[[:space:]]+([a-z-]+).*/\1/p'
}

# netsnmp_warnings MODULE FILE: what Net-SNMP's MIB parser warns of FILE
# when it loads MODULE with every warning on (-PW: what a manager sees with
# mibWarningLevel 2), one line each; empty when the module loads cleanly.
# The parser warns "No known translation for type (XEntry)" for the
# SEQUENCE type of every table's entry, in whatever order the two are
# written (its own UCD-SNMP-MIB gets the same for every table), so that
# warning is dropped for the SEQUENCE types FILE defines and for nothing
# else.
netsnmp_warnings() {
	local module=$1 file=$2 sequences
	sequences=$(sed -n -E 's/^([A-Z][A-Za-z0-9]*Entry)[[:space:]]*::=[[:space:]]*SEQUENCE.*/\1/p' "$file" |
	    paste -s -d '|')
	snmptranslate -M "$mibpath" -PW -m "$module" -IR sysUpTime.0 2>&1 >/dev/null |
	    grep -F -e "${file##*/}" |
	    grep -E -v "^Warning: No known translation for type \((${sequences:-^})\): " || true
}

# mib_finish WHAT: exits 1 when a check failed, else 0 saying WHAT passed.
mib_finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures check(s) failed"
		exit 1
	fi
	echo "all $1 checks passed"
	exit 0
}
