#!/bin/bash
# debian.sh -- builds the Debian packages from the committed tree (debian/:
# dcistatd, dcistat-snmpd-module, libdcistat-dev, libdcistat-supplier0,
# libdcistat-supplier-dev, libdci0, libdci-dev, dcistat-examples, python3-dcistat), checks them with lintian (no
# error), and installs them into a fresh Debian 12 root (mmdebstrap,
# variant apt, plus snmpd) with apt, as a new host would get them. Run by
# .ci/run, as root, last.
#
# Checked in the fresh root:
#   - the dcistat user and group exist (postinst);
#   - `dcistatd -t` with the installed /etc/dcistat/dcistatd.yaml passes,
#     strict paths on (the installed tree is root's alone), and names its
#     4 providers;
#   - `dcistat -c /etc/dcistat/dcistatd.yaml show netif --json` gives lo
#     with its MTU as /sys has it;
#   - the unit is installed, enabled (not started) and passes
#     systemd-analyze verify;
#   - the example provider is not among the production providers, and
#     every installed ELF has full RELRO (the package's hardening);
#   - the installed dcistatd, started as the packaged dcistat user against
#     the root's snmpd as AgentX master (agentXPerms giving the socket to
#     group dcistat), serves: dciStatTable walks, netif names lo "lo";
#   - purged, the packages leave no file in /usr or /etc.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (chroot, mounts)"; exit 77; }

export DEBIAN_FRONTEND=noninteractive
packages=(debhelper lintian dpkg-dev mmdebstrap libsnmp-dev libsystemd-dev
	libcurl4-openssl-dev libmnl-dev libyaml-dev pkg-config dh-python python3-dev)
apt-get install -y -q --no-install-recommends "${packages[@]}" </dev/null >/dev/null ||
    { apt-get update -q </dev/null >/dev/null &&
      apt-get install -y -q --no-install-recommends "${packages[@]}" </dev/null >/dev/null; }

work=$(mktemp -d /var/tmp/dcistat-package.XXXXXX)
root=$work/root
mounts=()
pids=()
cleanup() {
	local pid mount
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	sleep 0.5
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# --- build and lint --------------------------------------------------------------

mkdir "$work/dcistat-0.1.0"
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) | tar -x -C "$work/dcistat-0.1.0"
(cd "$work/dcistat-0.1.0" && dpkg-buildpackage -b -us -uc -j2 >"$work/build.log" 2>&1) ||
    { tail -n 30 "$work/build.log"; fail "dpkg-buildpackage failed"; }
names=(dcistatd dcistat-snmpd-module libdcistat-dev libdcistat-supplier0
	libdcistat-supplier-dev libdci0 libdci-dev dcistat-examples python3-dcistat)
debs=()
for name in "${names[@]}"; do
	deb=$(ls "$work/${name}_"*.deb 2>/dev/null) || fail "package $name not built"
	debs+=("$deb")
done
ok "built ${names[*]}"
lintian --fail-on error "${debs[@]}" >"$work/lintian.log" 2>&1 ||
    { cat "$work/lintian.log"; fail "lintian reports errors"; }
ok "lintian: no error; $(grep -c '^W:' "$work/lintian.log" || true) warnings: $(grep '^W:' "$work/lintian.log" | cut -d ' ' -f 2- | sort | uniq -c | xargs)"

# --- a fresh Debian 12 root ---------------------------------------------------------

mmdebstrap --quiet --variant=apt --include=snmpd,snmp bookworm "$root" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -n 20 "$work/mmdebstrap.log"; fail "mmdebstrap bookworm failed"; }
for mount in proc sys dev; do
	case $mount in
	proc) mount -t proc proc "$root/proc" ;;
	*) mount --rbind "/$mount" "$root/$mount" && mount --make-rslave "$root/$mount" ;;
	esac
	mounts+=("$root/$mount")
done
in_root() { chroot "$root" "$@"; }
mkdir "$root/debs"
cp "${debs[@]}" "$root/debs/"
# mmdebstrap leaves no package lists: the dependencies come from the mirror.
in_root apt-get update -q </dev/null >"$work/update.log" 2>&1 ||
    { tail -n 10 "$work/update.log"; fail "apt-get update in the fresh root failed"; }
