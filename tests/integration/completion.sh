#!/bin/bash
# completion.sh -- dcistat's shell completion, as bash runs it: the
# script installed as bash-completion/completions/dcistat
# (contrib/completion/bash/dcistat) is sourced into a bash, the command
# line is set as bash sets it for a TAB, and what _dcistat offers is
# compared with what dcistat lists of the same source (a configuration of
# netif and evcnt): the commands, the classes, the instances of show
# CLASS (ids, one word each), the datums of -d (after a comma too) and --sort, the values of
# --color, the options; after -c a file name, and nothing after -c with
# -H (the community). The zsh completion (contrib/completion/zsh/_dcistat)
# is checked for syntax with zsh -n where zsh is installed.
#
# Exit status: 0 pass, 1 fail, 77 skip.

. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

require_built
DCISTAT=$top_builddir/src/cli/dcistat
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
script=$top_srcdir/contrib/completion/bash/dcistat

config=$TMP_DIR/dcistat.yaml
printf 'providers:\n  - module: %s\n  - module: %s\n' "$(provider_so netif)" \
    "$(provider_so evcnt)" >"$config"

# offered WORD...: what _dcistat offers for the last WORD (empty: after a
# blank), one line, sorted. The line and the cursor are set as bash sets
# them on TAB; so are its words, split at ':' and '=' as well as blanks,
# which the completion must not trust.
offered() {
	bash -c 'source "$1"; shift
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		read -r -a COMP_WORDS <<<"${COMP_LINE//:/ : }"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_dcistat; printf "%s\n" "${COMPREPLY[@]}" | sort | xargs' \
	    _ "$script" "$DCISTAT" "$@"
}
# expect WHAT EXPECTED WORD...: fails unless _dcistat offers EXPECTED.
expect() {
	local what=$1 expected=$2 got
	shift 2
	got=$(offered "$@")
	[ "$got" = "$expected" ] || fail "$what: offered '$got', expected '$expected'"
	ok "$what: $got"
}

source=(--insecure-paths -c "$config")
expect "commands" "classes describe show suppliers watch" ""
expect "commands from a prefix" "show suppliers" "s"
expect "classes of the configuration" "evcnt netif" "${source[@]}" show ""
ids=$("$DCISTAT" "${source[@]}" --json show netif -d mtu |
    python3 -c 'import json,sys; print(" ".join(sorted(r["id"] for r in json.load(sys.stdin)["tables"][0]["rows"])))')
expect "instance ids of show netif" "$ids" "${source[@]}" show netif ""
# evcnt's labels hold blanks: ids are offered, one word each.
evcnt_ids=$("$DCISTAT" "${source[@]}" --json show evcnt -d count |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tables"][0]["rows"]))')
[ "$(offered "${source[@]}" show evcnt "" | wc -w)" = "$evcnt_ids" ] ||
    fail "show evcnt: $(offered "${source[@]}" show evcnt "" | wc -w) words offered for $evcnt_ids instances"
ok "show evcnt: one word per instance ($evcnt_ids)"
# -H host:port as quickstart prints it: bash splits the port off.
expect "commands after -H host:port" "show suppliers" -H 127.0.0.1:1161 -c public s
expect "datums of -d" "rx_bytes" "${source[@]}" watch netif -d rx_b
expect "datums after a comma" "mtu,tx_compressed" "${source[@]}" show netif -d mtu,tx_co
expect "datums after a comma" "mtu,tx_bytes" "${source[@]}" show netif -d mtu,tx_by
expect "datums of --sort" "rx_bytes" "${source[@]}" show netif --sort rx_by
expect "--color" "always auto never" "${source[@]}" show --color ""
expect "options" "--color --community --config --count" "${source[@]}" show --co
touch "$TMP_DIR/config-file.yaml"
expect "a file after -c" "$TMP_DIR/config-file.yaml" -c "$TMP_DIR/config-f"
expect "nothing after -c with -H" "" -H 127.0.0.1 -c ""

if command -v zsh >/dev/null 2>&1; then
	zsh -n "$top_srcdir/contrib/completion/zsh/_dcistat" 2>"$TMP_DIR/zsh.err" ||
	    fail "zsh -n contrib/completion/zsh/_dcistat: $(head -n 3 "$TMP_DIR/zsh.err")"
	ok "zsh -n contrib/completion/zsh/_dcistat: no syntax error"
else
	note "zsh not installed: contrib/completion/zsh/_dcistat not checked"
fi

# Installed where zsh looks: vendor-completions under the prefix /usr (the
# package), site-functions under any other (make install's /usr/local).
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
zsh_dir=$(sed -n 's/^zshcompletiondir = //p' "$top_builddir/Makefile")
defaulted=$(sed -n 's/^ZSHCOMPLETIONDIR_DEFAULTED = //p' "$top_builddir/Makefile")
if [ "$defaulted" != yes ]; then
	expected=$zsh_dir # chosen with --with-zshcompletiondir
elif [ "${prefix%/}" = /usr ]; then
	expected='${datadir}/zsh/vendor-completions'
else
	expected='${datadir}/zsh/site-functions'
fi
[ "$zsh_dir" = "$expected" ] ||
    fail "prefix $prefix: the zsh completion goes to $zsh_dir, expected $expected"
ok "prefix $prefix: the zsh completion goes to $zsh_dir, where zsh looks"
