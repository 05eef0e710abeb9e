#!/usr/bin/env bash
# profile/run.sh [BUILD_DIR] - issue 29 item 3: `dnnpar profile` measures
# this machine's CPU with Debian's python3-torch (--grid small, 1 thread) and
# writes a cluster JSON device.  Checks, with no timing asserted beyond
# robust inequalities (the machine is shared, timings are noisy): the command
# stops within its time limit; the file loads as a cluster (comm, plan);
# export-cluster of it gives back every field it wrote (modulo key order; the
# "profile" object, and sm_count, l2_bw_bps and host_kernel_s where this
# dnnpar's cluster writer does not write them yet); the figures are the ones
# its raw measurements give; `profile --check` puts the model's GEMM times in
# the same order as the measured ones (Spearman > 0.5 over 125 shapes whose
# FLOP span 4096x); bad input stops with status 2 and writes nothing.  Prints
# "profile: N passed, N failed", or "profile: SKIP (reason)" and
# "profile: 0 passed, 0 failed" where Debian's python3-torch is absent.
set -u
bin="$(cd "${1:-build-test}" && pwd)/dnnpar"
cd "$(dirname "$0")/../.."
py=${DNNPAR_PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import torch, torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
    echo "profile: SKIP ($py cannot import torch with gloo: Debian's python3-torch is not installed)"
    echo "profile: 0 passed, 0 failed"
    exit 0
fi
export ASAN_OPTIONS=detect_leaks=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL profile $1"; failed=$((failed + 1)); }

# ---- the profile ------------------------------------------------------------
start=$(date +%s)
"$bin" profile --grid small --threads 1 --date 2026-01-01 --time-limit 120 \
    --out "$work/dev.json" > "$work/out.txt" 2> "$work/err.txt"
rc=$?
took=$(( $(date +%s) - start ))
if [ $rc -ne 0 ] || [ ! -s "$work/dev.json" ]; then
    bad "profile --out exited $rc"; cat "$work/err.txt"
    echo "profile: $passed passed, $failed failed"; exit 0
fi
ok
echo "profile: --grid small took ${took} s"
[ "$took" -le 120 ] && ok || bad "took ${took} s, above --time-limit 120"
grep -q '^wrote .*dev.json: device cpu-profile' "$work/out.txt" && ok ||
    bad "no summary line: $(head -c 300 "$work/out.txt")"

# ---- it is a cluster --------------------------------------------------------
"$bin" comm allreduce --cluster "$work/dev.json" --bytes 1M > "$work/comm.txt" 2>&1 &&
    grep -q 'ring\|direct' "$work/comm.txt" && ok || bad "comm --cluster: $(head -c 300 "$work/comm.txt")"
"$bin" plan lenet --cluster "$work/dev.json" --batch 8 > "$work/plan.txt" 2>&1 && ok ||
    bad "plan --cluster: $(head -c 300 "$work/plan.txt")"
"$bin" export-cluster "$work/dev.json" -o "$work/rt.json" 2> "$work/rt.err" && ok ||
    bad "export-cluster: $(cat "$work/rt.err")"

# ---- round trip and structure (python3: json only) --------------------------
"$py" - "$work/dev.json" "$work/rt.json" > "$work/struct.txt" 2>&1 <<'EOF'
import json, math, sys
prof_file, rt_file = sys.argv[1], sys.argv[2]
a = json.load(open(prof_file))
b = json.load(open(rt_file))
fails = []
def need(cond, what):
    if not cond:
        fails.append(what)
# the round trip: export-cluster writes every field the profile holds
p = a.pop("profile")
extra = ("sm_count", "l2_bw_bps", "host_kernel_s")
for da, db in zip(a["devices"], b["devices"]):
    for k in extra:
        if k in db:
            need(db[k] == da.get(k), "export-cluster changed %s" % k)
        elif k in da:
            db[k] = da[k]   # not written by this dnnpar's cluster writer yet
need(a == b, "export-cluster of the profile differs: %s" %
     [k for k in a["devices"][0] if a["devices"][0].get(k) != b["devices"][0].get(k)])
d = a["devices"][0]
need(len(a["devices"]) == 1 and d["count"] == 2 and d["devices_per_node"] == 2,
     "one type of 2 devices on one node")
need(d["dtype"] == "fp32" and d["compute_eff"] == 1.0 and d["mem_eff"] == 1.0,
     "fp32, compute_eff 1, mem_eff 1")
need(d["sm_count"] == 1 and p["threads"] == 1, "1 thread, sm_count 1")
need(p["date"] == "2026-01-01" and p["grid"] == "small" and p["gemm_backend"] == "mm",
     "date, grid and backend recorded")
g = p["gemm"]
need(len(g) + len(p["gemm_skipped"]) == 125 and len(g) >= 60, "the 5^3 grid (%d timed)" % len(g))
need(all(r["time_s"] > 0 and r["flop"] == 2.0 * r["m"] * r["n"] * r["k"] for r in g),
     "positive times, FLOP = 2mnk")
best = max(r["flops"] for r in g)
need(abs(d["peak_flops"] / best - 1) < 1e-5, "peak_flops %g = the best GEMM rate %g" %
     (d["peak_flops"], best))
rates = [r["bps"] for r in p["eltwise"]]
need(len(rates) >= 4 and d["mem_bw_bps"] <= d["l2_bw_bps"] * (1 + 1e-5) and
     abs(d["l2_bw_bps"] / max(rates) - 1) < 1e-5, "mem_bw <= l2_bw = the sweep's best")
need(d["mem_bw_bps"] > 1e8 and d["peak_flops"] > 1e8, "plausible figures")
need(0 < d["host_kernel_s"] < 1e-3 and d["kernel_overhead_s"] == d["host_kernel_s"],
     "host_kernel_s = kernel_overhead_s on a CPU, under 1 ms")
c = p["collectives"]
need(c["backend"] == "gloo" and c["ranks"] == 2, "gloo between 2 processes")
for op in ("allreduce", "allgather", "p2p"):
    need(len(c["measured"][op]) == 4 and all(r["time_s"] > 0 for r in c["measured"][op]),
         "%s at 4 sizes" % op)
fit = c["fits"]["p2p"]
need(fit["alpha_s"] >= 0 and abs(d["intra_bw_bps"] / fit["link_bw_bps"] - 1) < 1e-5 and
     abs(d["intra_lat_s"] - fit["alpha_s"]) <= 1e-5 * fit["alpha_s"] + 1e-12,
     "intra link = the p2p fit")
print("\n".join(fails) if fails else "ok")
sys.exit(1 if fails else 0)
EOF
[ $? -eq 0 ] && ok || bad "structure: $(cat "$work/struct.txt")"

# ---- the check --------------------------------------------------------------
"$bin" profile --check "$work/dev.json" --json "$work/check.json" > "$work/check.txt" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    bad "profile --check exited $rc: $(head -c 300 "$work/check.txt")"
else
    grep '^spearman' "$work/check.txt"
    "$py" - "$work/check.json" <<'EOF' && ok || bad "check: spearman or rows"
import json, sys
c = json.load(open(sys.argv[1]))
rows = c["gemm"]
ok = (c["spearman"] is not None and c["spearman"] > 0.5 and c["gemm_shapes"] == len(rows) >= 60
      and all(r["model_s"] > 0 and r["measured_s"] > 0 for r in rows)
      and c["sm_count"] == 1 and len(c["collectives"]) == 12
      and all(r["model_s"] > 0 for r in c["collectives"]))
sys.exit(0 if ok else 1)
EOF
fi

# ---- bad input: status 2, nothing written -----------------------------------
expect2() {
    local name=$1; shift
    rm -f "$work/x.json"
    "$@" > "$work/bad.out" 2> "$work/bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && [ ! -e "$work/x.json" ] && [ "$(wc -l < "$work/bad.err")" -eq 1 ]; then ok
    else bad "$name: exit $rc, $(wc -l < "$work/bad.err") error lines: $(head -c 200 "$work/bad.err")"; fi
}
expect2 grid "$bin" profile --out "$work/x.json" --grid huge
expect2 both "$bin" profile --out "$work/x.json" --check "$work/dev.json"
expect2 name "$bin" profile --out "$work/x.json" --name a100
expect2 threads "$bin" profile --out "$work/x.json" --threads 0
expect2 out-dir "$bin" profile --out "$work/no/such/dir/x.json"
expect2 nopython env DNNPAR_PYTHON=/nonexistent/python3 "$bin" profile --out "$work/x.json"
expect2 check-missing "$bin" profile --check "$work/nonexistent.json"
"$bin" export-cluster 8xa100 -o "$work/plain.json" 2>/dev/null
expect2 check-no-profile "$bin" profile --check "$work/plain.json"
sed 's/"time_s": [0-9.e+-]*/"time_s": -1/' "$work/dev.json" > "$work/neg.json"
expect2 check-negative-time "$bin" profile --check "$work/neg.json"
# the time limit: killed, status 1, nothing written, promptly
start=$(date +%s)
"$bin" profile --out "$work/x.json" --time-limit 2 > /dev/null 2> "$work/tl.err"
rc=$?
took=$(( $(date +%s) - start ))
if [ $rc -eq 1 ] && [ ! -e "$work/x.json" ] && [ "$took" -le 10 ] &&
   grep -q 'time-limit' "$work/tl.err"; then ok
else bad "--time-limit 2: exit $rc after ${took} s: $(head -c 200 "$work/tl.err")"; fi
echo "profile: $passed passed, $failed failed"
