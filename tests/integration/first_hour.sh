#!/bin/bash
# first_hour.sh -- what a new operator meets in the first commands:
#   - dcistatd and dcistat answer --help and -h (the usage on stdout, exit
#     0, nothing on stderr) and --version and -V ("NAME VERSION", exit 0),
#     as GNU programs do;
#   - dcistat -c: the configuration without -H, the community with -H (as
#     Net-SNMP's tools spell it); with -H a value that looks like a file (a
#     slash, a .yaml or .yml name, an existing file) is refused with exit 2
#     and a message naming --config and --community, before any request;
#     --community gives any community; -c with --community, -c with
#     --config, --community without -H: exit 2 with the reason; through a
#     real master, --community public reads netif and a wrong community
#     still ends with the timeout message;
#   - watch CLASS SECONDS COUNT, as sar 1 5: a "waiting for the first
#     sample" line, then each sample's table after its time; show with
#     --match, --sort and --top chooses and orders the rows;
#   - dcistatd without a master says why and what to do: a socket out of
#     its user's reach (run as nobody) is a permission to give in
#     snmpd.conf (agentXPerms), and it says "waiting", not "started"
#     (bad_input.sh checks the missing socket);
#   - a provider that cannot be loaded makes a one-shot dcistat show what
#     the others give, then exit 1, naming the file, line and provider,
#     with no promise of a retry.
#
# Exit status: 0 pass, 1 fail, 77 skip.

. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

require_cmd snmpd snmpget
require_built
DCISTAT=$top_builddir/src/cli/dcistat
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"

# run PROGRAM ARGUMENT...: STATUS, $TMP_DIR/out and $TMP_DIR/err.
run() {
	"$@" </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	check_sanitizer_log "$TMP_DIR/err" "$*"
}

