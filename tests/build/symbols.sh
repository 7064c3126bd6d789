#!/bin/bash
# symbols.sh -- the exported surface is what is written down, as OpenBSD's
# libagentx keeps its Symbols.list:
#   - src/supplier/Symbols.list names exactly the functions
#     <dcistat/supplier.h> declares (read by the compiler, gcc -aux-info,
#     not by a pattern), and the built libdcistat-supplier.so exports
#     exactly those, nothing else;
#   - src/libdci/Symbols.list names exactly the functions <dcistat/dci.h>
#     declares, and libdci.so exports exactly those;
#   - src/providers/Symbols.list names the provider ABI's entry symbol,
#     <dcistat/provider.h> declares no function a provider must link
#     against (its calls are static inline, through the host's table),
#     and each built-in provider exports exactly the list.
#
# Environment: top_srcdir, top_builddir (set by the test harness). Exit
# status: 0 pass, 1 fail, 77 skip (gcc or nm missing).

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
failures=0
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
ok() { printf 'ok: %s\n' "$*"; }

for tool in gcc nm; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not found"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/symbols.XXXXXX") || exit 1
trap 'rm -rf -- "$tmp"' EXIT

listed() { grep -v -e "^$" "$1" | sort; }
exported() { nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort; }
# declared HEADER: the functions HEADER itself declares, not static.
declared() {
	printf '#include <dcistat/%s>\n' "$1" >"$tmp/use.c"
	gcc -I "$top_srcdir/include" -I "$top_srcdir/include/dcistat" \
	    -aux-info "$tmp/aux" -fsyntax-only "$tmp/use.c" ||
	    { fail "gcc cannot read <dcistat/$1>"; return; }
	grep -F "include/dcistat/$1:" "$tmp/aux" | grep -v -E '\*/ (extern )?static ' |
	    sed -E 's|^/\* [^*]* \*/ ||' | grep -o -E '\b[a-z_][A-Za-z0-9_]* \(' |
	    sed 's/ ($//' | sort -u
}
# compare WHAT A B: the two sorted lists are equal.
compare() {
	if ! diff -u "$2" "$3" >"$tmp/diff"; then
		fail "$1:"
		sed 's/^/    /' "$tmp/diff" | head -n 20
		return 1
	fi
}

# --- libdcistat-supplier --------------------------------------------------------
listed "$top_srcdir/src/supplier/Symbols.list" >"$tmp/supplier.list"
declared supplier.h | grep -v '^dci_' >"$tmp/supplier.declared"
# Each declaration's first name is the function's: the lines are
# "TYPE NAME (PARAMETERS)"; take the name before the first " (".
compare "src/supplier/Symbols.list against <dcistat/supplier.h>'s declarations" \
    "$tmp/supplier.list" "$tmp/supplier.declared" &&
    ok "src/supplier/Symbols.list: the $(wc -l <"$tmp/supplier.list") functions <dcistat/supplier.h> declares"
library=$top_builddir/src/supplier/.libs/libdcistat-supplier.so
if [ -f "$library" ]; then
	exported "$library" >"$tmp/supplier.exported"
	compare "what libdcistat-supplier.so exports against src/supplier/Symbols.list" \
	    "$tmp/supplier.list" "$tmp/supplier.exported" &&
	    ok "libdcistat-supplier.so exports exactly src/supplier/Symbols.list"
else
	fail "$library not built"
fi

# --- libdci ---------------------------------------------------------------------
listed "$top_srcdir/src/libdci/Symbols.list" >"$tmp/libdci.list"
declared dci.h >"$tmp/libdci.declared"
compare "src/libdci/Symbols.list against <dcistat/dci.h>'s declarations" \
    "$tmp/libdci.list" "$tmp/libdci.declared" &&
    ok "src/libdci/Symbols.list: the $(wc -l <"$tmp/libdci.list") functions <dcistat/dci.h> declares"
library=$top_builddir/src/libdci/.libs/libdci.so
if [ -f "$library" ]; then
	exported "$library" >"$tmp/libdci.exported"
	compare "what libdci.so exports against src/libdci/Symbols.list" \
	    "$tmp/libdci.list" "$tmp/libdci.exported" &&
	    ok "libdci.so exports exactly src/libdci/Symbols.list"
else
	fail "$library not built"
fi

# --- the provider ABI -----------------------------------------------------------
listed "$top_srcdir/src/providers/Symbols.list" >"$tmp/provider.list"
declared provider.h >"$tmp/provider.declared"
[ ! -s "$tmp/provider.declared" ] ||
    fail "<dcistat/provider.h> declares functions a provider would link against: $(xargs <"$tmp/provider.declared")"
for provider in netif devstat evcnt suppliers example; do
	plugin=$top_builddir/src/providers/$provider/.libs/$provider.so
	[ -f "$plugin" ] || { fail "$plugin not built"; continue; }
	exported "$plugin" >"$tmp/$provider.exported"
	compare "what $provider.so exports against src/providers/Symbols.list" \
	    "$tmp/provider.list" "$tmp/$provider.exported"
done
[ "$failures" -eq 0 ] && ok "every built-in provider exports exactly src/providers/Symbols.list ($(xargs <"$tmp/provider.list")); <dcistat/provider.h> declares no linked function"
[ "$failures" -eq 0 ] || exit 1
