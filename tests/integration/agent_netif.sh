#!/bin/bash
# agent_netif.sh -- dcistatd's netif rows against IF-MIB and sysfs.
#
# In a private network namespace holding lo and three veth pairs (each
# pair's ends both inside it), with traffic of a different size on each
# pair, a private snmpd master and dcistatd (netif provider) run inside the
# namespace. The test asserts, for every interface:
#   - the ifIndexes of class netif (1.1) in dciInstanceTable are exactly
#     those of IF-MIB ifName;
#   - dciInstanceLabel and the name datum (dciStatText) equal ifName;
#   - dciStatCounter64 rx_bytes / tx_bytes equal ifHCInOctets /
#     ifHCOutOctets, read when stable (two consecutive readings agree);
#   - rx_bytes of a quiet veth equals its sysfs statistics/rx_bytes;
#   - the per-class table of netif (dciClassData.1.1, DCI-NETIF-MIB):
#     dciNetifRxBytes.N equals rx_bytes and ifHCInOctets.N in the same PDU,
#     and a walk of DCI-NETIF-MIB::dciNetifTable by name (with the
#     generated module) has a row per ifIndex with dciNetifName = ifName.
# Requests from the master are answered in place (dcistatd's debug log
# says so), so every comparison here goes through that path.
# Refreshes take counters alone while links stand still: dcistatd's debug
# log shows counters dumps, and the counters above were read from them.
# Then one interface is taken down, renamed and given another MTU: its
# rows follow (name, oper_up false, mtu) and a link dump is logged after
# the change. Then it deletes one pair and adds another: within a bounded
# time the deleted ifIndexes vanish from dciStatTable, the new ones appear,
# labelled with their names, and the comparisons hold again. Last, dcistatd
# must exit 0 on SIGTERM with no sanitizer report.
#
# The comparisons read over snmpd's Unix-socket transport: SNMP over UDP
# to 127.0.0.1 would move lo's counters with every request. Readiness is
# checked over UDP 127.0.0.1 as well.
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
require_cmd ip snmpd snmpget snmpwalk
require_built
make_netns
started=$(now_ms)

IFNAME=.1.3.6.1.2.1.31.1.1.1.1
IFHCIN=.1.3.6.1.2.1.31.1.1.1.6
IFHCOUT=.1.3.6.1.2.1.31.1.1.1.10
NETIF=2.1.1                               # class 1.1, length-prefixed
DCI_LABEL=$DCI_ARC.1.4.1.2.$NETIF         # dciInstanceLabel.<class>
DCI_TEXT=$DCI_ARC.1.5.1.3.$NETIF          # dciStatText.<class>
DCI_C64=$DCI_ARC.1.5.1.4.$NETIF           # dciStatCounter64.<class>
D_NAME=1 D_MTU=3 D_OPER_UP=4 D_RX_BYTES=12 D_TX_BYTES=13
NETIF_TABLE=$DCI_ARC.1.6.1.1.1           # dciNetifEntry: .datum.ifIndex

sysfs() { # IFNAME FILE -> the file's content, read inside the namespace
	ns_run cat "/sys/class/net/$1/$2"
}

link_up() { [ "$(sysfs "$1" operstate 2>/dev/null)" = up ]; }

# add_pair A B NET: veth pair A<->B, both up; A is 169.254.NET.1/30 and
# reaches B's MAC address as 169.254.NET.2 (a permanent neighbour entry), so
# datagrams to .2 leave A and arrive at B, which drops them silently (no
# address, no forwarding): A transmits, B receives, nothing else moves.
add_pair() {
	local a=$1 b=$2 net=$3 mac
	if ! ip -n "$NETNS" link add "$a" type veth peer name "$b" 2>"$TMP_DIR/veth.err"; then
		skip "cannot create a veth pair: $(head -n 1 "$TMP_DIR/veth.err")"
	fi
	if ! { ip -n "$NETNS" link set "$a" up && ip -n "$NETNS" link set "$b" up; }; then
		fail "cannot bring $a/$b up"
	fi
	ip -n "$NETNS" addr add "169.254.$net.1/30" dev "$a" ||
	    fail "cannot address $a"
	mac=$(sysfs "$b" address) || fail "no address for $b"
	ip -n "$NETNS" neigh replace "169.254.$net.2" lladdr "$mac" dev "$a" nud permanent ||
	    fail "cannot add the neighbour entry on $a"
	if ! { wait_until 5 link_up "$a" && wait_until 5 link_up "$b"; }; then
		fail "$a/$b not operationally up within 5 s"
	fi
}