in_root_debs=()
for deb in "${debs[@]}"; do in_root_debs+=("/debs/${deb##*/}"); done
in_root apt-get install -y -q "${in_root_debs[@]}" </dev/null >"$work/install.log" 2>&1 ||
    { tail -n 20 "$work/install.log"; fail "apt-get install of the packages in the fresh root failed"; }
ok "installed into a fresh Debian 12 root with apt (mmdebstrap --variant=apt, snmpd)"
# Debian's snmpd.conf is an AgentX master without agentXPerms: the
# postinst says what to add for the dcistat user.
grep -q 'agentXPerms 0660 0755 root dcistat' "$work/install.log" ||
    fail "the postinst did not say what snmpd.conf needs: $(grep dcistatd: "$work/install.log" | head -n 3)"
ok "the postinst says what snmpd.conf needs (agentXPerms for the dcistat user)"

in_root id dcistat >/dev/null 2>&1 || fail "no dcistat user after installing"
in_root getent group dcistat >/dev/null || fail "no dcistat group after installing"
check=$(in_root dcistatd -t 2>&1) || fail "dcistatd -t with the installed configuration: $check"
grep -q "configuration OK (4 providers)" <<<"$check" || fail "dcistatd -t: $check"
ok "user and group dcistat; dcistatd -t, strict paths on: $check"

in_root dcistat -c /etc/dcistat/dcistatd.yaml show netif --json >"$work/show.json" ||
    fail "dcistat show netif failed"
