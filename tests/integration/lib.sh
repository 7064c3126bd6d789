# lib.sh -- helpers for the integration tests, sourced by each of them.
#
# A test does
#     . "$top_srcdir/tests/integration/lib.sh"
# and gets: a private temporary directory ($TMP_DIR), removed at exit along
# with every process the test started and every network namespace it made;
# a private snmpd master (start_snmpd), dcistatd (start_dcistatd,
# stop_dcistatd, which also checks for a clean exit and for sanitizer
# reports), a small AgentX master with dcistatd as its subagent
# (start_agentx_master, wait_agentx_master), SNMP wrappers (snmp_get,
# snmp_walk) and bounded polling (wait_until). Nothing here sleeps for a
# fixed long time.
#
# Environment: top_srcdir and top_builddir (set by `make check`; default to
# this script's tree and the current directory); IT_KEEP_TMP=1 keeps the
# temporary directory for inspection; DCISTATD overrides the daemon.
# Exit status of a test: 0 pass, 1 fail, 77 skip.
# shellcheck shell=bash

if [ -z "${BASH_VERSION:-}" ]; then
	echo "lib.sh: needs bash" >&2
	exit 99
fi

set -u

IT_NAME=${0##*/}
IT_NAME=${IT_NAME%.sh}
_lib_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" 2>/dev/null && pwd) || _lib_here=.
top_srcdir=${top_srcdir:-$(cd "$_lib_here/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
export top_srcdir top_builddir

DCISTATD=${DCISTATD:-$top_builddir/src/agent/dcistatd}
NETIF_PLUGIN_DIR=$top_builddir/src/providers/netif/.libs
# provider_so NAME: the plug-in of provider NAME in the build tree, an
# absolute path that a configuration's `module` can name directly.
provider_so() { printf '%s\n' "$top_builddir/src/providers/$1/.libs/$1.so"; }
# stage_providers DIR: links every built-in provider of the build tree into
# DIR, a plug-in directory as `make install` lays it out.
BUILTIN_PROVIDERS="netif devstat evcnt suppliers"
stage_providers() {
	local name
	mkdir -p "$1" || fail "cannot create $1"
	for name in $BUILTIN_PROVIDERS; do
		[ -f "$(provider_so "$name")" ] || fail "$(provider_so "$name") not built (run make)"
		ln -sf "$(provider_so "$name")" "$1/$name.so" || fail "cannot link $name.so into $1"
	done
}
# dciStatsMIB, the module identity arc of DCI-STATS-MIB.
DCI_ARC=.1.3.6.1.4.1.8072.9999.9999.4040
DCI_SUPPLIER_MODULE_1=$DCI_ARC.1.1.1.2.1

# Sanitizer builds (--enable-sanitizers): leaks and UB are fatal. Harmless
# for an uninstrumented build.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
SANITIZER_RE='ERROR: AddressSanitizer|runtime error:|LeakSanitizer'

# Keep the Net-SNMP tools away from the user's and the system's
# configuration and persistent state, and from MIB files: every OID the
# tests use is numeric.
unset MIBDIRS
export MIBS=
TMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dcistat-$IT_NAME.XXXXXX") || {
	echo "FAIL: cannot create a temporary directory"
	exit 1
}
export SNMPCONFPATH=$TMP_DIR/snmpconf SNMP_PERSISTENT_DIR=$TMP_DIR/persist
mkdir -p "$SNMPCONFPATH" "$SNMP_PERSISTENT_DIR"

_lib_pids=()   # every background process started, for cleanup
_lib_at_exit=() # functions run at exit, after those processes are gone
# at_exit FUNCTION: runs FUNCTION at exit (after the test's processes end).
at_exit() { _lib_at_exit+=("$1"); }
_lib_netns=()  # every network namespace made, for cleanup
NETNS=         # when set, ns_run and the daemons run inside it

# --- reporting ------------------------------------------------------------------

ok() { printf 'ok: %s\n' "$*"; }
note() { printf '# %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
skip() { printf 'SKIP: %s\n' "$*"; exit 77; }

# --- cleanup ----------------------------------------------------------------------

_lib_alive() { kill -0 "$1" 2>/dev/null; }
# Gone: no such process, or one that exited and waits for a parent that
# is not this shell (a daemon) to reap it.
_lib_gone() {
	local state
	kill -0 "$1" 2>/dev/null || return 0
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "${state%% *}" = Z ]
}

_lib_cleanup() {
	local status=$? pid i log
	trap - EXIT INT TERM
	for pid in "${_lib_pids[@]}"; do
		_lib_alive "$pid" && kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${_lib_pids[@]}"; do
		for ((i = 0; i < 30; i++)); do
			_lib_alive "$pid" || break
			sleep 0.1
		done
		_lib_alive "$pid" && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for i in "${_lib_at_exit[@]}"; do
		"$i"
	done
	for i in "${_lib_netns[@]}"; do
		ip netns delete "$i" 2>/dev/null
	done
	if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
		for log in "$TMP_DIR"/*.log; do
			[ -s "$log" ] || continue
			printf '# --- last lines of %s ---\n' "${log##*/}"
			tail -n 40 "$log" | sed 's/^/#   /'
		done
	fi
	if [ "${IT_KEEP_TMP:-0}" = 1 ]; then
		note "kept $TMP_DIR"
	else
		rm -rf -- "$TMP_DIR"
	fi
	exit "$status"
}
trap _lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- prerequisites ----------------------------------------------------------------

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
		    skip "$c not found (Debian: apt-get install snmpd snmp iproute2)"
	done
}

