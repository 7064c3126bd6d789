#!/bin/bash
# agent_evcnt.sh -- dcistatd's evcnt rows against /proc/interrupts and
# /proc/softirqs.
#
# dcistatd runs with the evcnt provider under a private snmpd master. The
# test reads both files, walks the count column of class evcnt (1.3), and
# reads the files again; it asserts:
#   - every interrupt line and softirq of the files is a row, with the
#     documented instance id: (1, IRQ, 0) for numbered lines, (2, FNV-1a of
#     the key, 0) for named ones (NMI, LOC...), (3, FNV-1a, 0) for softirqs;
#     per-CPU children at slot CPU+1;
#   - each count lies between the two readings of the file (totals are the
#     sum over CPUs);
#   - labels show group and name ("IO-APIC 24 5-edge ACPI:Ged",
#     "LOC Local timer interrupts", "softirq NET_RX", "... cpu1");
#   - each child's dciInstanceParent points at its total's row, totals have
#     none (0.0), and the cpu datum is the CPU number;
#   - after a restart of dcistatd, the instance ids are the same.
#
# Needs root (for snmpd's sockets; exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget snmpwalk
require_built
EVCNT_SO=$(provider_so evcnt)
[ -f "$EVCNT_SO" ] || fail "$EVCNT_SO not built (run make)"
[ -r /proc/interrupts ] && [ -r /proc/softirqs ] ||
    skip "no /proc/interrupts or /proc/softirqs"
started=$(now_ms)

EVCNT=2.1.3                               # class 1.3, length-prefixed
DCI_LABEL=$DCI_ARC.1.4.1.2.$EVCNT
DCI_PARENT=$DCI_ARC.1.4.1.5.$EVCNT
DCI_C64=$DCI_ARC.1.5.1.4.$EVCNT
DCI_GAUGE=$DCI_ARC.1.5.1.6.$EVCNT
D_COUNT=1 D_CPU=5
REFRESH=1

