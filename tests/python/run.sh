#!/bin/bash
# run.sh -- runs the dcistat Python package's pytest suite (tests/python)
# against the extension as built: the package's Python files from the
# source tree and _dcistat.so from the build tree, staged together in a
# temporary directory on PYTHONPATH, libdcistat-supplier from the build
# tree. Segments go to pytest's temporary directories; no daemon is needed
# (values are read back with the build's `dcistat` in its own process, see
# conftest.py).
#
# A sanitizer build's extension needs the sanitizer runtimes loaded first
# into a python3 that was not built with them: run.sh preloads libasan (and
# libubsan) and turns leak detection off (python3 itself does not free
# everything at exit).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build}
python=${PYTHON:-/usr/bin/python3}
so=$top_builddir/python/dcistat/.libs/_dcistat.so
[ -f "$so" ] || { echo "FAIL: $so not built (run make)"; exit 1; }
"$python" -c 'import pytest' 2>/dev/null ||
    { echo "SKIP: $python has no pytest (Debian package python3-pytest)"; exit 77; }

stage=$(mktemp -d "${TMPDIR:-/tmp}/dcistat-python.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/dcistat"
for file in __init__.py __init__.pyi py.typed consumer.py; do
	ln -s "$top_srcdir/python/dcistat/$file" "$stage/dcistat/$file"
done
ln -s "$so" "$stage/dcistat/_dcistat.so"

export PYTHONPATH=$stage${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH=$top_builddir/src/supplier/.libs:$top_builddir/src/libdci/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export DCISTAT_CLI=$top_builddir/src/cli/dcistat
export DCISTAT_SUPPLIERS_SO=$top_builddir/src/providers/suppliers/.libs/suppliers.so
export PYTHONDONTWRITEBYTECODE=1
# ldd's whole output is read first: under pipefail, `ldd | grep -q` fails
# when grep stops reading before ldd has written its last line (SIGPIPE),
# and the extension then loads without its runtimes.
libraries=$(ldd "$so")
if grep -q libasan <<<"$libraries"; then
	asan=$(awk '/libasan/ { print $3 }' <<<"$libraries")
	ubsan=$(awk '/libubsan/ { print $3 }' <<<"$libraries")
	export LD_PRELOAD="$asan${ubsan:+ $ubsan}"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	echo "# sanitizer build: preloading $LD_PRELOAD, leak detection off"
fi
cd "$stage"
exec "$python" -m pytest -q -p no:cacheprovider -o addopts= \
    --rootdir="$here" "$here" "$@"