# require_openmetrics_parser: sets PYTHON to a python3 with the strict
# OpenMetrics parser (Debian's python3-prometheus-client, for the system's
# python3: one earlier in PATH may not see it); skips without one.
PYTHON=
require_openmetrics_parser() {
	local candidate
	for candidate in python3 /usr/bin/python3; do
		if "$candidate" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
			# shellcheck disable=SC2034 # read by the tests
			PYTHON=$candidate
			return 0
		fi
	done
	skip "no python3 with prometheus_client (apt-get install python3-prometheus-client)"
}

require_built() {
	[ -x "$DCISTATD" ] || fail "$DCISTATD not built (run make)"
	[ -f "$NETIF_PLUGIN_DIR/netif.so" ] ||
	    fail "$NETIF_PLUGIN_DIR/netif.so not built (run make)"
}

# Serialises the tests that create and delete fixed-named system users: two
# runs of the suite at once (two build directories, a CI run beside a hand run)
# would otherwise delete each other's users mid-test. Held until the test exits.
hold_test_users_lock() {
	local dir=/run/lock
	[ -d "$dir" ] || dir=/tmp
	local lock=${DCISTAT_TEST_USERS_LOCK:-$dir/dcistat-test-users.lock}
	exec {_lib_users_lock_fd}>>"$lock" || fail "cannot open $lock"
	flock -w 900 "$_lib_users_lock_fd" ||
	    fail "another run has held $lock for 15 minutes (a test left behind?)"
}

# make_test_accounts GROUP USER...: the group GROUP and the users (no home,
# no login shell; a USER written NAME+ has GROUP as a supplementary group),
# after removing those a killed run left behind; all are removed at exit.
# Call hold_test_users_lock first.
_lib_test_group=
_lib_test_users=()
_lib_remove_test_accounts() {
	local user
	for user in "${_lib_test_users[@]}"; do
		userdel "$user" 2>/dev/null
	done
	[ -z "$_lib_test_group" ] || groupdel "$_lib_test_group" 2>/dev/null
	return 0
}
make_test_accounts() {
	local spec user member
	_lib_test_group=$1
	shift
	_lib_test_users=()
	for spec; do
		_lib_test_users+=("${spec%+}")
	done
	_lib_remove_test_accounts
	at_exit _lib_remove_test_accounts
	groupadd "$_lib_test_group" || fail "cannot create group $_lib_test_group"
	for spec; do
		user=${spec%+}
		member=()
		[ "$spec" = "$user" ] || member=(-G "$_lib_test_group")
		useradd -M -N -s /usr/sbin/nologin "${member[@]}" "$user" ||
		    fail "cannot create user $user"
	done
}

# make_shared_dir PREFIX: sets SHARED_DIR to a new directory
# /tmp/PREFIX.XXXXXX that every user may enter (where a test user reaches
# a socket and the programs share_test_program copies), removed at exit.
# Not under $TMP_DIR, which only root may enter.
SHARED_DIR=
_lib_remove_shared_dir() { [ -z "$SHARED_DIR" ] || rm -rf -- "$SHARED_DIR"; }
make_shared_dir() {
	SHARED_DIR=$(mktemp -d "/tmp/$1.XXXXXX") || fail "mktemp"
	at_exit _lib_remove_shared_dir
	chmod 755 "$SHARED_DIR"
}

# share_test_program NAME: copies the test program tests/NAME (its libtool
# binary when there is one) to $SHARED_DIR/NAME, mode 755.
share_test_program() {
	local built=$top_builddir/tests/.libs/$1
	[ -x "$built" ] || built=$top_builddir/tests/$1
	[ -x "$built" ] || fail "tests/$1 is not built"
	{ cp "$built" "$SHARED_DIR/$1" && chmod 755 "$SHARED_DIR/$1"; } ||
	    fail "cannot copy tests/$1 into $SHARED_DIR"
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
}

