#!/bin/bash
# provider_options.sh -- the option readers the built-in providers share
# (src/providers/common/options.c, the suppliers provider's users and
# groups) refuse what they should, with the messages they always gave,
# under dcistatd -t. Needs no root and no snmpd: -t runs the providers'
# init against the configuration and stops.
#
# The test asserts:
#   - a number outside its range, with a sign, with a space or with
#     anything after its digits is refused with "expected a number from
#     MIN to MAX" (suppliers max-segments; openmetrics max-labels when
#     openmetrics is built);
#   - a number in range, the default (absent) and the range's ends pass;
#   - an unknown user or group name is refused with "no such user" /
#     "no such group", a numeric id or an existing name passes.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_built
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
OM_SO=$(provider_so openmetrics)

# check_options MODULE YAML-OPTIONS EXPECTED: dcistatd -t with MODULE and
# these options; EXPECTED is "ok" (accepted) or the text it must log when
# it refuses them (exit 1).
check_options() {
	local config=$TMP_DIR/options.yaml status options
	options=$(printf '%s' "$2" | sed 's/^ *//' | paste -s -d ' ')
	cat >"$config" <<CONFIG
agent:
  agentx-socket: $TMP_DIR/agentx.sock
providers:
  - module: $1
    options:
$2
CONFIG
	timeout 20 "$DCISTATD" -t -c "$config" -L stderr </dev/null \
	    >"$TMP_DIR/options.log" 2>&1
	status=$?
	check_sanitizer_log "$TMP_DIR/options.log" "dcistatd -t"
	if [ "$3" = ok ]; then
		[ "$status" -eq 0 ] || {
			sed 's/^/#   /' "$TMP_DIR/options.log"
			fail "options '$options': exit $status, expected them accepted"
		}
		ok "accepted: $options"
	else
		if [ "$status" -ne 1 ] || ! grep -F -q -- "$3" "$TMP_DIR/options.log"; then
			sed 's/^/#   /' "$TMP_DIR/options.log"
			fail "options '$options': exit $status, expected 1 with '$3'"
		fi
		ok "refused: $options: $(grep -F -- "$3" "$TMP_DIR/options.log" | sed "s|$TMP_DIR/||")"
	fi
}

RUN="      directory: $TMP_DIR/run"
RANGE="option 'max-segments': expected a number from 1 to 65536"
check_options "$SUPPLIERS_SO" "$RUN" ok
check_options "$SUPPLIERS_SO" "$RUN
      max-segments: 1" ok
check_options "$SUPPLIERS_SO" "$RUN
      max-segments: 65536" ok
for bad in 0 65537 +5 "' 5'" 5x -1 99999999999999999999999; do
	check_options "$SUPPLIERS_SO" "$RUN
      max-segments: $bad" "options.yaml:7:7: provider suppliers: $RANGE"
done
check_options "$SUPPLIERS_SO" "$RUN
      max-segments: [1, 2]" "option 'max-segments': expected a number"

check_options "$SUPPLIERS_SO" "$RUN
      users: [h26prov_no_such_user]" "option 'users': no such user"
check_options "$SUPPLIERS_SO" "$RUN
      groups: [h26prov_no_such_group]" "option 'groups': no such group"
check_options "$SUPPLIERS_SO" "$RUN
      users: [root, 4242]
      groups: [root, 4242]" ok

if [ -f "$OM_SO" ]; then
	TARGET="      targets: [http://127.0.0.1:9/metrics]"
	check_options "$OM_SO" "$TARGET
      max-labels: 0" "option 'max-labels': expected a number from 1 to 1024"
	check_options "$OM_SO" "$TARGET
      max-labels: +3" "option 'max-labels': expected a number from 1 to 1024"
else
	note "openmetrics not built (no libcurl): its options are not checked"
fi
