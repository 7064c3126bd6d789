#!/bin/bash
# strict_paths.sh -- dcistatd reads its configuration and loads providers
# only from files root alone can change (base/secure_path.h), at -t, at
# start and at reload; --insecure-paths lets a development tree off.
#
# In a directory under /run made for the test (root's, mode 0700): the
# configuration and a copy of netif.so pass -t. Each of these is then
# refused with exit 1 and a message naming the path at fault and the rule:
#   - the configuration writable by its group (mode 0660);
#   - a configuration under /tmp (mode 1777: writable by others);
#   - a link in the safe directory to a configuration under /tmp (a link
#     is judged by where it leads);
#   - the provider writable by others;
#   - the provider's directory writable by its group (mode 0775);
#   - the provider's directory owned by another user (uid 12345);
#   - a provider that is a link to a copy under /tmp;
# --insecure-paths accepts the one under /tmp. dcistat's local source
# applies the same rule (and the same --insecure-paths). A running dcistatd whose
# configuration becomes group-writable refuses the reload (logged) and
# keeps running. snmpd's module refuses a configuration under /tmp the same
# way (logged through snmpd, nothing served) and serves the safe one.
#
# Needs root (to own and chown; exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_built
# The test suite lets every other test off; not this one.
unset DCISTAT_INSECURE_PATHS

SAFE=$(mktemp -d /run/dcistat-strict.XXXXXX) || fail "cannot make a directory under /run"
remove_safe() { rm -rf "$SAFE"; }
at_exit remove_safe
mkdir -m 0755 "$SAFE/providers"
install -m 0644 "$NETIF_PLUGIN_DIR/netif.so" "$SAFE/providers/netif.so"
config_write() { # FILE
	printf 'providers:\n  - module: %s\n' "$SAFE/providers/netif.so" >"$1"
	chmod 0644 "$1"
}
CONFIG=$SAFE/dcistatd.yaml
config_write "$CONFIG"

# check CONFIG [OPTION...]: dcistatd -t; sets STATUS and OUTPUT.
check() {
	local config=$1
	shift
	OUTPUT=$("$DCISTATD" -t -c "$config" "$@" 2>&1 </dev/null)
	STATUS=$?
}
check "$CONFIG"
[ "$STATUS" = 0 ] || fail "a safe configuration and provider refused: $OUTPUT"
ok "-t: the configuration and the provider in $SAFE (root's, 0700) pass"

# refused WHAT PATTERN CONFIG: -t exits 1 with a message matching PATTERN.
refused() {
	check "$3"
	[ "$STATUS" = 1 ] || fail "$1: exit $STATUS, expected 1 ($OUTPUT)"
	grep -E -q -- "$2" <<<"$OUTPUT" || fail "$1: the message does not say '$2': $OUTPUT"
	ok "$1: refused: $(grep -E -o -- "$2.*" <<<"$OUTPUT" | head -n 1)"
}

chmod 0660 "$CONFIG"
refused "a group-writable configuration" "$CONFIG is writable by its group \\(mode 0660\\): refused; take the write permission away \\(chmod go-w\\) or move the file where only root can change it; for a development tree, --insecure-paths or DCISTAT_INSECURE_PATHS=1" "$CONFIG"
chmod 0644 "$CONFIG"

config_write "$TMP_DIR/dcistatd.yaml"
refused "a configuration under /tmp" "/tmp is writable by others \\(mode 1777\\): refused; move the file to a directory only root can change \\(e.g. /etc/dcistat\\); for a development tree, --insecure-paths or DCISTAT_INSECURE_PATHS=1" "$TMP_DIR/dcistatd.yaml"
ln -s "$TMP_DIR/dcistatd.yaml" "$SAFE/link.yaml"
refused "a link to a configuration under /tmp" "link.yaml: /tmp is writable by others" "$SAFE/link.yaml"
check "$TMP_DIR/dcistatd.yaml" --insecure-paths
[ "$STATUS" = 0 ] || fail "--insecure-paths: a configuration under /tmp refused: $OUTPUT"
ok "--insecure-paths: the configuration under /tmp accepted"

chmod 0646 "$SAFE/providers/netif.so"
refused "a provider writable by others" "netif.so is writable by others \\(mode 0646\\)" "$CONFIG"
chmod 0644 "$SAFE/providers/netif.so"
chmod 0775 "$SAFE/providers"
refused "a group-writable provider directory" "$SAFE/providers is writable by its group \\(mode 0775\\)" "$CONFIG"
chmod 0755 "$SAFE/providers"
chown 12345 "$SAFE/providers"
refused "a provider directory owned by another user" "$SAFE/providers is owned by uid 12345, not root: refused; move the file to a directory only root can change" "$CONFIG"
chown 0 "$SAFE/providers"
chown 12345 "$SAFE/providers/netif.so"
refused "a provider owned by another user" "netif.so is owned by uid 12345, not root: refused; give it to root \\(chown root '$SAFE/providers/netif.so'\\)" "$CONFIG"
chown 0 "$SAFE/providers/netif.so"
cp "$SAFE/providers/netif.so" "$TMP_DIR/netif.so"
ln -s "$TMP_DIR/netif.so" "$SAFE/providers/linked.so"
printf 'providers:\n  - module: %s\n' "$SAFE/providers/linked.so" >"$SAFE/linked.yaml"
chmod 0644 "$SAFE/linked.yaml"
refused "a provider linked to a copy under /tmp" "linked.so: /tmp is writable by others" "$SAFE/linked.yaml"