# --- network namespaces -----------------------------------------------------------

# Makes a network namespace, sets NETNS to it, brings its loopback up and
# turns IPv6 off in it (no router solicitations, DAD or MLD reports moving
# counters behind the test's back). Skips the test when namespaces are not
# available.
make_netns() {
	local name=dcistat-$IT_NAME-$$
	command -v ip >/dev/null 2>&1 || skip "ip not found (apt-get install iproute2)"
	ip netns add "$name" 2>"$TMP_DIR/netns.err" ||
	    skip "cannot create a network namespace: $(head -n 1 "$TMP_DIR/netns.err")"
	_lib_netns+=("$name")
	NETNS=$name
	ip -n "$NETNS" link set lo up || fail "cannot bring lo up in $NETNS"
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$NETNS" sh -c '
		for f in /proc/sys/net/ipv6/conf/default/disable_ipv6 \
			 /proc/sys/net/ipv6/conf/all/disable_ipv6; do
			[ -w "$f" ] && echo 1 >"$f"
		done; exit 0' 2>/dev/null
}

# make_quiet_pair A B: a veth pair A/B in $NETNS, both up, no addresses
# (make_netns turned IPv6 off: their counters stand still); sets QUIET to
# B's ifIndex. Skips the test when no veth pair can be made.
make_quiet_pair() {
	if ! ip -n "$NETNS" link add "$1" type veth peer name "$2" 2>"$TMP_DIR/veth.err"; then
		skip "cannot create a veth pair: $(head -n 1 "$TMP_DIR/veth.err")"
	fi
	if ! { ip -n "$NETNS" link set "$1" up && ip -n "$NETNS" link set "$2" up; }; then
		fail "cannot bring the pair up"
	fi
	# shellcheck disable=SC2034 # read by the tests
	QUIET=$(ns_run cat "/sys/class/net/$2/ifindex") || fail "no ifindex"
}

# Runs a command inside $NETNS, or here when there is none.
ns_run() {
	if [ -n "$NETNS" ]; then
		ip netns exec "$NETNS" "$@"
	else
		"$@"
	fi
}

# The command prefix that puts a program into $NETNS (for "$@" &, where a
# shell function would leave a subshell's pid in $!).
_lib_ns_prefix=()
_lib_set_ns_prefix() {
	_lib_ns_prefix=()
	[ -z "$NETNS" ] || _lib_ns_prefix=(ip netns exec "$NETNS")
}

# --- polling ----------------------------------------------------------------------

# wait_until SECONDS COMMAND [ARG...]: runs COMMAND every 0.2 s until it
# succeeds (status 0) or SECONDS have passed (status 1). COMMAND may return
# $GIVE_UP (e.g. the process it waits for died) to stop waiting at once.
GIVE_UP=100
wait_until() {
	local seconds=$1 tries i status
	shift
	tries=$((seconds * 5))
	for ((i = 0; i <= tries; i++)); do
		"$@"
		status=$?
		[ "$status" -eq 0 ] && return 0
		[ "$status" -eq "$GIVE_UP" ] && return 1
		((i < tries)) && sleep 0.2
	done
	return 1
}

# Milliseconds since an arbitrary start.
now_ms() {
	local t=${EPOCHREALTIME:-}
	if [ -n "$t" ]; then
		t=${t/[.,]/}
		printf '%s\n' "$((10#${t:0:${#t}-3}))"
	else
		date +%s%3N
	fi
}

# --- ports ------------------------------------------------------------------------

# Prints a UDP port nothing listens on at 127.0.0.1 (in $NETNS if set).
free_udp_port() {
	local base port i used
	base=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
	for ((i = 0; i < 200; i++)); do
		port=$((base + i))
		if command -v ss >/dev/null 2>&1; then
			used=$(ns_run ss -Hlun "sport = :$port" 2>/dev/null)
			[ -z "$used" ] || continue
		fi
		printf '%s\n' "$port"
		return 0
	done
	return 1
}

# Prints a TCP port nothing listens on at 127.0.0.1 (in $NETNS if set).
free_tcp_port() {
	local base port i used
	base=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
	for ((i = 0; i < 200; i++)); do
		port=$((base + i))
		if command -v ss >/dev/null 2>&1; then
			used=$(ns_run ss -Hltn "sport = :$port" 2>/dev/null)
			[ -z "$used" ] || continue
		fi
		printf '%s\n' "$port"
		return 0
	done
	return 1
}

# --- SNMP clients -----------------------------------------------------------------

SNMP_TARGET=
SNMP_OPTS=(-v2c -c public -t 2 -r 1)