fnv1a() { # TEXT -> FNV-1a 32-bit hash, decimal
	local text=$1 hash=2166136261 i byte
	for ((i = 0; i < ${#text}; i++)); do
		printf -v byte '%d' "'${text:i:1}"
		hash=$(((hash ^ byte) * 16777619 & 0xffffffff))
	done
	printf '%s\n' "$hash"
}

# read_proc FILE SOURCE PREFIX: fills the associative array named PREFIX
# with "id -> count" for every total ("SOURCE.KEY.0") and per-CPU count
# ("SOURCE.KEY.CPU+1"), and labels[id] for totals when PREFIX is "before".
# shellcheck disable=SC2034 # the arrays are read by name
declare -A before after labels
read_proc() {
	local file=$1 source=$2 line key rest k total i cpu
	local -n counts=$3
	local -a cpus fields
	{
		read -r -a cpus
		while IFS= read -r line; do
			key=${line%%:*}
			key=${key//[[:space:]]/}
			rest=${line#*:}
			read -r -a fields <<<"$rest"
			if [ "$source" = 1 ] && ! [[ $key =~ ^[0-9]+$ ]]; then
				k=2
			elif [ "$source" = 1 ]; then
				k=1
			else
				k=3
			fi
			local id_key
			if [ "$k" = 1 ]; then id_key=$key; else id_key=$(fnv1a "$key"); fi
			total=0
			for ((i = 0; i < ${#cpus[@]} && i < ${#fields[@]}; i++)); do
				[[ ${fields[i]} =~ ^[0-9]+$ ]] || break
				total=$((total + fields[i]))
				cpu=${cpus[i]#CPU}
				if [ "${#fields[@]}" -gt 1 ] || [ "${#cpus[@]}" -eq 1 ]; then
					counts[$k.$id_key.$((cpu + 1))]=${fields[i]}
				fi
			done
			counts[$k.$id_key.0]=$total
			[ "$3" = before ] || continue
			local description
			description=$(printf '%s' "${fields[*]:i}" | tr -s ' ')
			case $k in
			1) # group = the chip (first word), name = "IRQ rest"
			   if [ -z "$description" ]; then
				labels[$k.$id_key.0]="irq $key"
			   elif [[ $description == *" "* ]]; then
				labels[$k.$id_key.0]="${description%% *} $key ${description#* }"
			   else
				labels[$k.$id_key.0]="$description $key"
			   fi ;;
			2) labels[$k.$id_key.0]="$key ${description:-$key}" ;;
			3) labels[$k.$id_key.0]="softirq $key" ;;
			esac
		done
	} <"$file"
}

# --- the daemons ----------------------------------------------------------------

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $EVCNT_SO
    refresh: $REFRESH
EOF
DCISTATD_FIRST_MODULE=evcnt
start_dcistatd "$config"
wait_dcistatd_ready 10
ok "dcistatd serves the evcnt supplier over udp:127.0.0.1:$SNMPD_PORT"
SNMP_TARGET=unix:$SNMPD_UNIX

# Refreshes run on their schedule: one period after the first reading, the
# snapshot served was taken after it, and before the second reading.
read_proc /proc/interrupts 1 before
read_proc /proc/softirqs 3 before
sleep "$REFRESH.2"
walk=$(snmp_walk "$DCI_C64") || fail "cannot walk dciStatCounter64 of class evcnt"
read_proc /proc/interrupts 1 after
read_proc /proc/softirqs 3 after

declare -A served
while read -r oid value; do
	[ -n "$oid" ] || continue
	rest=${oid#"$DCI_C64".3.}
	[[ $rest =~ ^([0-9]+\.[0-9]+\.[0-9]+)\.$D_COUNT$ ]] ||
	    fail "unexpected dciStatCounter64 index in class evcnt: $oid"
	served[${BASH_REMATCH[1]}]=$value
done <<<"$walk"

checked=0
for id in "${!before[@]}"; do
	[ -n "${served[$id]:-}" ] || fail "event $id (from /proc) has no count row"
	low=${before[$id]} high=${after[$id]:-}
	[ -n "$high" ] || continue # vanished between the readings
	value=${served[$id]}
	[ "$value" -ge "$low" ] && [ "$value" -le "$high" ] ||
	    fail "event $id: count $value not within the readings $low..$high"
	checked=$((checked + 1))
done
for id in "${!served[@]}"; do
	[ -n "${before[$id]:-}${after[$id]:-}" ] || fail "row $id is in no reading of /proc"
done
ok "$checked counts (totals and per-CPU) lie between two readings of /proc/interrupts and /proc/softirqs; ${#served[@]} rows, none extra"

for id in 2."$(fnv1a LOC)".0 3."$(fnv1a NET_RX)".0; do
	[ -n "${served[$id]:-}" ] || fail "no row $id (LOC or NET_RX by their FNV-1a key)"
done
ok "named rows use the documented ids: LOC = 2.$(fnv1a LOC).0, NET_RX = 3.$(fnv1a NET_RX).0"

# Labels of the totals.
declare -A served_labels
while read -r oid value; do
	[ -n "$oid" ] || continue
	served_labels[${oid#"$DCI_LABEL".3.}]=$value
done < <(snmp_walk "$DCI_LABEL")
for id in "${!labels[@]}"; do
	want=${labels[$id]}
	[ "${served_labels[$id]:-}" = "$want" ] ||
	    fail "event $id labelled '${served_labels[$id]:-}', expected '$want'"
done
ok "${#labels[@]} totals labelled group and name (e.g. '${served_labels[2.$(fnv1a LOC).0]}', '${served_labels[3.$(fnv1a NET_RX).0]}')"

# Parents and CPU numbers of the children.
parents=$(snmp_walk "$DCI_PARENT") || fail "cannot walk dciInstanceParent"
children=0
while read -r oid value; do
	[ -n "$oid" ] || continue
	id=${oid#"$DCI_PARENT".3.}
	slot=${id##*.}
	if [ "$slot" = 0 ]; then
		[ "$value" = .0.0 ] || fail "total $id has parent $value, expected 0.0"
		continue
	fi
	[ "$value" = "$DCI_LABEL.3.${id%.*}.0" ] ||
	    fail "child $id has parent $value, expected $DCI_LABEL.3.${id%.*}.0"
	cpu=$(snmp_get "$DCI_GAUGE.3.$id.$D_CPU") || fail "no cpu datum for $id"
	[ "$cpu" = $((slot - 1)) ] || fail "child $id: cpu $cpu, expected $((slot - 1))"
	[ "${served_labels[$id]}" = "${served_labels[${id%.*}.0]} cpu$cpu" ] ||
	    fail "child $id labelled '${served_labels[$id]}'"
	children=$((children + 1))
done <<<"$parents"
[ "$children" -gt 0 ] || fail "no per-CPU children served"
ok "$children per-CPU children point at their totals (dciInstanceParent), cpu datum = slot - 1, label '<total> cpuN'"

# --- the same ids after a restart --------------------------------------------------

ids_before=$(printf '%s\n' "${!served_labels[@]}" | sort)
stop_dcistatd
start_dcistatd "$config"
wait_dcistatd_ready 10
ids_after=$(snmp_walk "$DCI_LABEL" | sed -e "s/^${DCI_LABEL//./\\.}\\.3\\.//" -e 's/ .*//' | sort)
[ "$ids_before" = "$ids_after" ] ||
    fail "instance ids changed across a restart: $(diff <(echo "$ids_before") <(echo "$ids_after") | head -n 5 | tr '\n' ' ')"
ok "all $(echo "$ids_after" | wc -l) instance ids are the same after a restart of dcistatd"

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
