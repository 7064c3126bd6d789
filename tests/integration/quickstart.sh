#!/bin/bash
# quickstart.sh -- a new operator's first hour, exactly as the README says:
#   - ./quickstart (with this build as its build directory and a private
#     TMPDIR, so that it touches nothing of the user's) starts a master and
#     dcistatd and shows netif through them;
#   - every command it prints on a line starting with "$ " runs as printed,
#     from the directory quickstart was started in, exits 0 and prints
#     something (the remote show and watch, the show through the DCI
#     Server and with --standalone, snmpwalk);
#   - every block of README.md fenced as ```sh (but those after a line
#     "<!-- not run: REASON -->") runs as one bash script (set -e) from a
#     copy of the source tree whose _build is this build, with quickstart's
#     master and dcistatd running, exits 0, prints something, and its
#     dcistat -c reads that dcistatd (through its DCI Server); the
#     README is at most 250 lines, and every relative link of README.md
#     and doc/*.md names a file (and a heading, for #anchor) that exists;
#   - ./quickstart --help prints its opening comment to its last line;
#   - ./quickstart stop stops both, and the pid files' processes are gone;
#   - ./quickstart left this build's configuration alone (it reuses any
#     configured build: config.status is unchanged);
#   - scripts/configure-build, which ./quickstart and ./runtests both
#     configure through, configures a fresh directory once and leaves it
#     unchanged when asked again with the same flags (so ./runtests after
#     ./quickstart does not build everything again), and configures again
#     when the flags change.
#
# Exit status: 0 pass, 1 fail, 77 skip.

. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

# --- the README's size and every relative link of the documentation --------------

readme_lines=$(wc -l <"$top_srcdir/README.md")
[ "$readme_lines" -le 250 ] || fail "README.md has $readme_lines lines, more than 250"
python3 - "$top_srcdir" >"$TMP_DIR/links.out" 2>&1 <<'PYTHON' ||
import glob, os, re, sys

top = sys.argv[1]
def slug(heading):  # GitHub's anchor of a Markdown heading
    heading = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return heading.replace(" ", "-")
def anchors(path):
    with open(path, encoding="utf-8") as f:
        return {slug(line.lstrip("#")) for line in f if re.match(r"#+ ", line)}