_lib_unquote() { # strips the quotes -Oq puts around strings
	local v=$1
	if [ "${#v}" -ge 2 ] && [ "${v:0:1}" = '"' ] && [ "${v: -1}" = '"' ]; then
		v=${v:1:${#v}-2}
	fi
	printf '%s\n' "$v"
}

# snmp_get OID...: prints the value of each OID, one a line, strings
# unquoted. Status 1 when the request fails or any OID has no value.
snmp_get() {
	local out line status=0
	out=$(ns_run snmpget "${SNMP_OPTS[@]}" -Oqv -Oe -Ot "$SNMP_TARGET" "$@" 2>&1) ||
	    return 1
	while IFS= read -r line; do
		case $line in
		"No Such Instance"* | "No Such Object"* | "No more variables"*)
			status=1 ;;
		esac
		_lib_unquote "$line"
	done <<<"$out"
	return "$status"
}

# snmp_walk OID: prints "NUMERIC-OID VALUE" lines (-Oqn, strings unquoted);
# nothing for an empty subtree. Status 1 when the request fails.
snmp_walk() {
	local out oid value
	out=$(ns_run snmpwalk "${SNMP_OPTS[@]}" -Oqn -Oe -Ot "$SNMP_TARGET" "$1" 2>&1) ||
	    return 1
	while IFS=' ' read -r oid value; do
		case $value in
		"No Such Instance"* | "No Such Object"* | "No more variables"*)
			continue ;;
		esac
		[ -n "$oid" ] || continue
		printf '%s %s\n' "$oid" "$(_lib_unquote "$value")"
	done <<<"$out"
}

# libdci_values_agree CONSUMER IFINDEX: through tests/libdci_consumer
# (DCISTAT_DCI_SOCKET's server), every 64-bit counter (u8) of netif's
# instance IFINDEX equals dciStatCounter64 over SNMP, its name (text)
# dciStatText, and rx_bytes read alone the same counter; at least 10
# values. Sets COMPARED to their number; the DCI reading is left in
# $TMP_DIR/all.out.
libdci_values_agree() {
	local consumer=$1 ifindex=$2 id type value oids=() values=() got i
	local text=$DCI_ARC.1.5.1.3.2.1.1 c64=$DCI_ARC.1.5.1.4.2.1.1 rx_bytes=12
	"$consumer" get 1.1 "$ifindex" '*' >"$TMP_DIR/all.out" || return 1
	[ "$(head -n 1 "$TMP_DIR/all.out")" = "status SUCCESS" ] || return 1
	while read -r _ id type value; do
		case $type in
		u8) oids+=("$c64.1.$ifindex.$id") ;;
		text) oids+=("$text.1.$ifindex.$id") ;;
		*) continue ;;
		esac
		values+=("$value")
	done < <(tail -n +2 "$TMP_DIR/all.out")
	[ "${#oids[@]}" -ge 10 ] || return 1
	i=0
	while IFS= read -r got; do
		[ "$got" = "${values[$i]}" ] || {
			note "${oids[$i]}: DCI '${values[$i]}', SNMP '$got'"
			return 1
		}
		i=$((i + 1))
	done < <(snmp_get "${oids[@]}")
	[ "$i" -eq "${#oids[@]}" ] || return 1
	# shellcheck disable=SC2034 # read by the tests
	COMPARED=$i
	got=$("$consumer" get 1.1 "$ifindex" "$rx_bytes" | sed -n 2p)
	[ "${got##* }" = "$(snmp_get "$c64.1.$ifindex.$rx_bytes")" ] || return 1
}

# libdci_as USER CONSUMER ARG...: runs tests/libdci_consumer as USER
# against the same server ($DCISTAT_DCI_SOCKET); its output, stderr too.
libdci_as() {
	local user=$1
	shift
	runuser -u "$user" -- env DCISTAT_DCI_SOCKET="$DCISTAT_DCI_SOCKET" "$@" 2>&1
}

# libdci_instances_added CONSUMER SECONDS A B: through tests/libdci_consumer
# subscribed to DCI_INSTANCEADDED of class 1.1 (for at most SECONDS), a
# veth pair A/B created in $NETNS afterwards is announced: both ifIndexes,
# which ADDED is set to ("4 5"). Fails otherwise.
libdci_instances_added() {
	local consumer=$1 seconds=$2 waiter new
	"$consumer" wait 1.1 "$seconds" >"$TMP_DIR/events.out" 2>&1 &
	waiter=$!
	_lib_pids+=("$waiter")
	wait_until 10 grep -qx ready "$TMP_DIR/events.out" ||
	    fail "the consumer did not subscribe: $(cat "$TMP_DIR/events.out")"
	ip -n "$NETNS" link add "$3" type veth peer name "$4" ||
	    fail "cannot create the second veth pair"
	new=$(ns_run cat "/sys/class/net/$3/ifindex" "/sys/class/net/$4/ifindex" | sort -n | xargs)
	wait "$waiter" || fail "no event came: $(xargs <"$TMP_DIR/events.out")"
	ADDED=$(sed -n 's/^added //p' "$TMP_DIR/events.out" | sort -n | xargs)
	[ "$ADDED" = "$new" ] || fail "events for '$ADDED', the new pair is '$new'"
}

