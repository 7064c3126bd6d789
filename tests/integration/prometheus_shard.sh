#!/bin/bash
# prometheus_shard.sh -- contrib/prometheus/shard-config, the configuration
# of one of several Prometheus pollers sharing one targets file
# (doc/PROMETHEUS-SCALE.md). For 3 shards of the shipped prometheus.yml:
#   - each passes `promtool check config`, and differs from the shipped file
#     only by the hashmod and keep rules at the head of the shared
#     relabelling and the external label dcistat_shard;
#   - `promtool check service-discovery` (Prometheus's own relabelling) over
#     a targets file of 12 agents, for each shard and each dcistat job:
#     every agent is kept by exactly one shard, the same one in the three
#     jobs, with __tmp_hash its shard number, its target and instance its
#     address; that shard is the one the document says how to compute
#     (the last 8 bytes of the MD5 of the address, big-endian, modulo the
#     number of shards); and every shard keeps at least one agent;
#   - usage errors exit 2 (a shard out of range), a file not written by
#     dcistatd --prometheus-config, or one already sharded, exits 1 and
#     writes nothing.
# Needs promtool (package prometheus) and python3; exits 77 without them.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

command -v promtool >/dev/null 2>&1 || skip "promtool not found (apt-get install prometheus)"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
promtool check service-discovery --help >/dev/null 2>&1 ||
    skip "this promtool has no check service-discovery (Prometheus 2.35 and later)"

shipped=$top_srcdir/contrib/prometheus
shard_config=$shipped/shard-config
SHARDS=3
JOBS="dcistat_netif dcistat_devstat dcistat_evcnt"
cd "$TMP_DIR" || fail "cannot enter $TMP_DIR"
cp "$shipped/dcistat.rules.yml" . || fail "cannot copy the rules"
agents=(10.1.0.1 10.1.0.2 10.1.0.3 10.1.0.4 10.1.0.5 10.1.0.6 10.1.0.7 10.1.0.8
	host9.example.net host10.example.net:1161 "[fd00::11]:161" 10.1.0.12)
{
	printf -- '- targets:\n'
	printf -- '  - "%s"\n' "${agents[@]}"
} >dcistat-targets.yml

for ((k = 0; k < SHARDS; k++)); do
	"$shard_config" "$SHARDS" "$k" "$shipped/prometheus.yml" >"shard$k.yml" 2>"shard$k.err" ||
	    fail "shard-config $SHARDS $k: $(head -n 2 "shard$k.err")"
	promtool check config "shard$k.yml" >"check$k.out" 2>&1 ||
	    fail "promtool check config of shard $k: $(tr '\n' ' ' <"check$k.out")"
	# Only added lines, and exactly these.
	diff "$shipped/prometheus.yml" "shard$k.yml" | grep '^[<>]' | grep -v '^> *#' >"diff$k" || true
	cat >"expected$k" <<EOF
>   external_labels:
>     dcistat_shard: "$k"
>       - source_labels: [__address__]
>         modulus: $SHARDS
>         target_label: __tmp_hash
>         action: hashmod
>       - source_labels: [__tmp_hash]
>         regex: $k
>         action: keep
EOF
	cmp -s "diff$k" "expected$k" ||
	    fail "shard $k differs from the shipped prometheus.yml by more or less than its rules: $(tr '\n' '|' <"diff$k")"
done
ok "shard-config: $SHARDS shards of the shipped prometheus.yml pass promtool check config, each the shipped file plus its hashmod, keep and external label"

# Service discovery and relabelling as Prometheus does them, in parallel
# (each waits its --timeout for the file discovery).
for ((k = 0; k < SHARDS; k++)); do
	for job in $JOBS; do
		promtool check service-discovery --timeout=2s "shard$k.yml" "$job" \
		    >"sd.$k.$job.json" 2>"sd.$k.$job.err" &
	done
done
wait
for ((k = 0; k < SHARDS; k++)); do
	for job in $JOBS; do
		[ -s "sd.$k.$job.json" ] ||
		    fail "promtool check service-discovery shard$k.yml $job: $(head -n 2 "sd.$k.$job.err")"
	done
done
python3 - "$SHARDS" "$JOBS" "${agents[@]}" >kept.out 2>&1 <<'PY' || fail "service discovery of the shards: $(tr '\n' ' ' <kept.out)"
import hashlib, json, sys
shards, jobs, agents = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
kept = {}  # (agent, job) -> [shard]
for k in range(shards):
    for job in jobs:
        text = open("sd.%d.%s.json" % (k, job)).read()
        targets = json.loads(text[text.index("["):text.rindex("]") + 1])
        seen = {t["discoveredLabels"]["__address__"] for t in targets}
        if seen != set(agents):
            sys.exit("shard %d, %s: discovered %s" % (k, job, sorted(seen)))
        for t in targets:
            labels, agent = t["labels"], t["discoveredLabels"]["__address__"]
            if not labels:
                continue
            if (labels.get("__tmp_hash"), labels.get("__param_target"), labels.get("instance"),
                    labels.get("__address__")) != (str(k), agent, agent, "127.0.0.1:9116"):
                sys.exit("shard %d, %s, %s: labels %s" % (k, job, agent, labels))
            kept.setdefault((agent, job), []).append(k)
per_shard = [0] * shards
for agent in agents:
    digest = hashlib.md5(agent.encode()).digest()
    documented = int.from_bytes(digest[8:], "big") % shards
    for job in jobs:
        if kept.get((agent, job)) != [documented]:
            sys.exit("%s, %s: kept by shards %s, the MD5 rule says %d"
                     % (agent, job, kept.get((agent, job)), documented))
    per_shard[documented] += 1
if 0 in per_shard:
    sys.exit("a shard keeps no agent: %s" % per_shard)
print(" ".join(map(str, per_shard)))
PY
ok "service discovery: each of ${#agents[@]} agents kept by exactly one shard in all three jobs, the one the MD5 rule gives (agents per shard: $(cat kept.out))"

status=0
"$shard_config" 3 3 "$shipped/prometheus.yml" >out 2>err || status=$?
{ [ "$status" = 2 ] && [ ! -s out ]; } || fail "shard-config 3 3: status $status (expected 2), output $(head -c 80 out)"
status=0
"$shard_config" 3 1 shard0.yml >out 2>err || status=$?
{ [ "$status" = 1 ] && [ ! -s out ] && grep -q external_labels err; } ||
    fail "shard-config of a sharded file: status $status (expected 1), $(head -n 1 err)"
status=0
"$shard_config" 3 1 dcistat.rules.yml >out 2>err || status=$?
{ [ "$status" = 1 ] && [ ! -s out ] && grep -q 'dcistat_relabel' err; } ||
    fail "shard-config of a file without the shared relabelling: status $status (expected 1), $(head -n 1 err)"
ok "shard-config: shard out of range 2; a sharded file or one without the shared relabelling 1, nothing written"
