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
(cd "$TMP_DIR" && expect_usage "'existing' $looks_like" -H 127.0.0.1:1 -c existing show)
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