# --- snmpd ------------------------------------------------------------------------

SNMPD_PID=
SNMPD_PORT=
SNMPD_AGENTX=$TMP_DIR/agentx.sock
SNMPD_UNIX=$TMP_DIR/snmp.sock
_snmpd_runs=0
_snmpd_fixed_port=1 # 0 while the port is ours to change

_snmpd_answers() {
	_lib_alive "$SNMPD_PID" || return "$GIVE_UP"
	snmp_get .1.3.6.1.2.1.1.3.0 >/dev/null
}

# embedded_sanitizer_env MODULE: sets EMBEDDED_ENV to what snmpd's
# environment needs to load MODULE (dcistat.so): nothing, or for a module
# built with AddressSanitizer its runtime preloaded (leaks are told apart
# after the run); skips the test when that runtime cannot be found.
# shellcheck disable=SC2034 # read by the tests
EMBEDDED_ENV=()
embedded_sanitizer_env() {
	local module=$1 asan
	EMBEDDED_ENV=()
	ldd "$module" 2>/dev/null | grep -q 'libasan' || return 0
	asan=$(ldd "$module" | sed -n 's/^[[:space:]]*libasan\.so[^ ]* => \([^ ]*\) .*/\1/p')
	if [ ! -f "$asan" ]; then
		asan=$(readlink -f "$(${CC:-cc} -print-file-name=libasan.so)")
	fi
	[ -f "$asan" ] ||
	    skip "dcistat.so is built with AddressSanitizer and its runtime, which snmpd must preload, was not found"
	# shellcheck disable=SC2034 # read by the tests
	EMBEDDED_ENV=("LD_PRELOAD=$asan" "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0")
	note "sanitized module: snmpd runs with LD_PRELOAD=$asan"
}

# snmpd_conf_write FILE: the private master's snmpd.conf (AgentX master on
# $SNMPD_AGENTX, community public from 127.0.0.1 and the Unix socket), then
# $SNMPD_EXTRA_CONF.
snmpd_conf_write() {
	local conf=$1
	cat >"$conf" <<EOF
master agentx
agentXSocket $SNMPD_AGENTX
rocommunity public 127.0.0.1
com2secunix unixsec $SNMPD_UNIX public
group unixgroup v2c unixsec
view all included .1
access unixgroup "" any noauth exact all none none
dontLogTCPWrappersConnects yes
interface_fadeout 0
EOF
	[ -z "$SNMPD_EXTRA_CONF" ] || printf '%s\n' "$SNMPD_EXTRA_CONF" >>"$conf"
}

# start_snmpd: starts a private snmpd master (in $NETNS if set) on
# udp:127.0.0.1:$SNMPD_PORT (picked once, kept across restarts) and on the
# Unix socket $SNMPD_UNIX, with AgentX socket $SNMPD_AGENTX; waits until it
# answers. Sets SNMPD_PID and, unless already set, SNMP_TARGET (UDP).
# SNMPD_EXTRA_CONF: lines appended to its snmpd.conf; SNMPD_ENV: NAME=VALUE
# words set in its environment. It logs to $SNMPD_LOG, its stderr goes to
# $SNMPD_STDERR_LOG.
SNMPD_EXTRA_CONF=
SNMPD_ENV=()
SNMPD_LOG=
SNMPD_STDERR_LOG=
start_snmpd() {
	local conf=$TMP_DIR/snmpd.conf log
	command -v snmpd >/dev/null 2>&1 || skip "snmpd not found (apt-get install snmpd)"
	snmpd_conf_write "$conf"
	_lib_set_ns_prefix
	for _ in 1 2 3 4 5; do
		if [ -z "$SNMPD_PORT" ]; then
			SNMPD_PORT=$(free_udp_port) || fail "no free UDP port"
			_snmpd_fixed_port=0
		fi
		SNMP_TARGET=${SNMP_TARGET:-udp:127.0.0.1:$SNMPD_PORT}
		_snmpd_runs=$((_snmpd_runs + 1))
		log=$TMP_DIR/snmpd.$_snmpd_runs.log
		# shellcheck disable=SC2034 # read by the tests
		SNMPD_LOG=$log SNMPD_STDERR_LOG=${log%.log}.stderr.log
		"${_lib_ns_prefix[@]}" env "${SNMPD_ENV[@]}" snmpd -f -Lf "$log" \
		    -C -c "$conf" -p "$TMP_DIR/snmpd.pid" \
		    "udp:127.0.0.1:$SNMPD_PORT" "unix:$SNMPD_UNIX" \
		    </dev/null >"$SNMPD_STDERR_LOG" 2>&1 &
		SNMPD_PID=$!
		_lib_pids+=("$SNMPD_PID")
		if wait_until 10 _snmpd_answers; then
			return 0
		fi
		if _lib_alive "$SNMPD_PID"; then
			fail "snmpd (pid $SNMPD_PID) does not answer on port $SNMPD_PORT within 10 s"
		fi
		wait "$SNMPD_PID" 2>/dev/null
		# The port may have been taken meanwhile: try another one,
		# unless the test relies on this one (a restart).
		if [ "$_snmpd_fixed_port" = 1 ] || ! grep -q 'Error opening specified endpoint' "$log"; then
			fail "snmpd exited at start: $(tail -n 3 "$log" | tr '\n' ' ')"
		fi
		[ "$SNMP_TARGET" != "udp:127.0.0.1:$SNMPD_PORT" ] || SNMP_TARGET=
		SNMPD_PORT=
	done
	fail "snmpd could not bind a UDP port in 5 attempts"
}