# send NET COUNT SIZE: COUNT datagrams of SIZE bytes from A to 169.254.NET.2.
send() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	ns_run bash -c '
		exec 3>"/dev/udp/169.254.$1.2/9" || exit 1
		payload=$(printf "%*s" "$3" "")
		for ((i = 0; i < $2; i++)); do printf "%s" "$payload" >&3 || exit 1; done' \
	    send "$@" || fail "cannot send datagrams to 169.254.$1.2"
}

# Index maps, rebuilt by read_names: ifname[ifIndex] from IF-MIB,
# dcilabel[ifIndex] from dciInstanceTable.
declare -A ifname dcilabel
read_names() {
	local oid value rest
	ifname=() dcilabel=()
	while read -r oid value; do
		[ -n "$oid" ] && ifname[${oid##*.}]=$value
	done < <(snmp_walk "$IFNAME") || return 1
	while read -r oid value; do
		[ -n "$oid" ] || continue
		rest=${oid#"$DCI_LABEL".}
		# one-word instance: 1.<ifIndex>
		[[ $rest =~ ^1\.([0-9]+)$ ]] || fail "unexpected dciInstanceLabel index: $oid"
		dcilabel[${BASH_REMATCH[1]}]=$value
	done < <(snmp_walk "$DCI_LABEL") || return 1
}

sorted_keys() { # NAME-OF-ASSOC-ARRAY
	local -n map=$1
	printf '%s\n' "${!map[@]}" | sort -n | tr '\n' ' '
}

# ifIndexes with at least one row in dciStatTable (class netif), sorted.
dci_stat_indexes() {
	snmp_walk "$DCI_TEXT" | sed -n -E "s/^${DCI_TEXT//./\\.}\\.1\\.([0-9]+)\\.[0-9]+ .*/\\1/p" |
	    sort -n -u | tr '\n' ' '
}

names_agree() { # the index sets agree and each label is the ifName
	local i
	read_names || return 1
	[ "$(sorted_keys ifname)" = "$(sorted_keys dcilabel)" ] || return 1
	for i in "${!ifname[@]}"; do
		[ "${dcilabel[$i]}" = "${ifname[$i]}" ] || return 1
	done
}

check_names() {
	local i text
	if ! wait_until 10 names_agree; then
		read_names
		note "IF-MIB ifName:      $(for i in $(sorted_keys ifname); do printf '%s=%s ' "$i" "${ifname[$i]}"; done)"
		note "dciInstanceLabel:   $(for i in $(sorted_keys dcilabel); do printf '%s=%s ' "$i" "${dcilabel[$i]}"; done)"
		fail "dciInstanceTable (class netif) and IF-MIB ifName disagree after 10 s"
	fi
	ok "ifIndex set of dciInstanceTable class 1.1 = IF-MIB ifName set: $(sorted_keys ifname)"
	for i in $(sorted_keys ifname); do
		text=$(snmp_get "$DCI_TEXT.1.$i.$D_NAME") ||
		    fail "no name datum (dciStatText) for ifIndex $i"
		[ "$text" = "${ifname[$i]}" ] ||
		    fail "ifIndex $i: name datum '$text' != ifName '${ifname[$i]}'"
		ok "ifIndex $i: dciInstanceLabel '${dcilabel[$i]}' = name datum '$text' = ifName '${ifname[$i]}'"
	done
}

# expect_interfaces NAME...: each NAME is in ifname[] (other devices, such
# as the fallback tunnels some kernels put in every namespace, may be too).
expect_interfaces() {
	local name names=" ${ifname[*]} "
	for name in "$@"; do
		[[ $names == *" $name "* ]] || fail "interface $name missing from IF-MIB ifName:$names"
	done
}

# Compares rx_bytes/tx_bytes with ifHCInOctets/ifHCOutOctets for every
# ifIndex in ifname[], from one GET per reading, until two consecutive
# readings are equal and every pair agrees (at most 20 readings).
check_counters() {
	local -a idx oids values
	local i k try previous='' current=''
	mapfile -t idx < <(printf '%s\n' "${!ifname[@]}" | sort -n)
	oids=()
	for i in "${idx[@]}"; do
		oids+=("$DCI_C64.1.$i.$D_RX_BYTES" "$IFHCIN.$i"
		    "$DCI_C64.1.$i.$D_TX_BYTES" "$IFHCOUT.$i"
		    "$NETIF_TABLE.$D_RX_BYTES.$i")
	done
	for ((try = 1; try <= 20; try++)); do
		if current=$(snmp_get "${oids[@]}"); then
			mapfile -t values <<<"$current"
			if [ "$current" = "$previous" ] && counters_match; then
				break
			fi
			previous=$current
		else
			previous=
		fi
		sleep 0.5
	done
	[ -n "$current" ] || fail "cannot read the counters: snmpget failed"
	for ((k = 0; k < ${#idx[@]}; k++)); do
		i=${idx[k]}
		local rx=${values[5 * k]} in=${values[5 * k + 1]}
		local tx=${values[5 * k + 2]} out=${values[5 * k + 3]}
		local cell=${values[5 * k + 4]}
		[ "$rx" = "$in" ] ||
		    fail "${ifname[$i]} ifIndex $i rx_bytes $rx != ifHCInOctets $in (after $try readings)"
		[ "$tx" = "$out" ] ||
		    fail "${ifname[$i]} ifIndex $i tx_bytes $tx != ifHCOutOctets $out (after $try readings)"
		[ "$cell" = "$rx" ] ||
		    fail "${ifname[$i]} ifIndex $i dciNetifRxBytes $cell != rx_bytes $rx"
		ok "${ifname[$i]} ifIndex $i rx_bytes $rx = ifHCInOctets $in = dciNetifRxBytes, tx_bytes $tx = ifHCOutOctets $out"
	done
	[ "$try" -le 20 ] || fail "counters never stable for two consecutive readings in 20 tries"
	note "counters stable and equal after $try readings"
}

counters_match() {
	local k
	[ "${#values[@]}" -eq "${#oids[@]}" ] || return 1
	for ((k = 0; k < ${#values[@]}; k += 5)); do
		[[ ${values[k]} =~ ^[0-9]+$ ]] || return 1
		[ "${values[k]}" = "${values[k + 1]}" ] || return 1
		[ "${values[k + 2]}" = "${values[k + 3]}" ] || return 1
		[ "${values[k]}" = "${values[k + 4]}" ] || return 1
	done
}

# The walk of DCI-NETIF-MIB::dciNetifTable by name, with the generated
# module and the IETF base modules: one dciNetifName per ifIndex of IF-MIB,
# equal to its ifName, and a dciNetifRxBytes for each.
check_named_table() {
	local base out i
	require_cmd snmpbulkwalk
	base=$("$top_srcdir/scripts/fetch-base-mibs") || {
		note "IETF base MIBs unavailable: the walk by name is not checked"
		return 0
	}
	out=$(ns_run snmpbulkwalk "${SNMP_OPTS[@]}" -Cr25 \
	    -M "${base%$'\n'}:/usr/share/snmp/mibs:$top_srcdir/mibs" \
	    -m DCI-NETIF-MIB -Oq "$SNMP_TARGET" DCI-NETIF-MIB::dciNetifTable 2>&1) ||
	    fail "snmpbulkwalk DCI-NETIF-MIB::dciNetifTable: $out"
	for i in "${!ifname[@]}"; do
		grep -q -x "DCI-NETIF-MIB::dciNetifName\.$i \"\?${ifname[$i]}\"\?" <<<"$out" ||
		    fail "dciNetifName.$i is not ${ifname[$i]} in the walk by name: $(grep "dciNetifName\.$i " <<<"$out")"
		grep -q "^DCI-NETIF-MIB::dciNetifRxBytes\.$i [0-9]" <<<"$out" ||
		    fail "no dciNetifRxBytes.$i in the walk by name"
	done
	ok "snmpbulkwalk DCI-NETIF-MIB::dciNetifTable: $(grep -c . <<<"$out") cells by name, dciNetifName.N = ifName for ifIndexes ${!ifname[*]}"
}

# rx_bytes of a quiet interface equals sysfs, read between two equal
# sysfs readings.
check_sysfs() {
	local name=$1 index before value after try
	index=$(sysfs "$name" ifindex) || fail "no ifindex for $name"
	for ((try = 1; try <= 20; try++)); do
		before=$(sysfs "$name" statistics/rx_bytes)
		value=$(snmp_get "$DCI_C64.1.$index.$D_RX_BYTES") || value=
		after=$(sysfs "$name" statistics/rx_bytes)
		[ "$before" = "$after" ] && [ "$value" = "$before" ] && break
		sleep 0.5
	done
	if ! { [ "$value" = "$before" ] && [ "$before" = "$after" ]; }; then
		fail "$name ifIndex $index rx_bytes $value != sysfs rx_bytes $before..$after"
	fi
	[ "$value" -gt 0 ] || fail "$name received nothing: the traffic did not arrive"
	ok "$name ifIndex $index rx_bytes $value = /sys/class/net/$name/statistics/rx_bytes $before"
}

# --- interfaces and traffic ----------------------------------------------------

for n in 0 1 2; do
	add_pair "vx${n}a" "vx${n}b" $((10 + n))
	send $((10 + n)) $((5 * (n + 1))) $((100 * (n + 1)))
done
for n in 0 1 2; do
	[ "$(sysfs "vx${n}b" statistics/rx_bytes)" -gt 0 ] ||
	    fail "vx${n}b received nothing: traffic generation failed"
done
note "namespace $NETNS: lo and veth pairs vx0a/vx0b, vx1a/vx1b, vx2a/vx2b with traffic"

# --- the daemons ------------------------------------------------------------------

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_config "$config" 1 0.2
start_dcistatd "$config" -D netif,agent
wait_dcistatd_ready 10
# Only dcistat's tables are registered: the master's Get and GetNext are
# answered where they are read, not through Net-SNMP's internal agent
# (unless the run is the one with in-place answers off).
if [ "${DCISTAT_IN_PLACE:-auto}" = off ]; then
	grep -q "in-place answers off" "$DCISTATD_LOG" ||
	    fail "dcistatd did not say it answers through Net-SNMP's agent: see $DCISTATD_LOG"
else
	grep -q "AgentX requests answered in place" "$DCISTATD_LOG" ||
	    fail "dcistatd did not take the master's requests in place: see $DCISTATD_LOG"
fi
ok "dcistatd serves dciSupplierTable over udp:127.0.0.1:$SNMPD_PORT in $NETNS"

SNMP_TARGET=unix:$SNMPD_UNIX
check_names
expect_interfaces lo vx0a vx0b vx1a vx1b vx2a vx2b
check_counters
check_named_table
check_sysfs vx0b
check_sysfs vx2b

# --- counters alone while links stand still ---------------------------------------

refreshes() { # KIND: "counters" or "link": refreshes of that kind logged
	grep -c "netif: refresh: $1 dump" "$DCISTATD_LOG"
}
counters_dumps=$(refreshes counters)
link_dumps=$(refreshes link)
[ "$counters_dumps" -gt 0 ] ||
    fail "no refresh took counters alone ($link_dumps link dumps): see $DCISTATD_LOG"
ok "refreshes so far: $counters_dumps counters dumps, $link_dumps link dumps"
send 10 9 444
check_sysfs vx0b
[ "$(refreshes link)" = "$link_dumps" ] ||
    fail "a link dump was logged although no link changed"
ok "new traffic on vx0b served from counters dumps alone"

# --- a link changes: down, renamed, another MTU -----------------------------------

index=$(sysfs vx2b ifindex)
ip -n "$NETNS" link set vx2b down &&
    ip -n "$NETNS" link set vx2b name vx2r &&
    ip -n "$NETNS" link set vx2r mtu 1400 || fail "cannot change vx2b"
link_changed() {
	[ "$(snmp_get "$DCI_TEXT.1.$index.$D_NAME" "$DCI_TEXT.1.$index.$D_OPER_UP" \
	    "$DCI_TEXT.1.$index.$D_MTU" | tr '\n' ' ')" = "vx2r false 1400 " ]
}
t0=$(now_ms)
wait_until 10 link_changed ||
    fail "ifIndex $index: name/oper_up/mtu are '$(snmp_get "$DCI_TEXT.1.$index.$D_NAME" \
        "$DCI_TEXT.1.$index.$D_OPER_UP" "$DCI_TEXT.1.$index.$D_MTU" | tr '\n' ' ')' 10 s after the change, not 'vx2r false 1400'"
[ "$(sysfs vx2r mtu)" = 1400 ] && [ "$(sysfs vx2r operstate)" = down ] ||
    fail "sysfs disagrees with the change made"
[ "$(refreshes link)" -gt "$link_dumps" ] ||
    fail "the change was served without a link dump being logged"
ok "ifIndex $index renamed vx2r, down, mtu 1400: served within $(($(now_ms) - t0)) ms, after a link dump"
# Back as it was: snmpd's IF-MIB keeps the first name it saw of an
# interface, and the checks below compare names with it.
ip -n "$NETNS" link set vx2r name vx2b &&
    ip -n "$NETNS" link set vx2b mtu 1500 &&
    ip -n "$NETNS" link set vx2b up || fail "cannot restore vx2b"
link_restored() {
	link_up vx2b && [ "$(snmp_get "$DCI_TEXT.1.$index.$D_NAME" \
	    "$DCI_TEXT.1.$index.$D_OPER_UP" "$DCI_TEXT.1.$index.$D_MTU" |
	    tr '\n' ' ')" = "vx2b true 1500 " ]
}
wait_until 10 link_restored || fail "ifIndex $index not served as vx2b, up, mtu 1500 10 s after restoring it"
ok "ifIndex $index back to vx2b, up, mtu 1500"

# --- interfaces come and go -------------------------------------------------------

gone="$(sysfs vx1a ifindex) $(sysfs vx1b ifindex)"
ip -n "$NETNS" link delete vx1a || fail "cannot delete vx1a"
add_pair vx3a vx3b 13
send 13 7 333
new="$(sysfs vx3a ifindex) $(sysfs vx3b ifindex)"
note "deleted vx1a/vx1b (ifIndex $gone), added vx3a/vx3b (ifIndex $new)"

rows_changed() {
	local present i
	present=" $(dci_stat_indexes)"
	for i in $gone; do
		[[ $present != *" $i "* ]] || return 1
	done
	for i in $new; do
		[[ $present == *" $i "* ]] || return 1
	done
}
t0=$(now_ms)
if ! wait_until 10 rows_changed; then
	fail "after 10 s dciStatTable rows are for ifIndex $(dci_stat_indexes); expected none of $gone, all of $new"
fi
ok "within $(($(now_ms) - t0)) ms dciStatTable dropped ifIndex $gone and gained $new (rows now for $(dci_stat_indexes))"

check_names
for name in vx3a vx3b; do
	index=$(sysfs "$name" ifindex)
	[ "${dcilabel[$index]:-}" = "$name" ] ||
	    fail "new interface $name (ifIndex $index) labelled '${dcilabel[$index]:-}'"
	ok "new interface $name ifIndex $index labelled '$name'"
done
expect_interfaces lo vx0a vx0b vx2a vx2b vx3a vx3b
check_counters
check_sysfs vx3b

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