for program in "$DCISTATD" "$DCISTAT"; do
	name=${program##*/}
	for option in --help -h; do
		run "$program" "$option"
		[ "$STATUS" -eq 0 ] || fail "$name $option: exit $STATUS"
		[ ! -s "$TMP_DIR/err" ] || fail "$name $option wrote on stderr: $(head -n 1 "$TMP_DIR/err")"
		grep -q "^usage: $name " "$TMP_DIR/out" || fail "$name $option: no usage on stdout"
	done
	for option in --version -V; do
		run "$program" "$option"
		[ "$STATUS" -eq 0 ] || fail "$name $option: exit $STATUS"
		grep -E -q "^$name [0-9]+\.[0-9]+" "$TMP_DIR/out" ||
		    fail "$name $option printed '$(head -n 1 "$TMP_DIR/out")'"
	done
	ok "$name: --help, -h, --version, -V exit 0 on stdout ($(head -n 1 "$TMP_DIR/out"))"
done

# expect_usage PATTERN ARGUMENT...: dcistat exits 2 with PATTERN on stderr.
expect_usage() {
	local pattern=$1
	shift
	run "$DCISTAT" "$@"
	if [ "$STATUS" -ne 2 ] || ! grep -q -e "$pattern" "$TMP_DIR/err"; then
		fail "dcistat $*: exit $STATUS, '$(head -n 1 "$TMP_DIR/err")', expected 2 and '$pattern'"
	fi
	ok "dcistat $*: exit 2, '$(head -n 1 "$TMP_DIR/err")'"
}
touch "$TMP_DIR/existing"
looks_like="looks like a configuration file: the configuration is read only without -H (--config FILE); give a community that looks like a path with --community"
expect_usage "'$TMP_DIR/c.yaml' $looks_like" -H 127.0.0.1:1 -c "$TMP_DIR/c.yaml" show
expect_usage "'good.yaml' $looks_like" -H 127.0.0.1:1 -c good.yaml show
expect_usage "'good.yml' $looks_like" -H 127.0.0.1:1 -c good.yml show
(cd "$TMP_DIR" && expect_usage "'existing' $looks_like" -H 127.0.0.1:1 -c existing show) || exit 1
expect_usage "-c and --community both give the community" -H 127.0.0.1:1 -c a --community b show
expect_usage "--community is for the remote source: give -H HOST" --community public show
expect_usage "-c and --config both give the configuration" -c a.yaml --config b.yaml show

# --- through a master -------------------------------------------------------------

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_config "$config"
start_dcistatd "$config"
wait_dcistatd_ready 10
run "$DCISTAT" -H "127.0.0.1:$SNMPD_PORT" --community public show netif
[ "$STATUS" -eq 0 ] || fail "--community public: exit $STATUS: $(head -n 2 "$TMP_DIR/err")"
grep -q '^lo ' "$TMP_DIR/out" || fail "--community public: no row for lo"
run "$DCISTAT" -H "127.0.0.1:$SNMPD_PORT" --community wrong/community -t 0.2 -r 0 show netif
[ "$STATUS" -eq 1 ] && grep -q "no answer" "$TMP_DIR/err" ||
    fail "a wrong --community: exit $STATUS, '$(head -n 1 "$TMP_DIR/err")'"
ok "--community public reads netif through the master; a wrong one (with a slash) times out with exit 1"
stop_dcistatd

# The master there, its socket out of reach of the user dcistatd runs as
# (the test's directory is root's, 0700, as a default agentXPerms leaves
# /var/agentx): said as a permission to give, not as a missing master,
# and "waiting", not "started".
if id nobody >/dev/null 2>&1 && runuser -u nobody -- test -x "$DCISTATD" 2>/dev/null &&
    runuser -u nobody -- test -r "$(provider_so netif)" 2>/dev/null; then
	public=$(mktemp -d /tmp/dcistat-first-hour.XXXXXX) || fail "mktemp"
	cleanup_public() { rm -rf -- "$public"; }
	at_exit cleanup_public
	chmod 0755 "$public"
	printf 'agent:\n  agentx-socket: %s\n  ping-interval: 1\nproviders:\n  - module: %s\n' \
	    "$SNMPD_AGENTX" "$(provider_so netif)" >"$public/dcistatd.yaml"
	chmod 0644 "$public/dcistatd.yaml"
	timeout 3 setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
	    "$DCISTATD" -f -L stderr --insecure-paths -c "$public/dcistatd.yaml" \
	    </dev/null >/dev/null 2>"$TMP_DIR/nobody.err"
	grep -q "agent: cannot reach the AgentX socket $SNMPD_AGENTX: permission denied on its directory; snmpd.conf's agentXPerms must let this user open it" "$TMP_DIR/nobody.err" ||
	    fail "dcistatd as nobody: $(head -n 2 "$TMP_DIR/nobody.err")"
	grep -q "AgentX subagent waiting for the master" "$TMP_DIR/nobody.err" &&
	    ! grep -q "subagent started" "$TMP_DIR/nobody.err" ||
	    fail "dcistatd as nobody, no session: $(grep agent: "$TMP_DIR/nobody.err" | tail -n 2)"
	ok "dcistatd as nobody, the socket out of its reach: $(grep -m 1 "cannot reach" "$TMP_DIR/nobody.err" | cut -c 1-160)..."
else
	note "user nobody cannot run the build tree: the permission message not checked"
fi

# --- as sar and ip -s: watch SECONDS COUNT, times, choosing rows -------------------

printf 'providers:\n  - module: %s\n    refresh: 0.1\n' "$(provider_so netif)" >"$TMP_DIR/netif.yaml"
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" watch netif 0.2 2 -d rx_bytes,mtu
[ "$STATUS" -eq 0 ] || fail "watch netif 0.2 2: exit $STATUS: $(head -n 2 "$TMP_DIR/err")"
[ "$(head -n 1 "$TMP_DIR/out")" = "netif: waiting 0.200 s for the first sample" ] ||
    fail "watch: the first line is '$(head -n 1 "$TMP_DIR/out")', not the waiting line"
stamped=$(grep -c -E '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]  netif \(class 1\.1\): counters per second over 0\.[0-9]{3} s$' "$TMP_DIR/out")
[ "$stamped" = 2 ] || fail "watch netif 0.2 2: $stamped tables with a time before the title, expected 2: $(head -n 5 "$TMP_DIR/out")"
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" watch netif 0.2 -i 0.2
[ "$STATUS" -eq 2 ] && grep -q "the interval is given twice" "$TMP_DIR/err" ||
    fail "watch netif 0.2 -i 0.2: exit $STATUS, '$(head -n 1 "$TMP_DIR/err")'"
ok "watch netif 0.2 2 (as sar 1 5): a waiting line, then two samples each after its time; the interval twice is refused"

# The interfaces, largest receive count first, of those matching.
mapfile -t names < <(ls /sys/class/net)
expected=$(for name in "${names[@]}"; do
	case $name in l* | e*) printf '%s %s\n' "$(cat "/sys/class/net/$name/statistics/rx_bytes")" "$name" ;; esac
done | sort -k1,1nr -s | head -n 2 | awk '{print $2}' | xargs)
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" show netif --match '[le]*' --sort rx_bytes --top 2 --json
[ "$STATUS" -eq 0 ] || fail "show --match --sort --top: exit $STATUS: $(head -n 2 "$TMP_DIR/err")"
shown=$(python3 -c 'import json,sys; print(" ".join(r["instance"] for r in json.load(open(sys.argv[1]))["tables"][0]["rows"]))' "$TMP_DIR/out")
# The counters move between the two readings; the order is checked only
# where sysfs's order leaves no doubt (a single match, or lo alone).
if [ "$(wc -w <<<"$expected")" -le 1 ] || [ "$shown" = "$expected" ]; then
	ok "show netif --match '[le]*' --sort rx_bytes --top 2: $shown"