# stop_snmpd: SIGTERM, then waits (bounded) for it to exit; its log must
# hold no Net-SNMP callback complaint.
stop_snmpd() {
	[ -n "$SNMPD_PID" ] || return 0
	kill -TERM "$SNMPD_PID" 2>/dev/null
	wait_until 10 _lib_gone "$SNMPD_PID" ||
	    fail "snmpd (pid $SNMPD_PID) did not stop within 10 s of SIGTERM"
	wait "$SNMPD_PID" 2>/dev/null
	check_netsnmp_callbacks_log "$SNMPD_LOG" snmpd
	SNMPD_PID=
	_snmpd_fixed_port=1 # a restart reuses the port and the sockets
}

# --- dcistatd ---------------------------------------------------------------------

DCISTATD_PID=
DCISTATD_LOG=
_dcistatd_runs=0

# write_config FILE [PING-INTERVAL [REFRESH [AGENTX-SOCKET]]]: a
# configuration that loads netif from the build tree.
write_config() {
	cat >"$1" <<EOF
agent:
  agentx-socket: ${4:-$SNMPD_AGENTX}
  ping-interval: ${2:-1}
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
    refresh: ${3:-0.2}
EOF
}

# write_dci_config FILE SOCKET GROUP: write_config's configuration with
# the DCI Server on at SOCKET (mode 0666) and class 1.1 readable by the
# members of GROUP alone.
write_dci_config() {
	cat >"$1" <<EOF
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
  dci-socket: $2
  dci-socket-mode: "0666"
  dci-access:
    "1.1": {groups: [$3]}
providers:
  - module: netif
    refresh: 0.2
EOF
}

# DCISTATD_WRAPPER: words start_dcistatd puts before dcistatd's own, a
# command that sets something up and then execs the rest in place (so
# $DCISTATD_PID stays dcistatd's), e.g. unshare into a mount namespace.
DCISTATD_WRAPPER=()

# start_dcistatd CONFIG [ARG...]: starts dcistatd -f (in $NETNS if set,
# through $DCISTATD_WRAPPER if set), logging to stderr into $DCISTATD_LOG.
# Does not wait. DCISTAT_IN_PLACE (auto, on or off) sets --in-place unless
# the test's own arguments do. With DCISTAT_DAEMON_MODE=1 (`make
# check-daemon-mode`) dcistatd daemonises instead, as quickstart, sysvinit
# or a hand start run it: no -f, its log in $DCISTATD_LOG (a file its user
# may reopen at a reload), a pid file; $DCISTATD_PID is then the daemon's,
# read from the pid file, or the starter's if it failed before writing it.
_dcistatd_daemon=
start_dcistatd() {
	local config=$1 in_place=() pid_file starter
	shift
	[ -z "${DCISTAT_IN_PLACE:-}" ] || in_place=(--in-place "$DCISTAT_IN_PLACE")
	_lib_set_ns_prefix
	_dcistatd_runs=$((_dcistatd_runs + 1))
	DCISTATD_LOG=$TMP_DIR/dcistatd.$_dcistatd_runs.log
	if [ "${DCISTAT_DAEMON_MODE:-}" != 1 ]; then
		_dcistatd_daemon=
		"${_lib_ns_prefix[@]}" "${DCISTATD_WRAPPER[@]}" \
		    "$DCISTATD" -f -c "$config" -L stderr "${in_place[@]}" "$@" \
		    </dev/null >"$DCISTATD_LOG" 2>&1 &
		DCISTATD_PID=$!
		_lib_pids+=("$DCISTATD_PID")
		return 0
	fi
	_dcistatd_daemon=1
	pid_file=$TMP_DIR/dcistatd.$_dcistatd_runs.pid
	: >"$DCISTATD_LOG"
	chmod 0666 "$DCISTATD_LOG"
	# The starter returns once the daemon is ready; what fails before
	# the log opens is on its standard error, kept in the same file
	# (both append).
	# shellcheck disable=SC2094
	"${_lib_ns_prefix[@]}" "${DCISTATD_WRAPPER[@]}" \
	    "$DCISTATD" -c "$config" -L "$DCISTATD_LOG" -p "$pid_file" \
	    "${in_place[@]}" "$@" </dev/null >>"$DCISTATD_LOG" 2>&1 &
	starter=$!
	_lib_pids+=("$starter")
	wait_until 20 _lib_pid_file_written "$pid_file" "$starter" || true
	if [ -s "$pid_file" ]; then
		DCISTATD_PID=$(cat "$pid_file")
		_lib_pids+=("$DCISTATD_PID")
	else
		DCISTATD_PID=$starter
	fi
	note "dcistatd daemonised (pid $DCISTATD_PID, starter $starter)"
}