mtu=$(python3 -c '
import json, sys
table = json.load(open(sys.argv[1]))["tables"][0]
print(next(row["mtu"] for row in table["rows"] if row["instance"] == "lo"))
' "$work/show.json")
[ "$mtu" = "$(cat /sys/class/net/lo/mtu)" ] || fail "dcistat show netif: lo's mtu '$mtu', /sys has $(cat /sys/class/net/lo/mtu)"
ok "dcistat show netif --json: lo's MTU $mtu as /sys has it"

# The Python package, imported by the root's python3, publishes a counter
# that the installed dcistat reads back from a private run directory.
mkdir -p -m 0700 "$root/run/dcistat-pytest/suppliers"
cat >"$root/run/dcistat-pytest/dcistatd.yaml" <<YAML
providers:
  - module: suppliers
    options:
      directory: /run/dcistat-pytest/suppliers
YAML
served=$(in_root python3 -c '
import subprocess, dcistat
with dcistat.Supplier("pkgtest", number=4353, directory="/run/dcistat-pytest/suppliers") as supplier:
    supplier.counter("requests").labels("GET").inc(42)
    print(subprocess.run(["dcistat", "-c", "/run/dcistat-pytest/dcistatd.yaml", "show", "3.4353.16"],
                         capture_output=True, text=True, check=True).stdout)
' 2>&1) || fail "python3 -c 'import dcistat' in the root: $served"
grep -Eq '^GET +1 +42$' <<<"$served" || fail "the installed dcistat package's counter, read back: $served"
ok "python3-dcistat: a counter of the installed package, read back by the installed dcistat (GET 42)"

unit=$root/lib/systemd/system/dcistatd.service
[ -f "$unit" ] || fail "the unit is not installed"
[ -L "$root/etc/systemd/system/multi-user.target.wants/dcistatd.service" ] || fail "the unit is not enabled"
if command -v systemd-analyze >/dev/null 2>&1; then
	sed "s|^ExecStart=[^ ]*|ExecStart=$root/usr/sbin/dcistatd|" "$unit" >"$work/dcistatd.service"
	systemd-analyze verify --man=no "$work/dcistatd.service" || fail "systemd-analyze verify of the unit"
fi
ok "unit installed, enabled (not started), verified"

providers=$(in_root dpkg -L dcistatd | grep '/dcistat/providers/.*\.so$' | xargs -n1 basename | sort | xargs)
[ "$providers" = "devstat.so evcnt.so netif.so openmetrics.so statsd.so suppliers.so" ] || fail "production providers: $providers"
for elf in /usr/sbin/dcistatd /usr/bin/dcistat $(in_root dpkg -L "${names[@]}" | grep '\.so$'); do
	[ -L "$root$elf" ] && continue
	readelf -lW "$root$elf" | grep -q GNU_RELRO || fail "$elf: no RELRO"
	readelf -dW "$root$elf" | grep -E -q 'BIND_NOW|FLAGS.*NOW' || fail "$elf: not bound now"
done
ok "production providers: $providers (the example apart); every ELF with full RELRO"

# --- the packaged user against the root's snmpd -----------------------------------

run=/run/dcistat-test
mkdir -p "$root$run"
cat >"$root$run/snmpd.conf" <<CONF
master agentx
agentXSocket $run/agentx.sock
agentXPerms 0660 0755 root dcistat
com2secunix unixsec $run/snmp.sock public
group unixgroup v2c unixsec
view all included .1
access unixgroup "" any noauth exact all none none
CONF
# chroot itself, not in_root: $! must be the process that becomes snmpd
# (a backgrounded function is a subshell, whose kill would leave snmpd).
chroot "$root" snmpd -f -Lf "$run/snmpd.log" -C -c "$run/snmpd.conf" -p "$run/snmpd.pid" \
    "unix:$run/snmp.sock" </dev/null >/dev/null 2>&1 &
pids+=("$!")
target=(-v2c -c public "unix:$run/snmp.sock")
for _ in $(seq 50); do in_root snmpget "${target[@]}" .1.3.6.1.2.1.1.3.0 >/dev/null 2>&1 && break; sleep 0.2; done
in_root snmpget "${target[@]}" .1.3.6.1.2.1.1.3.0 >/dev/null || fail "snmpd in the root does not answer"
triplet=$(in_root dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || dpkg-architecture -qDEB_HOST_MULTIARCH)
cat >"$root$run/dcistatd.yaml" <<YAML
agent:
  agentx-socket: $run/agentx.sock
  ping-interval: 1
  plugin-dir: /usr/lib/$triplet/dcistat/providers
providers:
  - module: netif
YAML
chroot --userspec=dcistat:dcistat "$root" /usr/sbin/dcistatd -f -c "$run/dcistatd.yaml" -L stderr \
    </dev/null >"$work/dcistatd.log" 2>&1 &
pids+=("$!")
arc=.1.3.6.1.4.1.8072.9999.9999.4040
lo=$(cat /sys/class/net/lo/ifindex)
name=
for _ in $(seq 50); do
	name=$(in_root snmpget -Oqv "${target[@]}" "$arc.1.6.1.1.1.1.$lo" 2>/dev/null || true)
	name=${name//\"/}
	[ "$name" = lo ] && break
	sleep 0.2
done
[ "$name" = lo ] || fail "the packaged dcistatd does not serve netif: $(tail -n 5 "$work/dcistatd.log")"
daemon=$(pgrep -u "$(in_root id -u dcistat)" -x dcistatd) || fail "no dcistatd running as dcistat"
rows=$(in_root snmpbulkwalk -On "${target[@]}" "$arc.1.5" | wc -l)
[ "$rows" -gt 100 ] || fail "dciStatTable: only $rows values"
ok "dcistatd (pid $daemon) as the packaged user dcistat against the root's snmpd: dciStatTable walks ($rows values), lo named lo"
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
! pgrep -f "snmpd -f -Lf $run/snmpd.log" >/dev/null || fail "the root's snmpd still runs after its kill"

# --- purge -------------------------------------------------------------------------

in_root apt-get purge -y -q "${names[@]}" </dev/null >"$work/purge.log" 2>&1 ||
    { tail -n 10 "$work/purge.log"; fail "apt-get purge failed"; }
# (lib is /usr/lib in a merged-/usr root.)
left=$(cd "$root" && find usr etc -path '*dcistat*' -print -quit)
[ -z "$left" ] || fail "left after purging: $left"
ok "purged: nothing left"
