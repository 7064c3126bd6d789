#!/bin/bash
# hardening.sh -- the programs and shared objects the build installs carry
# the hardening configure chose (configure.ac: --disable-hardening):
#   - every one: full RELRO (a GNU_RELRO segment and BIND_NOW);
#   - the programs (dcistatd, dcistat, dcistat-isolate): PIE;
#   - dcistatd: the stack protector (it calls __stack_chk_fail) and, where
#     configure enabled _FORTIFY_SOURCE, fortified calls (__*_chk).
# What readelf reads, as Debian's hardening-check does.
#
# Environment: top_builddir, HARDENING_CFLAGS, HARDENING_LDFLAGS (set by
# the test harness). Exit status: 0 pass, 1 fail, 77 skip.

top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }

command -v readelf >/dev/null 2>&1 || { echo "SKIP: readelf not found (binutils)"; exit 77; }
case " ${HARDENING_LDFLAGS:-} " in
*relro*) ;;
*) echo "SKIP: built without hardening (configure --disable-hardening, or a linker without -z relro)"; exit 77 ;;
esac

programs=(src/agent/dcistatd src/cli/dcistat src/isolate/dcistat-isolate)
objects=(src/agent/.libs/dcistat.so src/supplier/.libs/libdcistat-supplier.so
	src/providers/netif/.libs/netif.so src/providers/devstat/.libs/devstat.so
	src/providers/evcnt/.libs/evcnt.so src/providers/suppliers/.libs/suppliers.so
	src/providers/example/.libs/example.so)

for file in "${programs[@]}" "${objects[@]}"; do
	path=$top_builddir/$file
	[ -f "$path" ] || fail "$file not built"
	readelf -lW "$path" | grep -q 'GNU_RELRO' || fail "$file: no GNU_RELRO segment"
	readelf -dW "$path" | grep -E -q 'BIND_NOW|FLAGS.*\bNOW\b' || fail "$file: not bound now (-z now)"
done
ok "${#programs[@]} programs and ${#objects[@]} shared objects: full RELRO"

for file in "${programs[@]}"; do
	path=$top_builddir/$file
	readelf -hW "$path" | grep -q 'Type:.*DYN' || fail "$file: not position-independent"
	readelf -dW "$path" | grep -q 'FLAGS_1.*PIE' || fail "$file: no PIE flag"
done
ok "the programs are PIE"

symbols=$(readelf --dyn-syms -W "$top_builddir/src/agent/dcistatd")
grep -q '__stack_chk_fail' <<<"$symbols" || fail "dcistatd: no stack protector (__stack_chk_fail)"
ok "dcistatd: stack protector"
case " ${HARDENING_CFLAGS:-} " in
*_FORTIFY_SOURCE*)
	fortified=$(grep -c -E ' __[a-z]+_chk' <<<"$symbols")
	[ "$fortified" -gt 0 ] || fail "dcistatd: no fortified call although built with _FORTIFY_SOURCE"
	ok "dcistatd: $fortified fortified calls (_FORTIFY_SOURCE)"
	;;
*) echo "# _FORTIFY_SOURCE not in this build (sanitizers, no optimisation, or defined by CFLAGS)" ;;
esac
exit 0