# True once dcistatd's pid file holds a pid, or its starter ended without.
_lib_pid_file_written() { [ -s "$1" ] || _lib_gone "$2"; }

# write_agent_config FILE [PING-INTERVAL]: the agent section only; the test
# appends its providers (see provider_so).
write_agent_config() {
	cat >"$1" <<EOF
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: ${2:-1}
providers:
EOF
}

# The module of the first provider in the configuration, which dcistatd
# serves as supplier 1.
DCISTATD_FIRST_MODULE=netif

# True when dcistatd serves its first supplier; $GIVE_UP if it died.
dcistatd_serves() {
	_lib_alive "$DCISTATD_PID" || return "$GIVE_UP"
	[ "$(snmp_get "$DCI_SUPPLIER_MODULE_1" 2>/dev/null)" = "$DCISTATD_FIRST_MODULE" ]
}

# wait_dcistatd_ready [SECONDS]: until the supplier table answers.
wait_dcistatd_ready() {
	local seconds=${1:-10}
	wait_until "$seconds" dcistatd_serves && return 0
	_lib_alive "$DCISTATD_PID" || fail "dcistatd exited at start (see its log below)"
	fail "dcistatd does not serve dciSupplierTable within $seconds s"
}

# check_sanitizer_log FILE WHAT: fails when FILE holds a sanitizer report.
check_sanitizer_log() {
	if grep -E -q "$SANITIZER_RE" "$1" 2>/dev/null; then
		printf '# sanitizer report in %s:\n' "$2"
		grep -E -A 20 "$SANITIZER_RE" "$1" | head -n 60 | sed 's/^/#   /'
		fail "$2: sanitizer report (see above)"
	fi
}

# check_embedded_sanitizer_log FILE: fails when FILE, the output of an
# snmpd that loaded dcistat.so, holds an AddressSanitizer or UBSan error
# (leaks are told apart by the caller: snmpd has its own).
check_embedded_sanitizer_log() {
	if grep -E -q 'ERROR: AddressSanitizer|runtime error:' "$1"; then
		grep -E -A 20 'ERROR: AddressSanitizer|runtime error:' "$1" |
		    head -n 60 | sed 's/^/#   /'
		fail "snmpd with dcistat.so: sanitizer report (see above)"
	fi
}

# check_netsnmp_callbacks_log FILE WHAT: fails when FILE holds Net-SNMP's
# complaint about a callback list changed while it was walked (a 100 ms
# wait, then a failed netsnmp_assert).
NETSNMP_CALLBACKS_RE='netsnmp_assert|lock in _callback_lock'
check_netsnmp_callbacks_log() {
	if grep -E -q "$NETSNMP_CALLBACKS_RE" "$1" 2>/dev/null; then
		grep -E "$NETSNMP_CALLBACKS_RE" "$1" | head -n 10 | sed 's/^/#   /'
		fail "$2: Net-SNMP changed a callback list while walking it (above)"
	fi
}

