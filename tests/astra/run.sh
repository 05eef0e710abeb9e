#!/usr/bin/env bash
# astra/run.sh [BUILD_DIR] - issue 14: ASTRA-sim 1.0 runs every zoo model's
# `dnnpar export MODEL --cluster CLUSTER --format astra` end to end.
#
# ASTRA_SIM_BIN names ASTRA-sim 1.0's analytical binary (AnalyticalAstra,
# built as docs/astra.md says); without it the script prints
# "astra: SKIP (reason)" and "astra: 0 passed, 0 failed".  For each model of
# `dnnpar models` it exports the plan, writes the network the export's notes
# describe (one Switch dimension of 2 NPUs per plan level, innermost first,
# with the link bandwidth the notes give) and a system file with one ring
# all-reduce per dimension, runs ASTRA-sim for one pass and requires exit
# status 0 and its "all passes finished at time: T" line.  It prints one row
# per model: dnnpar's predicted step time next to ASTRA-sim's T.
#
# Environment: ASTRA_SIM_BIN (required to run), ASTRA_CLUSTER (default
# 8xtpu-v3), ASTRA_MODELS (default: every zoo model), ASTRA_TIMEOUT (seconds per
# model, default 600), ASTRA_ARGS (more
# export options, e.g. "--search dp --batch 128"), ASTRA_KEEP=DIR keeps the
# exports, configurations and logs in DIR.
set -u
bin="$(cd "${1:-build-test}" && pwd)/dnnpar"
cluster=${ASTRA_CLUSTER:-8xtpu-v3}
astra=${ASTRA_SIM_BIN:-}
if [ -z "$astra" ]; then
    echo "astra: SKIP (ASTRA_SIM_BIN is not set: give ASTRA-sim 1.0's AnalyticalAstra binary, docs/astra.md)"
    echo "astra: 0 passed, 0 failed"
    exit 0
fi
if [ ! -x "$astra" ]; then
    echo "astra: SKIP (ASTRA_SIM_BIN=$astra is not an executable file)"
    echo "astra: 0 passed, 0 failed"
    exit 0
fi
if [ -n "${ASTRA_KEEP:-}" ]; then
    work=$ASTRA_KEEP
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
export ASAN_OPTIONS=detect_leaks=1
models=${ASTRA_MODELS:-$("$bin" models | awk '/^[a-z0-9]/ {print $1}')}
passed=0
failed=0

# net_and_sys EXPORT NAME: the network JSON and system file for EXPORT, from
# its note "dimensions-count L, units-count 2 ..., link-bandwidth (GiB/s) ...".
net_and_sys() {
    local notes dims units bws
    notes=$(grep '^#' "$1" | tr '\n' ' ' | tr -s ' #' ' ')
    dims=$(printf '%s' "$notes" | sed -nE 's/.*dimensions-count ([0-9]+).*/\1/p')
    units=$(printf '%s' "$notes" | sed -nE 's/.*units-count ([0-9 ]+)[,)].*/\1/p')
    bws=$(printf '%s' "$notes" | sed -nE 's/.*link-bandwidth \(GiB\/s\) ([0-9.e+ -]+) \(.*/\1/p')
    [ -n "$dims" ] && [ -n "$units" ] || return 1
    if [ -z "$bws" ]; then bws=1; fi # one NPU: no link is used
    awk -v d="$dims" -v us="$units" -v bws="$bws" 'BEGIN {
        n = split(bws, bw, " ");
        split(us, u, " ");
        printf "{\n  \"topology-name\": \"Hierarchical\",\n  \"dimensions-count\": %d,\n", d;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") "\"Switch\"";
        printf "  \"topologies-per-dim\": [%s],\n", line;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") "\"N\"";
        printf "  \"dimension-type\": [%s],\n", line;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") u[i];
        printf "  \"units-count\": [%s],\n", line;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") "1";
        printf "  \"links-count\": [%s],\n", line;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") bw[(n == d) ? i : 1];
        printf "  \"link-bandwidth\": [%s],\n", line;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") "0";
        printf "  \"link-latency\": [%s],\n  \"nic-latency\": [%s],\n", line, line;
        printf "  \"router-latency\": [%s],\n  \"hbm-latency\": [%s],\n", line, line;
        printf "  \"hbm-scale\": [%s],\n", line;
        line = ""; for (i = 1; i <= d; i++) line = line (i > 1 ? ", " : "") "1000";
        printf "  \"hbm-bandwidth\": [%s]\n}\n", line;
    }' > "$work/$2.net.json"
    local impl="" i
    for ((i = 0; i < dims; i++)); do impl="$impl${impl:+_}ring"; done
    printf '%s\n' "scheduling-policy: FIFO" "endpoint-delay: 1" \
        "active-chunks-per-dimension: 1" "preferred-dataset-splits: 1" "boost-mode: 0" \
        "all-reduce-implementation: $impl" "all-gather-implementation: $impl" \
        "reduce-scatter-implementation: $impl" "all-to-all-implementation: $impl" \
        "collective-optimization: baseline" "seprate-log: 0" > "$work/$2.sys.txt"
}

printf '%-18s %-17s %7s %14s %14s %7s\n' model policy layers "dnnpar step s" "ASTRA-sim s" ratio
for m in $models; do
    exp="$work/$m.txt"
    # shellcheck disable=SC2086 # ASTRA_ARGS is a list of options
    if ! "$bin" export "$m" --cluster "$cluster" ${ASTRA_ARGS:-} --format astra -o "$exp" \
            2> "$work/$m.err"; then
        echo "FAIL astra $m: dnnpar export failed: $(head -n 1 "$work/$m.err")"
        failed=$((failed + 1)); continue
    fi
    if ! net_and_sys "$exp" "$m"; then
        echo "FAIL astra $m: the export has no network note"; failed=$((failed + 1)); continue
    fi
    mkdir -p "$work/$m.res"
    timeout "${ASTRA_TIMEOUT:-600}" "$astra" --network-configuration="$work/$m.net.json" \
        --system-configuration="$work/$m.sys.txt" --workload-configuration="$exp" \
        --path="$work/$m.res/" --num-passes 1 --num-queues-per-dim 1 --comm-scale 1 \
        --compute-scale 1 --injection-scale 1 --rendezvous-protocol false \
        --run-name "$m" > "$work/$m.log" 2>&1
    rc=$?
    ticks=$(sed -nE 's/^all passes finished at time: ([0-9]+),.*/\1/p' "$work/$m.log" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$ticks" ]; then
        echo "FAIL astra $m: ASTRA-sim exited $rc: $(grep -iE 'assert|error|exiting' "$work/$m.log" | head -n 1)"
        failed=$((failed + 1)); continue
    fi
    pred=$(sed -nE 's/.*predicted step time ([0-9.e+-]+) s$/\1/p' "$exp" | head -n 1)
    awk -v m="$m" -v pol="$(head -n 1 "$exp")" -v n="$(sed -n 2p "$exp")" -v p="$pred" -v t="$ticks" \
        'BEGIN { s = t / 1e9; printf "%-18s %-17s %7d %14.6g %14.6g %7.3f\n", m, pol, n, p, s, (p > 0 ? s / p : 0) }'
    passed=$((passed + 1))
done
echo "astra: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
