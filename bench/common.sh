# common.sh -- helpers shared by bench/walk and bench/scale (sourced).
#
# Gives: the build directory ($BUILD, from the first argument, $DCISTAT_BUILD
# or the source tree), a private temporary directory ($TMP), a cleanup trap
# that stops every process started here and deletes every network namespace
# made here, a namespace maker, snmpd / dcistatd starters, CPU time and
# resident memory of a process, and small statistics. Nothing here touches
# any address but 127.0.0.1 inside the benchmark's own namespaces.
# shellcheck shell=bash

set -u

BENCH_NAME=${0##*/}
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 1
# shellcheck source=row.sh
. "$BENCH_DIR/row.sh"
SRC_DIR=$(cd "$BENCH_DIR/.." && pwd) || exit 1

die() { printf '%s: error: %s\n' "$BENCH_NAME" "$*" >&2; exit 1; }
note() { printf '# %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	printf '%s: must run as root (it makes a network namespace and runs snmpd in it)\n' \
	    "$BENCH_NAME" >&2
	exit 1
fi

# --- one CPU ----------------------------------------------------------------------
# Every process of the benchmark (agents and clients) runs on one CPU,
# BENCH_CPUS (default: the last one; empty: no pinning). An AgentX walk is a
# chain of request and response messages between three processes; spread
# over CPUs, each message is a cross-CPU wake-up, which in a virtual machine
# costs more than the work it carries and varies with the placement the
# scheduler happens to choose (on the 2-vCPU VM of bench/README.md, 2 to 3
# times the CPU per varbind, from run to run). On one CPU the figures are
# those of the programs.
BENCH_CPUS=${BENCH_CPUS-$(($(nproc --all) - 1))}
if [ -n "$BENCH_CPUS" ]; then
	command -v taskset >/dev/null 2>&1 || die "taskset not found (util-linux); or set BENCH_CPUS="
	taskset -pc "$BENCH_CPUS" $$ >/dev/null || die "cannot pin to CPU(s) $BENCH_CPUS"
fi
bench_cpus() {
	if [ -n "$BENCH_CPUS" ]; then echo "all processes on CPU $BENCH_CPUS"; else echo "not pinned"; fi
}

# --- the build ----------------------------------------------------------------

# bench_build [DIR]: sets BUILD, DCISTATD and provider_so's directory.
bench_build() {
	BUILD=${1:-${DCISTAT_BUILD:-$SRC_DIR}}
	BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || die "build directory ${1:-${DCISTAT_BUILD:-}} not found"
	DCISTATD=$BUILD/src/agent/dcistatd
	[ -x "$DCISTATD" ] ||
	    die "$DCISTATD not built: give the build directory as the first argument or in DCISTAT_BUILD (see bench/README.md)"
}
provider_so() { printf '%s\n' "$BUILD/src/providers/$1/.libs/$1.so"; }

for _c in ip snmpd snmpget snmpbulkwalk awk; do
	command -v "$_c" >/dev/null 2>&1 || die "$_c not found (Debian: apt-get install snmpd snmp iproute2)"
done

# --- temporary directory, cleanup ----------------------------------------------

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcistat-bench-$BENCH_NAME.XXXXXX") || die "mktemp failed"
unset MIBDIRS
export MIBS= SNMPCONFPATH=$TMP/snmpconf SNMP_PERSISTENT_DIR=$TMP/persist
mkdir -p "$SNMPCONFPATH" "$SNMP_PERSISTENT_DIR"

_pids=()
_netns=()

_alive() { kill -0 "$1" 2>/dev/null; }

# stop_pid PID: SIGTERM, up to 5 s, then SIGKILL.
stop_pid() {
	local pid=$1 i
	_alive "$pid" || { wait "$pid" 2>/dev/null; return 0; }
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		_alive "$pid" || break
		sleep 0.1
	done
	_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

_cleanup() {
	local status=$? pid ns
	trap - EXIT INT TERM
	for pid in "${_pids[@]}"; do
		_alive "$pid" && kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${_pids[@]}"; do
		stop_pid "$pid"
	done
	for ns in "${_netns[@]}"; do
		ip netns delete "$ns" 2>/dev/null
	done
	if [ "${BENCH_KEEP_TMP:-0}" = 1 ]; then
		note "kept $TMP"
	else
		rm -rf -- "$TMP"
	fi
	exit "$status"
}
trap _cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- network namespace ----------------------------------------------------------

NS=
# make_ns: a namespace of our own with lo up and IPv6 off (no background
# traffic); sets NS.
make_ns() {
	NS=dcistat-bench-$BENCH_NAME-$$
	ip netns add "$NS" || die "cannot create network namespace $NS"
	_netns+=("$NS")
	ip -n "$NS" link set lo up || die "cannot bring lo up in $NS"
	ip netns exec "$NS" sh -c '
		for f in /proc/sys/net/ipv6/conf/default/disable_ipv6 \
			 /proc/sys/net/ipv6/conf/all/disable_ipv6; do
			[ -w "$f" ] && echo 1 >"$f"
		done; exit 0' 2>/dev/null
}
ns() { ip netns exec "$NS" "$@"; }

# --- processes -------------------------------------------------------------------

# start_bg LOG COMMAND...: starts COMMAND in $NS in the background (stdout and
# stderr to LOG); sets BG_PID (the command's own pid: ip netns exec execs).
BG_PID=
start_bg() {
	local log=$1
	shift
	ip netns exec "$NS" "$@" </dev/null >"$log" 2>&1 &
	BG_PID=$!
	_pids+=("$BG_PID")
}

# wait_until SECONDS COMMAND...: every 0.1 s until COMMAND succeeds; at
# once when it exits 125 (what it waits for can no longer come).
wait_until() {
	local tries=$(($1 * 10)) i status
	shift
	for ((i = 0; i <= tries; i++)); do
		"$@"
		status=$?
		[ "$status" -eq 0 ] && return 0
		# 125: what it waits for can no longer come.
		[ "$status" -eq 125 ] && return 1
		sleep 0.1
	done
	return 1
}

SNMP=(-v2c -c public -t 10 -r 0)
# get PORT OID...: values only (-Oqv), numeric.
get() {
	local port=$1
	shift
	ns snmpget "${SNMP[@]}" -On -Oqv -Oe -Ot "udp:127.0.0.1:$port" "$@" 2>/dev/null
}
_answers() { get "$1" .1.3.6.1.2.1.1.3.0 >/dev/null; }
# _answers_while_alive PID PORT: answers; stops the wait (status 125) when
# PID is gone.
_answers_while_alive() {
	_alive "$1" || return 125
	_answers "$2"
}

# start_snmpd NAME PORT AGENTX-SOCKET [SNMPD-ARG...]: an snmpd in $NS on
# udp:127.0.0.1:PORT, an AgentX master on AGENTX-SOCKET unless that is
# empty; waits until it answers. Sets BG_PID. $SNMPD_EXTRA_CONF, if set, is
# appended to its snmpd.conf.
start_snmpd() {
	local name=$1 port=$2 socket=$3 pid
	shift 3
	{
		[ -z "$socket" ] || printf 'master agentx\nagentXSocket %s\nagentXTimeout 10\n' "$socket"
		cat <<EOF
rocommunity public 127.0.0.1
dontLogTCPWrappersConnects yes
interface_fadeout 0
EOF
		[ -z "${SNMPD_EXTRA_CONF:-}" ] || printf '%s\n' "$SNMPD_EXTRA_CONF"
	} >"$TMP/$name.conf"
	start_bg "$TMP/$name.out" snmpd -f -Lf "$TMP/$name.log" -C -c "$TMP/$name.conf" \
	    "$@" "udp:127.0.0.1:$port"
	pid=$BG_PID
	# An snmpd that died answers no more: said at once, not after every
	# try's timeout.
	wait_until 15 _answers_while_alive "$pid" "$port" ||
	    die "snmpd $name does not answer on port $port: $(_alive "$pid" || echo 'it exited; ')$(tail -n 2 "$TMP/$name.out" "$TMP/$name.log" 2>/dev/null | tr '\n' ' ')"
	BG_PID=$pid
}

# write_dcistatd_config FILE SOCKET PING-INTERVAL [PROVIDER-YAML]: the agent
# section and the providers (a YAML list body, or none).
write_dcistatd_config() {
	{
		printf 'agent:\n  agentx-socket: %s\n' "$2"
		[ -z "$3" ] || printf '  ping-interval: %s\n' "$3"
		printf '  log: stderr\n'
		if [ -n "${4:-}" ]; then
			printf 'providers:\n%s\n' "$4"
		else
			printf 'providers: []\n'
		fi
	} >"$1"
}

# start_dcistatd NAME CONFIG PORT [READY-OID]: dcistatd -f in $NS; waits
# until READY-OID (default dciSupplierModule.1) answers through the master
# on PORT. Sets BG_PID.
DCI_ARC=.1.3.6.1.4.1.8072.9999.9999.4040
DCI_SUPPLIER_LAST_REFRESH_1=$DCI_ARC.1.1.1.10.1
start_dcistatd() {
	local name=$1 config=$2 port=$3 ready=${4:-$DCI_ARC.1.1.1.2.1} pid
	start_bg "$TMP/$name.log" "$DCISTATD" --insecure-paths -f -c "$config" -L stderr
	pid=$BG_PID
	_dci_ready() {
		_alive "$pid" || die "dcistatd $name exited: $(tail -n 3 "$TMP/$name.log")"
		local v
		v=$(get "$port" "$ready") || return 1
		case $v in "No Such"* | "No more"* | "") return 1 ;; esac
	}
	wait_until 120 _dci_ready || die "dcistatd $name does not serve $ready within 120 s"
	BG_PID=$pid
}

# build_bulkwalk: compiles bench/bulkwalk.c into $TMP; sets BULKWALK.
build_bulkwalk() {
	# shellcheck disable=SC2015 # die is the else
	command -v cc >/dev/null 2>&1 && command -v net-snmp-config >/dev/null 2>&1 ||
	    die "cc and net-snmp-config are needed to build bench/bulkwalk.c (apt-get install gcc libsnmp-dev)"
	BULKWALK=$TMP/bulkwalk
	# shellcheck disable=SC2046 # the flags are words
	cc -O2 -o "$BULKWALK" "$BENCH_DIR/bulkwalk.c" $(net-snmp-config --cflags --libs) ||
	    die "cannot build bench/bulkwalk.c"
}

# print_header NAME: date, machine, and the source of the build.
build_source() {
	local src
	src=$(sed -n "s/^srcdir='\(.*\)'$/\1/p" "$BUILD/config.status" 2>/dev/null)
	[ -n "$src" ] && [ "$src" != . ] || src=$BUILD
	src=$(cd "$BUILD" && cd "$src" && pwd)
	if git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
		printf '%s, commit %s%s' "$src" "$(git -C "$src" rev-parse --short HEAD)" \
		    "$(git -C "$src" status --porcelain --untracked-files=no | grep -q . && echo ', dirty tree')"
	elif [ -f "$src/SNAPSHOT" ]; then
		printf '%s (%s)' "$src" "$(tr '\n' ' ' <"$src/SNAPSHOT" | sed 's/ $//')"
	else
		printf '%s' "$src"
	fi
}
print_header() {
	printf '\nbench/%s  %s  Linux %s\n' "$1" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -r)"
	printf 'machine: %s, %s CPUs, %s MiB\n' \
	    "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(nproc --all)" \
	    "$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)"
	printf 'build: %s; source: %s\n' "$BUILD" "$(build_source)"
}

# --- measurements ------------------------------------------------------------------

# cpu_ns PID: CPU time (user + system) of the process in nanoseconds: the
# first fields (sum_exec_runtime, exact) of /proc/PID/task/*/schedstat
# summed over its threads -- /proc/PID/schedstat alone is the main thread's,
# and a provider's refresh runs on a thread of its own -- or utime + stime
# of /proc/PID/stat (clock ticks, every thread) when schedstat is missing or
# CPU_SOURCE=stat. A thread that ended between two readings is missed by
# the sum: dcistatd's threads live as long as their provider.
CLK_TCK=$(getconf CLK_TCK)
cpu_ns() {
	local a stat rest sum=0 task
	if [ "${CPU_SOURCE:-schedstat}" != stat ] && [ -r "/proc/$1/schedstat" ]; then
		for task in /proc/"$1"/task/*/schedstat; do
			read -r a _ <"$task" 2>/dev/null && sum=$((sum + a))
		done
		printf '%s\n' "$sum"
		return
	fi
	stat=$(<"/proc/$1/stat") || { echo 0; return; }
	rest=${stat##*) } # fields from 3 on
	# shellcheck disable=SC2086
	set -- $rest
	printf '%s\n' $(((${12} + ${13}) * 1000000000 / CLK_TCK))
}
cpu_source() {
	if [ "${CPU_SOURCE:-schedstat}" != stat ] && [ -r /proc/self/schedstat ]; then
		echo "/proc/PID/task/*/schedstat (ns, all threads)"
	else
		echo "/proc/PID/stat utime+stime ($CLK_TCK ticks/s)"
	fi
}

# rss_kb PID: VmRSS in kB.
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# now_us: microseconds (EPOCHREALTIME).
now_us() { local t=$EPOCHREALTIME; t=${t/[.,]/}; printf '%s\n' "$((10#$t))"; }

# median [NUMBER...]: the median of the arguments, or of the lines of the
# standard input when there are none (mean of the middle two for an even
# count).
median() {
	if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cat; fi | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# calc EXPRESSION: awk arithmetic, printed with %.6g.
calc() { awk "BEGIN { printf \"%.6g\\n\", $1 }"; }
# fmt FORMAT EXPRESSION
fmt() { awk "BEGIN { printf \"$1\", $2 }"; }

# verdict OK-EXPRESSION: PASS or MISS.
verdict() { awk "BEGIN { print (($1) ? \"PASS\" : \"MISS\") }"; }

# measure_refresh PORT PID PERIOD-SECONDS SAMPLES: the CPU time of one
# refresh. dcistatd refreshes on its schedule, requests or not, so each
# sample reads its CPU time around three periods with no request at all and
# divides by three (the ping interval of the configuration is long: nothing
# else runs). That is one refresh while a refresh takes less than its
# period; the refreshes seen say whether it did. A GET of dciSupplierLastRefresh.1 before and after the samples
# tells how many refreshes they saw. Prints the median in microseconds, the
# refreshes seen, the refreshes expected, then the samples.
measure_refresh() {
	local port=$1 pid=$2 period=$3 samples=$4 i c0 c1 first last
	local -a us=()
	first=$(get "$port" "$DCI_SUPPLIER_LAST_REFRESH_1")
	for ((i = 0; i < samples; i++)); do
		c0=$(cpu_ns "$pid")
		sleep "$(calc "$period * 3")"
		c1=$(cpu_ns "$pid")
		us+=("$(calc "($c1 - $c0) / 3 / 1000")")
	done
	last=$(get "$port" "$DCI_SUPPLIER_LAST_REFRESH_1")
	printf '%s %s %s %s\n' "$(median "${us[@]}")" \
	    "$(calc "int(($last - $first) / ($period * 100) + 0.5)")" \
	    "$((samples * 3))" "${us[*]}"
}
