#!/bin/bash
# debian.sh -- builds the Debian packages from the committed tree (debian/:
# dcistatd, dcistat-snmpd-module, libdcistat-dev, libdcistat-supplier0,
# libdcistat-supplier-dev, dcistat-examples), checks them with lintian (no
# error), installs them with apt and checks what an operator gets, then
# purges them. Run by .ci/run, as root, last: it installs into the system.
#
# Checked after installing:
#   - the dcistat user and group exist (postinst);
#   - `dcistatd -t` with the installed /etc/dcistat/dcistatd.yaml passes,
#     strict paths on (the installed tree is root's alone), and names its
#     4 providers;
#   - `dcistat -c /etc/dcistat/dcistatd.yaml show netif --json` gives lo
#     with its MTU as /sys has it;
#   - the unit is installed, enabled (not started) and passes
#     systemd-analyze verify;
#   - the example provider is not among the production providers;
#   - every installed ELF has full RELRO (the package's hardening);
#   - the installed dcistatd, started as the packaged dcistat user against a
#     private snmpd master (agentXPerms giving the socket to group
#     dcistat), serves: dciStatTable walks, and netif's name of lo is lo.
# After purging: no dcistat file left in /usr, /etc or /lib.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (it installs the package)"; exit 77; }

export DEBIAN_FRONTEND=noninteractive
packages=(debhelper lintian dpkg-dev libsnmp-dev libsystemd-dev libyaml-dev pkg-config)
apt-get install -y -q --no-install-recommends "${packages[@]}" </dev/null >/dev/null ||
    { apt-get update -q </dev/null >/dev/null &&
      apt-get install -y -q --no-install-recommends "${packages[@]}" </dev/null >/dev/null; }

work=$(mktemp -d /tmp/dcistat-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/dcistat-0.1.0"
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) | tar -x -C "$work/dcistat-0.1.0"
(cd "$work/dcistat-0.1.0" && dpkg-buildpackage -b -us -uc -j2 >"$work/build.log" 2>&1) ||
    { tail -n 30 "$work/build.log"; fail "dpkg-buildpackage failed"; }
names=(dcistatd dcistat-snmpd-module libdcistat-dev libdcistat-supplier0
	libdcistat-supplier-dev dcistat-examples)
debs=()
for name in "${names[@]}"; do
	deb=$(ls "$work/${name}_"*.deb 2>/dev/null) || fail "package $name not built"
	debs+=("$deb")
done
ok "built ${names[*]}"

lintian --fail-on error "${debs[@]}" >"$work/lintian.log" 2>&1 ||
    { cat "$work/lintian.log"; fail "lintian reports errors"; }
ok "lintian: no error; $(grep -c '^W:' "$work/lintian.log" || true) warnings: $(grep '^W:' "$work/lintian.log" | cut -d ' ' -f 2- | tr '\n' ';')"

apt-get install -y -q "${debs[@]}" </dev/null >"$work/install.log" 2>&1 ||
    { tail -n 20 "$work/install.log"; fail "apt-get install of the packages failed"; }
purge() { apt-get purge -y -q "${names[@]}" </dev/null >/dev/null 2>&1 || true; }
trap 'purge; rm -rf "$work"' EXIT

id dcistat >/dev/null 2>&1 || fail "no dcistat user after installing"
getent group dcistat >/dev/null || fail "no dcistat group after installing"
check=$(dcistatd -t 2>&1) || fail "dcistatd -t with the installed configuration: $check"
grep -q "configuration OK (4 providers)" <<<"$check" || fail "dcistatd -t: $check"
ok "installed: user and group dcistat; dcistatd -t, strict paths on: $check"

dcistat -c /etc/dcistat/dcistatd.yaml show netif --json >"$work/show.json" ||
    fail "dcistat show netif failed"
