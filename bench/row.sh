# row.sh -- the row a bench fills in bench/README.md's table (sourced by
# every bench script; needs nothing but bash and git).
#
# bench_row BENCH TARGET GOAL PINNED UNPINNED PEER VERDICT prints
#   row: | BENCH | TARGET | GOAL | PINNED | UNPINNED | PEER | VERDICT | COMMIT, DATE |
# with the commit of the tree measured ("+" when it has uncommitted
# changes) and today's date (UTC), ready to replace the row of the table.
# bench_mode_row CPUS BENCH TARGET GOAL FIGURE PEER VERDICT puts FIGURE in
# the column of the mode the bench ran in (CPUS, the CPUs it was pinned to:
# pinned; empty: unpinned) and a dash in the other.
# shellcheck shell=bash

bench_row_commit() {
	local tree commit
	tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	commit=$(git -C "$tree" rev-parse --short HEAD 2>/dev/null) || {
		printf 'no git'
		return
	}
	git -C "$tree" diff --quiet HEAD 2>/dev/null || commit=$commit+
	printf '%s' "$commit"
}

bench_row() {
	printf 'row: | %s | %s | %s | %s | %s | %s | %s | %s, %s |\n' \
	    "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$(bench_row_commit)" "$(date -u +%F)"
}

bench_mode_row() {
	local cpus=$1
	shift
	if [ -n "$cpus" ]; then
		bench_row "$1" "$2" "$3" "$4" "—" "$5" "$6"
	else
		bench_row "$1" "$2" "$3" "—" "$4" "$5" "$6"
	fi
}
