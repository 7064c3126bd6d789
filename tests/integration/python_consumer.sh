#!/bin/bash
# python_consumer.sh -- the dcistat Python package's consumer
# (dcistat.Consumer, through libdci) against the real dcistatd and its DCI
# Server (agent: dci-socket), under a private snmpd master.
#
# In a private network namespace with a quiet veth pair (no addresses,
# IPv6 off: its counters stand still), dcistatd runs the netif provider
# with the DCI Server on. tests/python/test_consumer.py (pytest) then
# asserts, with what this script exports (DCISTAT_TEST_*):
#   - classes() lists class 1.1 with the netif provider's label;
#   - the example provider's datums read as the Python values their DCI
#     types and units say (bool, str, ints of every width and sign,
#     IPv4Address, bytes, datetime, timedelta);
#   - read() of the quiet interface: every 64-bit counter equals
#     dciStatCounter64 and the name equals dciStatText (snmpget);
#   - an instance wildcard reads one rx_bytes per interface of the
#     namespace, and instances() lists the same; lo's speed (no valid
#     value) reads as None;
#   - wait_event() gives INSTANCE_ADDED for both ends of a veth pair
#     created afterwards, then INSTANCE_REMOVED when it is deleted, and
#     None when nothing happens within the timeout;
#   - bad arguments raise (TypeError, ValueError, DciError) against the
#     live server, with a short hypothesis fuzz of read()'s arguments;
#     events of a class that does not exist are kept (none come);
#   - doc/PYTHON.md's consumer example, run as the file shows it, lists
#     class 1.1, prints the quiet interface and a veth pair's
#     INSTANCE_ADDED.
#
# Needs root, `ip netns` and pytest (exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd ip snmpd snmpget
require_built
python=${PYTHON_FOR_TESTS:-/usr/bin/python3}
SO=$top_builddir/python/dcistat/.libs/_dcistat.so
[ -f "$SO" ] || fail "$SO not built (run make)"
"$python" -c 'import pytest' 2>/dev/null ||
    skip "$python has no pytest (Debian package python3-pytest)"
make_netns

NETIF=2.1.1                       # class 1.1, length-prefixed
make_shared_dir dcih30c
export DCISTAT_TEST_DCI_SOCKET=$SHARED_DIR/dci.sock

make_quiet_pair dh30ca dh30cb
export DCISTAT_TEST_QUIET=$QUIET DCISTAT_TEST_NETNS=$NETNS

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
config=$TMP_DIR/dcistatd.yaml
cat >"$config" <<EOF_CONFIG
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
  dci-socket: $DCISTAT_TEST_DCI_SOCKET
providers:
  - module: netif
    refresh: 0.2
  - module: $(provider_so example)
    refresh: 0.2
    options:
      instances: 2
      churn_seconds: 0
EOF_CONFIG
start_dcistatd "$config"
wait_dcistatd_ready 10

# snmpget as lib.sh's snmp_get runs it, for the pytest side: one value a
# line (-Oqv), strings quoted.
export DCISTAT_TEST_SNMPGET=$TMP_DIR/snmpget
{
	printf '#!/bin/bash\nexec ip netns exec %q snmpget' "$NETNS"
	printf ' %q' "${SNMP_OPTS[@]}" -Oqv -Oe -Ot "$SNMP_TARGET"
	printf ' "$@"\n'
} >"$DCISTAT_TEST_SNMPGET"
chmod 755 "$DCISTAT_TEST_SNMPGET"
export DCISTAT_TEST_C64=$DCI_ARC.1.5.1.4.$NETIF DCISTAT_TEST_TEXT=$DCI_ARC.1.5.1.3.$NETIF

# The package as make install lays it out, from the build.
stage=$TMP_DIR/python
mkdir -p "$stage/dcistat"
cp "$top_srcdir"/python/dcistat/__init__.py "$top_srcdir"/python/dcistat/consumer.py "$stage/dcistat/"
ln -s "$SO" "$stage/dcistat/_dcistat.so"
python_env=(PYTHONPATH="$stage" PYTHONDONTWRITEBYTECODE=1
	LD_LIBRARY_PATH="$top_builddir/src/supplier/.libs:$top_builddir/src/libdci/.libs")
# A sanitizer build's extension needs its runtimes loaded first (as
# tests/python/run.sh does).
if ldd "$SO" | grep -q libasan; then
	python_env+=(LD_PRELOAD="$(ldd "$SO" | awk '/libasan|libubsan/ { print $3 }' | xargs)"
		ASAN_OPTIONS=detect_leaks=0)
fi
(cd "$stage" && env "${python_env[@]}" "$python" -m pytest -q -p no:cacheprovider \
    -o addopts= --rootdir="$top_srcdir/tests/python" \
    "$top_srcdir/tests/python/test_consumer.py") ||
    fail "tests/python/test_consumer.py failed"
ok "tests/python/test_consumer.py passed against dcistatd's DCI Server"

# A figure, not a verdict: Consumer.read of every datum of every interface
# (one dciGetData and the decoding into Python values).
timing=$(cd "$stage" && env "${python_env[@]}" DCISTAT_DCI_SOCKET="$DCISTAT_TEST_DCI_SOCKET" \
    "$python" -c '
import time, dcistat
with dcistat.Consumer() as consumer:
    consumer.read("1.1")
    start = time.perf_counter()
    for _ in range(200):
        rows = consumer.read("1.1")
    print(f"{len(rows)} instances, {(time.perf_counter() - start) / 200 * 1e6:.0f} us per read")
') || fail "timed reads failed: $timing"
note "Consumer.read(\"1.1\") of every datum: $timing"

stop_dcistatd