# stop_dcistatd: SIGTERM; dcistatd must exit 0 within 10 s and its log
# must hold no sanitizer report and no Net-SNMP callback complaint.
stop_dcistatd() {
	local status
	[ -n "$DCISTATD_PID" ] || return 0
	_lib_alive "$DCISTATD_PID" || {
		wait "$DCISTATD_PID"
		status=$?
		DCISTATD_PID=
		check_sanitizer_log "$DCISTATD_LOG" dcistatd
		fail "dcistatd died before it was stopped (exit status $status)"
	}
	local asked
	asked=$(now_ms)
	kill -TERM "$DCISTATD_PID"
	wait_until 10 _lib_gone "$DCISTATD_PID" ||
	    fail "dcistatd (pid $DCISTATD_PID) did not stop within 10 s of SIGTERM"
	if [ -n "$_dcistatd_daemon" ]; then
		# Not our child: its last line says it stopped, as exit 0 does.
		note "daemonised dcistatd stopped $(($(now_ms) - asked)) ms after SIGTERM"
		status=1
		tail -n 1 "$DCISTATD_LOG" | grep -q 'stopped$' && status=0
	else
		wait "$DCISTATD_PID"
		status=$?
	fi
	DCISTATD_PID=
	check_sanitizer_log "$DCISTATD_LOG" dcistatd
	check_netsnmp_callbacks_log "$DCISTATD_LOG" dcistatd
	[ "$status" -eq 0 ] ||
	    fail "dcistatd exited with status $status on SIGTERM, expected 0"
	ok "dcistatd stopped cleanly on SIGTERM (exit 0, no sanitizer report, no netsnmp_assert)"
}

# run_dcistatd OUT ERR ARG...: runs dcistatd to completion (no -f), stdout
# to OUT, stderr to ERR; sets RUN_STATUS. Fails on a sanitizer report.
# shellcheck disable=SC2034 # read by the tests
RUN_STATUS=
run_dcistatd() {
	local out=$1 err=$2
	shift 2
	"$DCISTATD" "$@" </dev/null >"$out" 2>"$err"
	# shellcheck disable=SC2034 # read by the tests
	RUN_STATUS=$?
	check_sanitizer_log "$err" "dcistatd $*"
}

# --- a small AgentX master --------------------------------------------------------

# agentx_master.py (beside this file) on a private socket, with the real
# dcistatd as its subagent: requests no snmpd sends, and no root needed.
AGENTX_MASTER_PID=
AGENTX_MASTER_OUTPUT=

# start_agentx_master RUN SCENARIO [DCISTATD-ARG...]: starts the master's
# SCENARIO on $TMP_DIR/master.RUN.sock, its output in $AGENTX_MASTER_OUTPUT;
# once it listens, dcistatd with DCISTATD-ARGs on a configuration that
# points there (ping interval 1 s) and serves netif, plus the lines of
# AGENTX_MASTER_AGENT_KEYS in its agent section and those of
# AGENTX_MASTER_PROVIDERS after netif, if set. Waits for neither.
AGENTX_MASTER_AGENT_KEYS='' AGENTX_MASTER_PROVIDERS=''
start_agentx_master() {
	local run=$1 scenario=$2 socket=$TMP_DIR/master.$1.sock
	local config=$TMP_DIR/$1.yaml
	shift 2
	{
		printf '%s\n' agent: "  agentx-socket: $socket" \
		    "  ping-interval: 1" "  plugin-dir: $NETIF_PLUGIN_DIR"
		[ -z "$AGENTX_MASTER_AGENT_KEYS" ] ||
		    printf '%s\n' "$AGENTX_MASTER_AGENT_KEYS"
		printf '%s\n' providers: "  - module: netif"
		[ -z "$AGENTX_MASTER_PROVIDERS" ] ||
		    printf '%s\n' "$AGENTX_MASTER_PROVIDERS"
	} >"$config"
	AGENTX_MASTER_OUTPUT=$TMP_DIR/master.$run.out
	python3 "$_lib_here/agentx_master.py" "$socket" "$scenario" 30 \
	    >"$AGENTX_MASTER_OUTPUT" 2>&1 &
	AGENTX_MASTER_PID=$!
	_lib_pids+=("$AGENTX_MASTER_PID")
	wait_until 10 test -S "$socket" || fail "$run: the AgentX master did not listen"
	start_dcistatd "$config" "$@"
}

# wait_agentx_master RUN [LAST]: waits for the master to end and prints its
# output, "# [RUN] " before each line. Fails, with the end of dcistatd's
# log, when the master's checks failed; fails too when LAST is given and no
# line of the output matches it (the scenario did not finish).
wait_agentx_master() {
	local run=$1 last=${2:-} status
	wait "$AGENTX_MASTER_PID"
	status=$?
	sed "s/^/# [$run] /" "$AGENTX_MASTER_OUTPUT"
	[ "$status" -eq 0 ] || {
		sed 's/^/# dcistatd: /' "$DCISTATD_LOG" | tail -n 30
		fail "$run: the master's checks failed (status $status)"
	}
	[ -z "$last" ] || grep -q -- "$last" "$AGENTX_MASTER_OUTPUT" ||
	    fail "$run: the master's scenario did not finish"
}
