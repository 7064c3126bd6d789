#!/bin/bash
# python_supplier.sh -- the dcistat Python package publishes through
# libdcistat-supplier and dcistatd serves it, under a private snmpd master.
#
# The test asserts:
#   - 4 Python threads x 1,000,000 increments of one counter instance
#     arrive exact through SNMP (dciStatCounter64) and through `dcistat -H`;
#   - doc/PYTHON.md's ten-line example, run as the file shows it, is
#     served as the file says: `dcistat -H ... show 3.4350.16` has GET 3
#     and POST 1, and snmpget of dciStatCounter64.3.3.4350.16.1.1.1 is 3.
#
# Needs root (for snmpd's sockets; exit 77 otherwise) and the build's
# extension (python/dcistat/.libs/_dcistat.so).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget
require_built
python=${PYTHON_FOR_TESTS:-/usr/bin/python3}
SO=$top_builddir/python/dcistat/.libs/_dcistat.so
[ -f "$SO" ] || fail "$SO not built (run make)"
SUPPLIERS_SO=$(provider_so suppliers)
DCISTAT=$top_builddir/src/cli/dcistat
# A sanitizer build's extension needs its runtimes loaded first into a
# python3 built without them (as tests/python/run.sh does); python3 does
# not free everything at exit, so leaks are not checked there.
python_env=()
if ldd "$SO" | grep -q libasan; then
	python_env=(LD_PRELOAD="$(ldd "$SO" | awk '/libasan|libubsan/ { print $3 }' | xargs)"
		ASAN_OPTIONS=detect_leaks=0)
fi

THREADS=4 INCREMENTS=1000000
RUN=$TMP_DIR/run/suppliers
DCI_C64=$DCI_ARC.1.5.1.4

# The package as make install lays it out, from the build.
stage=$TMP_DIR/python
mkdir -p "$stage/dcistat"
cp "$top_srcdir"/python/dcistat/__init__.py "$top_srcdir"/python/dcistat/consumer.py "$stage/dcistat/"
ln -s "$SO" "$stage/dcistat/_dcistat.so"
export PYTHONPATH=$stage
export LD_LIBRARY_PATH=$top_builddir/src/supplier/.libs:$top_builddir/src/libdci/.libs
export DCISTAT_SUPPLIER_DIRECTORY=$RUN PYTHONDONTWRITEBYTECODE=1

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF_CONFIG
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN
EOF_CONFIG
start_dcistatd "$config"
wait_until 10 test -d "$RUN" || fail "dcistatd did not create $RUN"

start_python() { # NAME SCRIPT-FILE: runs it in the background, output in NAME.out
	env "${python_env[@]}" "$python" "$2" >"$TMP_DIR/$1.out" 2>&1 &
	_lib_pids+=("$!")
}

# --- 4 threads x 1,000,000 increments ---------------------------------------------

cat >"$TMP_DIR/threads.py" <<EOF_PY
import sys, threading, time
import dcistat

supplier = dcistat.Supplier("pythreads", 1, number=4351)
hits = supplier.counter("hits")

def work():
    instance = hits.labels("all")
    for _ in range($INCREMENTS):
        instance.inc()

started = time.monotonic()
workers = [threading.Thread(target=work) for _ in range($THREADS)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print("counted", $THREADS * $INCREMENTS, "in", round(time.monotonic() - started, 2), "s",
      flush=True)
time.sleep(3600)
EOF_PY
start_python threads "$TMP_DIR/threads.py"
wait_until 60 grep -q '^counted' "$TMP_DIR/threads.out" ||
    fail "the threads did not finish: $(cat "$TMP_DIR/threads.out")"
note "$(cat "$TMP_DIR/threads.out")"
want=$((THREADS * INCREMENTS))
served_hits() { [ "$(snmp_get "$DCI_C64.3.3.4351.16.1.1.1")" = "$want" ]; }
wait_until 10 served_hits ||
    fail "dciStatCounter64 of hits/all is $(snmp_get "$DCI_C64.3.3.4351.16.1.1.1"), $THREADS threads counted $want"
ok "$THREADS threads x $INCREMENTS increments: dciStatCounter64.3.3.4351.16.1.1.1 = $want"

# --- doc/PYTHON.md's example --------------------------------------------------------

# The first python block of the file.
awk '/^```python$/ { inside = 1; next } inside && /^```$/ { exit } inside' \
    "$top_srcdir/doc/PYTHON.md" >"$TMP_DIR/example.py"
[ "$(grep -c . "$TMP_DIR/example.py")" -le 10 ] ||
    fail "the example of doc/PYTHON.md has more than ten lines"
start_python example "$TMP_DIR/example.py"
wait_until 10 grep -q '^serving' "$TMP_DIR/example.out" ||
    fail "the example did not start: $(cat "$TMP_DIR/example.out")"
served_get() { [ "$(snmp_get "$DCI_C64.3.3.4350.16.1.1.1")" = 3 ]; }
wait_until 10 served_get ||
    fail "dciStatCounter64.3.3.4350.16.1.1.1 is $(snmp_get "$DCI_C64.3.3.4350.16.1.1.1"), the example counted 3"
ok "the example's GET counter: dciStatCounter64.3.3.4350.16.1.1.1 = 3"
ns_run "$DCISTAT" -H "$SNMP_TARGET" -c public show 3.4350.16 >"$TMP_DIR/show.out" 2>&1 ||
    fail "dcistat -H show 3.4350.16: $(cat "$TMP_DIR/show.out")"
sed -n '1,/^```$/d; /^\$ dcistat show/,/^\$ snmpget/p' "$top_srcdir/doc/PYTHON.md" |
    sed '1d;$d' >"$TMP_DIR/show.want"
diff "$TMP_DIR/show.want" "$TMP_DIR/show.out" >&2 ||
    fail "dcistat show 3.4350.16 differs from what doc/PYTHON.md shows"
ok "dcistat -H show 3.4350.16 prints what doc/PYTHON.md shows"