mtu=$(python3 -c '
import json, sys
table = json.load(open(sys.argv[1]))["tables"][0]
print(next(row["mtu"] for row in table["rows"] if row["instance"] == "lo"))
' "$work/show.json")
[ "$mtu" = "$(cat /sys/class/net/lo/mtu)" ] || fail "dcistat show netif: lo's mtu '$mtu', /sys has $(cat /sys/class/net/lo/mtu)"
ok "dcistat show netif --json from the installed tree: lo's MTU $mtu as /sys has it"

unit=/lib/systemd/system/dcistatd.service
[ -f "$unit" ] || fail "$unit not installed"
[ -L /etc/systemd/system/multi-user.target.wants/dcistatd.service ] || fail "the unit is not enabled"
if command -v systemd-analyze >/dev/null 2>&1; then
	systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify $unit"
fi
ok "unit installed, enabled, verified"

providers=$(dpkg -L dcistatd | grep '/dcistat/providers/.*\.so$' | xargs -n1 basename | sort | xargs)
[ "$providers" = "devstat.so evcnt.so netif.so suppliers.so" ] || fail "production providers: $providers"
for elf in /usr/sbin/dcistatd /usr/bin/dcistat $(dpkg -L "${names[@]}" | grep '\.so$'); do
	[ -L "$elf" ] && continue
	readelf -lW "$elf" | grep -q GNU_RELRO || fail "$elf: no RELRO"
	readelf -dW "$elf" | grep -E -q 'BIND_NOW|FLAGS.*NOW' || fail "$elf: not bound now"
done
ok "production providers: $providers (the example apart); every ELF with full RELRO"

# --- the packaged user against an snmpd master -------------------------------

run=$(mktemp -d /run/dcistat-package.XXXXXX)
chmod 0755 "$run"
pids=()
stop_all() {
	local pid
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	sleep 0.5
	rm -rf "$run"
}
trap 'stop_all; purge; rm -rf "$work"' EXIT
cat >"$run/snmpd.conf" <<CONF
master agentx
agentXSocket $run/agentx.sock
agentXPerms 0660 0755 root dcistat
com2secunix unixsec $run/snmp.sock public
group unixgroup v2c unixsec
view all included .1
access unixgroup "" any noauth exact all none none
CONF
snmpd -f -Lf "$run/snmpd.log" -C -c "$run/snmpd.conf" -p "$run/snmpd.pid" \
    "unix:$run/snmp.sock" </dev/null >/dev/null 2>&1 &
pids+=("$!")
target=(-v2c -c public "unix:$run/snmp.sock")
for _ in $(seq 50); do snmpget "${target[@]}" .1.3.6.1.2.1.1.3.0 >/dev/null 2>&1 && break; sleep 0.2; done
snmpget "${target[@]}" .1.3.6.1.2.1.1.3.0 >/dev/null || fail "the private snmpd does not answer"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
cat >"$run/dcistatd.yaml" <<YAML
agent:
  agentx-socket: $run/agentx.sock
  ping-interval: 1
  plugin-dir: /usr/lib/$triplet/dcistat/providers
providers:
  - module: netif
YAML
runuser -u dcistat -- /usr/sbin/dcistatd -f -c "$run/dcistatd.yaml" -L stderr \
    </dev/null >"$run/dcistatd.log" 2>&1 &
pids+=("$!")
arc=.1.3.6.1.4.1.8072.9999.9999.4040
lo=$(cat /sys/class/net/lo/ifindex)
for _ in $(seq 50); do
	name=$(snmpget -Oqv "${target[@]}" "$arc.1.6.1.1.1.1.$lo" 2>/dev/null || true)
	name=${name//\"/}
	[ "$name" = lo ] && break
	sleep 0.2
done
[ "$name" = lo ] || fail "the packaged dcistatd does not serve netif: $(tail -n 5 "$run/dcistatd.log")"
daemon=$(pgrep -u dcistat -x dcistatd) || fail "no dcistatd running as dcistat"
rows=$(snmpbulkwalk -On "${target[@]}" "$arc.1.5" | wc -l)
[ "$rows" -gt 100 ] || fail "dciStatTable: only $rows values"
ok "dcistatd (pid $daemon) as the packaged user dcistat against an snmpd master: dciStatTable walks ($rows values), lo named lo"
stop_all
trap 'purge; rm -rf "$work"' EXIT

purge
trap 'rm -rf "$work"' EXIT
left=$(find /usr /etc /lib -path '*dcistat*' 2>/dev/null | grep -v '^/usr/local' | head -n 5 || true)
[ -z "$left" ] || fail "left after purging: $left"
rm -rf /run/dcistat
ok "purged: nothing left"
