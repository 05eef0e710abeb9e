#!/usr/bin/env bash
# bench/hetero_table.sh [DNNPAR]: the heterogeneous 3D search against the
# narrower spaces it replaced, on three mixed clusters and three models
# (issue 30; docs/config3d.md "Mixed clusters: what the wider space buys").
#
# For each (cluster, model), `plan --search 3d --json` gives the search's
# plan (every order and subset of the device types, stages that span
# types) and, simulated on the same cluster, the best plan of four
# narrower spaces: every stage on one device type (the space before the
# layouts), AMP's space (no ZeRO, sequence parallelism, interleaving or
# recompute), every device treated as the slowest type, and the fastest
# type alone.  Cost per step is the step time x the price per hour of the
# devices a plan uses / 3600.  Prices: AWS EC2 on-demand list prices
# (us-east-1) per GPU-hour, the instance's price over its GPUs:
# p4d.24xlarge (8 A100 40GB) 32.7726 $/h -> 4.10, p3.16xlarge (8 V100)
# 24.48 $/h -> 3.06, g4dn.12xlarge (4 T4) 3.912 $/h -> 0.978.  Search time
# is the wall time of the whole command (median of RUNS, default 3) on this
# machine.
# Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/dnnpar}
clusters=(
    "4xdgx-a100(price=4.10)+4xdgx1(price=3.06)"
    "4xdgx-a100(price=4.10)+8xg4dn.12xlarge(price=0.978)"
    "2xdgx-a100(price=4.10)+2xdgx1(price=3.06)+4xg4dn.12xlarge(price=0.978)"
)
models=(gpt2-medium llama2-7b llama2-13b)
batch=512
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| cluster | model | search 3d: step, cost/step, plan | one-type stages | AMP's space | all as slowest | fastest alone | search time |"
echo "|---|---|---|---|---|---|---|---|"
for cl in "${clusters[@]}"; do
    for m in "${models[@]}"; do
        times=()
        for i in $(seq "${RUNS:-3}"); do
            s=$(date +%s.%N)
            if ! "$bin" plan "$m" --cluster "$cl" --batch $batch --precision fp16 --search 3d \
                    --json "$tmp/p.json" > /dev/null 2> "$tmp/err"; then
                echo "| $cl | $m | $(head -c 150 "$tmp/err" | tr '\n|' '  ') | | | | | |"
                continue 2
            fi
            e=$(date +%s.%N)
            times+=("$(echo "$e - $s" | bc -l)")
        done
        wall=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (${#times[@]} + 1) / 2 ))p")
        python3 - "$tmp/p.json" "$cl" "$m" "$wall" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
cl, model, wall = sys.argv[2], sys.argv[3], float(sys.argv[4])
# price per hour of every device of the given cluster, and of one device of each type
terms = [(int(n), name, float(p)) for n, name, p in
         re.findall(r'(\d+)x([a-z0-9.-]+)\(price=([0-9.]+)\)', cl)]
per_node = {'dgx-a100': 8, 'dgx1': 8, 'g4dn.12xlarge': 4}
dev = {'dgx-a100': 'a100', 'dgx1': 'v100', 'g4dn.12xlarge': 't4'}
price_dev = {dev[name]: p for _, name, p in terms}
all_per_h = sum(n * per_node[name] * p for n, name, p in terms)
def cost(step, per_h):
    return step * per_h / 3600.0
b = d.get('baselines', {})
def cell(step, per_h):
    return '%.3f s, $%.4f' % (step, cost(step, per_h)) if step else '-'
used_per_h = d['cost']['price_per_hour'] if 'cost' in d else all_per_h
c = d['strategy']  # plan JSON version 3 (docs/formats.md "Plan")
plan = 'tp %d pp %d dp %d mb %d%s' % (c['tp'], c['pp'], c['dp'], c['microbatch'],
                                      ', idle %s' % d['search_stats']['idle_devices']
                                      if d['search_stats'].get('idle_devices') else '')
fa = b.get('fastest_alone', {})
fa_per_h = fa.get('devices', 0) * price_dev.get(fa.get('device', ''), 0.0)
print('| %s | %s | %.3f s, $%.4f, %s | %s | %s | %s | %s | %.2f s |' % (
    cl.replace('(price=', '(').replace(')', ')'), model, d['step_time_s'],
    cost(d['step_time_s'], used_per_h), plan,
    cell(b.get('one_type_stages', {}).get('step_time_s'), all_per_h),
    cell(b.get('amp_space', {}).get('step_time_s'), all_per_h),
    cell(b.get('all_as_slowest', {}).get('step_time_s_on_cluster'), all_per_h),
    cell(fa.get('step_time_s'), fa_per_h), wall))
EOF
    done
done