bad, checked = [], 0
pages = [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "doc", "*.md")))
for page in pages:
    with open(page, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        checked += 1
        path, _, anchor = target.partition("#")
        where = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        name = os.path.relpath(page, top)
        if not os.path.exists(where):
            bad.append(f"{name}: {target}: no such file")
        elif anchor and where.endswith(".md") and anchor not in anchors(where):
            bad.append(f"{name}: {target}: no such heading")
print("\n".join(bad) if bad else f"{checked} relative links in {len(pages)} pages")
sys.exit(1 if bad else 0)
PYTHON
    fail "links that lead nowhere: $(tr '\n' ';' <"$TMP_DIR/links.out")"
ok "README.md is $readme_lines lines; $(cat "$TMP_DIR/links.out"), each to a file that exists"

# ./quickstart --help: its opening comment, whole.
help_end=$("$top_srcdir/quickstart" --help | tail -n 1)
[ "$help_end" = "running pair first. DCISTAT_BUILD_DIR overrides _build." ] ||
    fail "./quickstart --help ends with '$help_end', not its comment's last line"
ok "./quickstart --help prints its opening comment to the end ($("$top_srcdir/quickstart" --help | wc -l) lines)"

require_cmd snmpd snmpwalk
require_built
[ -x "$top_builddir/src/cli/dcistat" ] || fail "$top_builddir/src/cli/dcistat not built (run make)"

# quickstart runs make in the build directory: nothing of this make's
# command line or jobserver may reach it.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

state=$TMP_DIR/tmp/dcistat-quickstart
config_status_before=$(cksum <"$top_builddir/config.status")
mkdir -p "$TMP_DIR/tmp" "$TMP_DIR/cwd"
stop_quickstart() {
	(cd "$TMP_DIR/cwd" && TMPDIR=$TMP_DIR/tmp DCISTAT_BUILD_DIR=$top_builddir \
	    "$top_srcdir/quickstart" stop) >/dev/null 2>&1
}
at_exit stop_quickstart

(cd "$TMP_DIR/cwd" && TMPDIR=$TMP_DIR/tmp DCISTAT_BUILD_DIR=$top_builddir \
    timeout 300 "$top_srcdir/quickstart") >"$TMP_DIR/quickstart.out" 2>&1 </dev/null ||
    { sed 's/^/#   /' "$TMP_DIR/quickstart.out" | tail -n 30; fail "./quickstart failed (above)"; }
grep -q '^lo ' "$TMP_DIR/quickstart.out" || fail "./quickstart showed no row for lo"
ok "./quickstart started a master and dcistatd and showed netif"
[ "$(cksum <"$top_builddir/config.status")" = "$config_status_before" ] ||
    fail "./quickstart configured the build it was given again"

mapfile -t commands < <(sed -n 's/^\$ //p' "$TMP_DIR/quickstart.out")
[ ${#commands[@]} -ge 4 ] || fail "./quickstart printed ${#commands[@]} commands, expected at least 4"
for command in "${commands[@]}"; do
	# As the user would paste it: the shell reads the line.
	(cd "$TMP_DIR/cwd" && timeout 60 bash -c "$command") >"$TMP_DIR/command.out" 2>"$TMP_DIR/command.err" </dev/null
	status=$?
	if [ "$status" -ne 0 ]; then
		fail "'$command' exited $status: $(head -n 3 "$TMP_DIR/command.err" | tr '\n' ' ')"
	fi
	[ -s "$TMP_DIR/command.out" ] || fail "'$command' printed nothing"
	ok "runs as printed: $command ($(wc -l <"$TMP_DIR/command.out") lines)"
done

# --- the README's ```sh blocks ------------------------------------------------------

# As the README shows them: from the top of a source tree whose _build is
# this build (a tree of links to the source, since the build under test
# may be elsewhere), TMPDIR where quickstart keeps its state.
checkout=$TMP_DIR/checkout
mkdir -p "$checkout" "$TMP_DIR/readme"
for entry in "$top_srcdir"/*; do
	[ "${entry##*/}" = _build ] || ln -s "$entry" "$checkout/${entry##*/}"
done
ln -s "$top_builddir" "$checkout/_build"
awk -v dir="$TMP_DIR/readme" '
	/^```/ && block { block = 0; close(file); next }
	block { print > file; next }
	/^```sh$/ {
		if (previous ~ /^<!-- not run: /) { skipped++ }
		else { block = 1; file = sprintf("%s/block-%02d.sh", dir, ++n) }
	}
	NF { previous = $0 }
	END { printf "%d %d\n", n, skipped > (dir "/count") }
' "$top_srcdir/README.md"
read -r blocks skipped <"$TMP_DIR/readme/count"
[ "$blocks" -ge 3 ] || fail "README.md has $blocks \`\`\`sh blocks to run, expected at least 3"
for block in "$TMP_DIR"/readme/block-*.sh; do
	first=$(grep -m 1 -v '^q=' "$block")
	(cd "$checkout" && TMPDIR=$TMP_DIR/tmp timeout 120 bash -e "$block") \
	    >"$TMP_DIR/block.out" 2>"$TMP_DIR/block.err" </dev/null
	status=$?
	[ "$status" -eq 0 ] ||
	    fail "README block '$first ...' exited $status: $(tail -n 3 "$TMP_DIR/block.err" | tr '\n' ' ')"
	[ -s "$TMP_DIR/block.out" ] || fail "README block '$first ...' printed nothing"
	check_sanitizer_log "$TMP_DIR/block.err" "README block '$first ...'"
	# dcistat -c reads the running daemon, as the README says it does.
	! grep -q "no dcistatd answers" "$TMP_DIR/block.err" ||
	    fail "README block '$first ...': $(grep -m 1 "no dcistatd answers" "$TMP_DIR/block.err")"
	ok "README block runs as printed: $first ... ($(wc -l <"$block") lines, $(wc -l <"$TMP_DIR/block.out") lines out)"
done
ok "README.md: $blocks \`\`\`sh blocks ran, $skipped marked not run"

snmpd_pid=$(cat "$state/snmpd.pid") && dcistatd_pid=$(cat "$state/dcistatd.pid") ||
    fail "./quickstart left no pid files in $state"
(cd "$TMP_DIR/cwd" && TMPDIR=$TMP_DIR/tmp "$top_srcdir/quickstart" stop) >"$TMP_DIR/stop.out" 2>&1 ||
    fail "./quickstart stop failed: $(tr '\n' ' ' <"$TMP_DIR/stop.out")"
for pid in "$snmpd_pid" "$dcistatd_pid"; do
	gone() { ! kill -0 "$1" 2>/dev/null; }
	wait_until 10 gone "$pid" || fail "process $pid still runs after ./quickstart stop"
done
ok "./quickstart stop stopped snmpd ($snmpd_pid) and dcistatd ($dcistatd_pid)"

# --- configure once -------------------------------------------------------------

configure_build() { "$top_srcdir/scripts/configure-build" "$@" 2>"$TMP_DIR/configure.err"; }
fresh=$TMP_DIR/fresh
[ "$(configure_build "$fresh")" = configured ] ||
    fail "configure-build did not configure a fresh directory: $(tail -n 3 "$TMP_DIR/configure.err" | tr '\n' ' ')"
touch "$fresh/marker.o"
[ "$(configure_build "$fresh")" = unchanged ] ||
    fail "configure-build configured again with the same (no) flags"
[ -f "$fresh/marker.o" ] || fail "configure-build cleaned a build it left configured"
[ "$(configure_build "$fresh" --disable-hardening)" = configured ] ||
    fail "configure-build did not configure again when the flags changed"
grep -q -- '--disable-hardening' "$fresh/config.status" ||
    fail "the new flags did not reach configure"
ok "scripts/configure-build: configures a fresh directory, leaves it with the same flags, configures again with others"
