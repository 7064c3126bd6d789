#!/bin/bash
# agent_netif_names.sh -- interfaces named with any bytes Linux allows are
# served, their labels escaped.
#
# Linux accepts an interface name of up to 15 bytes without '/', ':' or
# white space, so UTF-8 and control characters are allowed. In a private
# network namespace the test makes two veth pairs named "dév0" (UTF-8),
# "ctl<0x01>x" (a control byte), "back\sl" (a backslash) and "plain0", runs a
# private snmpd master and dcistatd (netif) inside it, and asserts for each:
#   - its ifIndex has a row in dciInstanceTable, whose dciInstanceLabel is
#     the name escaped as registry.h says ("d\xc3\xa9v0", "ctl\x01x",
#     "back\\sl", "plain0");
#   - the name datum of the per-class table (dciNetifName) holds the name's
#     own bytes;
#   - dcistatd logged no refused call.
#
# Needs root and `ip netns` (exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd ip snmpd snmpget od
require_built
make_netns

NETIF=2.1.1                             # class 1.1, length-prefixed
DCI_LABEL=$DCI_ARC.1.4.1.2.$NETIF       # dciInstanceLabel.<class>
D_NAME=1
NETIF_TABLE=$DCI_ARC.1.6.1.1.1          # dciNetifEntry: .datum.ifIndex

# Each name as given to ip(8), and the label dcistatd must serve for it.
names=("dév0" $'ctl\x01x' 'back\sl' plain0)
labels=('d\xc3\xa9v0' 'ctl\x01x' 'back\\sl' plain0)

add_pair() { # A B
	if ! ip -n "$NETNS" link add "$1" type veth peer name "$2" 2>"$TMP_DIR/veth.err"; then
		skip "cannot create a veth pair: $(head -n 1 "$TMP_DIR/veth.err")"
	fi
}
add_pair "${names[0]}" "${names[1]}"
add_pair "${names[2]}" "${names[3]}"

# The ifIndex of each name, read from sysfs (the name is a path component
# like any other: '/' is the one byte it cannot hold).
declare -a indexes
for ((k = 0; k < ${#names[@]}; k++)); do
	indexes[k]=$(ns_run cat "/sys/class/net/${names[k]}/ifindex") ||
	    fail "no ifindex for the interface made as '${labels[k]}'"
done
note "namespace $NETNS: ${labels[*]} as ifIndex ${indexes[*]}"

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_config "$config" 1 0.2
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX

# The bytes of a string as lowercase hex pairs, one line.
hex_of() { printf '%s' "$1" | od -An -tx1 | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }

# The value of one OID as lowercase hex pairs (snmpget -Ox prints OCTET
# STRINGs so, quoted).
hex_get() {
	ns_run snmpget "${SNMP_OPTS[@]}" -Oqv -Ox "$SNMP_TARGET" "$1" 2>&1 |
	    tr -d '"' | tr 'A-F\n' 'a-f ' | tr -s ' ' | sed 's/^ //; s/ $//'
}

labels_served() {
	local k
	for ((k = 0; k < ${#names[@]}; k++)); do
		[ "$(hex_get "$DCI_LABEL.1.${indexes[k]}")" = "$(hex_of "${labels[k]}")" ] ||
		    return 1
	done
}
if ! wait_until 10 labels_served; then
	for ((k = 0; k < ${#names[@]}; k++)); do
		note "ifIndex ${indexes[k]}: dciInstanceLabel $(hex_get "$DCI_LABEL.1.${indexes[k]}"), expected $(hex_of "${labels[k]}") ('${labels[k]}')"
	done
	fail "dciInstanceLabel does not carry the escaped names after 10 s"
fi
for ((k = 0; k < ${#names[@]}; k++)); do
	ok "ifIndex ${indexes[k]}: dciInstanceLabel '${labels[k]}'"
	name_hex=$(hex_get "$NETIF_TABLE.$D_NAME.${indexes[k]}")
	[ "$name_hex" = "$(hex_of "${names[k]}")" ] ||
	    fail "ifIndex ${indexes[k]}: dciNetifName is $name_hex, not the name's bytes $(hex_of "${names[k]}")"
	ok "ifIndex ${indexes[k]}: dciNetifName holds the name's own bytes ($name_hex)"
done

if grep -q "refused" "$DCISTATD_LOG"; then
	sed 's/^/#   /' "$DCISTATD_LOG"
	fail "dcistatd logged a refusal"
fi
ok "no refusal logged"

stop_dcistatd
stop_snmpd
exit 0