# --- dcistat's local source ----------------------------------------------------

DCISTAT=$top_builddir/src/cli/dcistat
# dcistat_local CONFIG [OPTION...]: dcistat classes; sets STATUS and OUTPUT.
dcistat_local() {
	local config=$1
	shift
	OUTPUT=$("$DCISTAT" -c "$config" "$@" classes 2>&1 </dev/null)
	STATUS=$?
}
dcistat_local "$CONFIG"
{ [ "$STATUS" = 0 ] && grep -q '^netif ' <<<"$OUTPUT"; } ||
    fail "dcistat: the safe configuration refused: $OUTPUT"
dcistat_local "$TMP_DIR/dcistatd.yaml"
{ [ "$STATUS" = 1 ] && grep -q -- "/tmp is writable by others (mode 1777)" <<<"$OUTPUT"; } ||
    fail "dcistat: a configuration under /tmp: exit $STATUS, $OUTPUT"
# A provider refused is a provider failed, as any other (shown, not served).
dcistat_local "$SAFE/linked.yaml"
{ grep -q -- "linked.so: /tmp is writable by others" <<<"$OUTPUT" &&
    ! grep -q '^netif ' <<<"$OUTPUT"; } ||
    fail "dcistat: a provider linked to a copy under /tmp: exit $STATUS, $OUTPUT"
dcistat_local "$TMP_DIR/dcistatd.yaml" --insecure-paths
[ "$STATUS" = 0 ] || fail "dcistat --insecure-paths: refused: $OUTPUT"
ok "dcistat's local source: the safe configuration served; one under /tmp refused (exit 1), a provider linked there not loaded, each with the path and the rule named; --insecure-paths lets them off"

# --- reload -----------------------------------------------------------------

start_snmpd
cat >"$CONFIG" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
providers:
  - module: $SAFE/providers/netif.so
YAML
# start_dcistatd as the tests have it, but strict.
DCISTATD_LOG=$TMP_DIR/strict.log
"$DCISTATD" -f -c "$CONFIG" -L stderr </dev/null >"$DCISTATD_LOG" 2>&1 &
DCISTATD_PID=$!
_lib_pids+=("$DCISTATD_PID")
SNMP_TARGET=unix:$SNMPD_UNIX
wait_dcistatd_ready 20
chmod 0664 "$CONFIG"
kill -HUP "$DCISTATD_PID"
reload_refused() { grep -q "reload refused.*writable by its group" "$DCISTATD_LOG"; }
wait_until 10 reload_refused || fail "the reload of a group-writable configuration was not refused: $(tail -n 3 "$DCISTATD_LOG")"
wait_dcistatd_ready 5
ok "reload of a configuration made group-writable: refused (logged), dcistatd keeps serving"
stop_dcistatd
stop_snmpd

# --- the snmpd module -------------------------------------------------------

chmod 0644 "$CONFIG"

MODULE=$top_builddir/src/agent/.libs/dcistat.so
embedded_sanitizer_env "$MODULE"
SNMPD_ENV=("${EMBEDDED_ENV[@]}")
SNMPD_EXTRA_CONF="dlmod dcistat $MODULE
dcistatConfig $TMP_DIR/dcistatd.yaml"
start_snmpd
module_refused() { grep -q "dcistat: .*/tmp is writable by others.*not serving DCI-STATS-MIB" "$SNMPD_LOG"; }
wait_until 10 module_refused || fail "snmpd's module did not refuse a configuration under /tmp: $(grep dcistat: "$SNMPD_LOG" | tail -n 3)"
snmp_get "$DCI_SUPPLIER_MODULE_1" >/dev/null 2>&1 && fail "snmpd's module serves a refused configuration"
stop_snmpd
SNMPD_EXTRA_CONF="dlmod dcistat $MODULE
dcistatConfig $CONFIG"
start_snmpd
module_serves() { [ "$(snmp_get "$DCI_SUPPLIER_MODULE_1" 2>/dev/null)" = netif ]; }
wait_until 10 module_serves || fail "snmpd's module does not serve the safe configuration: $(grep dcistat: "$SNMPD_LOG" | tail -n 3)"
ok "snmpd's module: a configuration under /tmp refused (logged, nothing served), the safe one served"
stop_snmpd