else
	note "show --sort gave '$shown', sysfs read after it '$expected' (moving counters)"
	[ "$(wc -w <<<"$shown")" = 2 ] || fail "show --match --sort --top 2 gave '$shown'"
fi
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" show netif --sort nosuch
[ "$STATUS" -eq 1 ] && grep -q -- "--sort nosuch: no such datum" "$TMP_DIR/err" ||
    fail "--sort nosuch: exit $STATUS, '$(head -n 1 "$TMP_DIR/err")'"
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" watch netif 0.2 1 --sort nosuch
[ "$STATUS" -eq 1 ] && grep -q -- "--sort nosuch: no such datum in class netif" "$TMP_DIR/err" &&
    [ ! -s "$TMP_DIR/out" ] && [ "$(wc -l <"$TMP_DIR/err")" = 1 ] ||
    fail "watch --sort nosuch: exit $STATUS, stdout '$(head -n 1 "$TMP_DIR/out")', stderr '$(cat "$TMP_DIR/err")'"
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" watch netif --prometheus
[ "$STATUS" -eq 2 ] && grep -q "use --openmetrics" "$TMP_DIR/err" ||
    fail "watch --prometheus: exit $STATUS, '$(head -n 1 "$TMP_DIR/err")'"
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/netif.yaml" classes --top 1
[ "$STATUS" -eq 2 ] || fail "classes --top 1: exit $STATUS"
ok "--sort of an unknown datum exits 1 naming it; --top outside show and watch is a usage error"

# --- a provider that cannot be loaded ------------------------------------------------

printf 'providers:\n  - module: %s\n  - module: %s\n' "$(provider_so netif)" \
    "$TMP_DIR/missing.so" >"$TMP_DIR/missing.yaml"
run "$DCISTAT" --insecure-paths -c "$TMP_DIR/missing.yaml" show netif
[ "$STATUS" -eq 1 ] || fail "a missing provider: dcistat exit $STATUS, expected 1"
grep -q "missing.yaml:3:13: .*missing.so\": No such file or directory" "$TMP_DIR/err" ||
    fail "a missing provider: the message '$(head -n 1 "$TMP_DIR/err")' does not name the file, line and provider"
! grep -q "retrying" "$TMP_DIR/err" || fail "a one-shot dcistat promises to retry: $(head -n 1 "$TMP_DIR/err")"
grep -q '^lo ' "$TMP_DIR/out" || fail "a missing provider: netif, which loaded, is not shown"
ok "a provider that cannot be loaded: netif shown, then exit 1, '$(head -n 1 "$TMP_DIR/err")'"
