#!/bin/bash
# man_pages.sh -- every manual page the build installs (dist_man_MANS of
# Makefile.am) renders with no warning from man and groff at the width a
# terminal and a pager usually have (80 columns): no "can't break line",
# no unknown macro, no missing argument. What `man --warnings -l PAGE`
# prints on stderr is the whole verdict.
#
# Environment: top_srcdir (set by the test harness). Exit status: 0 pass,
# 1 fail, 77 skip (man, from man-db, is missing).

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
failures=0
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
ok() { printf 'ok: %s\n' "$*"; }

command -v man >/dev/null 2>&1 || { echo "SKIP: man not found (Debian: apt-get install man-db)"; exit 77; }

pages=$(sed -n -E '/^dist_man_MANS =/,/[^\\]$/p' "$top_srcdir/Makefile.am" |
    tr -s ' \t\\' '\n' | grep -E '^doc/')
[ -n "$pages" ] || { echo "FAIL: no dist_man_MANS in $top_srcdir/Makefile.am"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man_pages.XXXXXX") || exit 1
trap 'rm -rf -- "$tmp"' EXIT
for page in $pages; do
	# MANWIDTH fixes the width; LC_ALL the character set groff renders.
	LC_ALL=C.UTF-8 MANWIDTH=80 MAN_KEEP_FORMATTING= man --warnings -l \
	    "$top_srcdir/$page" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -ne 0 ] || [ -s "$tmp/err" ]; then
		fail "$page: man --warnings (status $status):"
		head -n 10 "$tmp/err" | sed 's/^/    /'
	elif [ ! -s "$tmp/out" ]; then
		fail "$page rendered nothing"
	else
		ok "$page renders with no warning ($(wc -l <"$tmp/out") lines)"
	fi
done
[ "$failures" -eq 0 ] || exit 1
