#!/usr/bin/env bash
# Output width (issue 15, "Output"): every line of every golden output
# (tests/golden/*.out) is under 120 columns, counted as a terminal shows
# them (wc -L in a UTF-8 locale), with two kinds of exception:
#   - error lines, "dnnpar CMD: ...": one line per error by the project's
#     rule (the terminal wraps them);
#   - the goldens in EXEMPT, machine-read formats whose lines carry one
#     record or one string each (JSON, ASTRA-sim workload text, DOT), each
#     with its reason.
# PENDING lists the goldens still too wide, to be fixed; an entry of EXEMPT
# or PENDING whose golden is no longer too wide (or no longer exists) is
# stale and fails, so the lists only shrink.
# Usage: tests/width.sh.  Prints one line per failure and a last line
# "width: N passed, N failed" (one check per golden).
set -u
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8
MAX=119

EXEMPT=(
    "mpt_reproduce_json|JSON: a string value is one line"
    "reproduce_synergyflow_json|JSON: a string value is one line"
    "info_alexnet_json|JSON: a string value is one line"
    "compare_resnet18_json|JSON: a string value is one line"
    "export_alexnet_astra|ASTRA-sim workload: one layer record a line (its comments name the layer's collectives)"
    "export_alexnet_uneven_astra|ASTRA-sim workload: one layer record a line"
    "export_resnet18_hetero_astra|ASTRA-sim workload: one layer record a line"
    "export_vgg11_dp_hier_astra|ASTRA-sim workload: one layer record a line"
)
PENDING=(
)

# The widest line of golden $1 that is not an error line.
width() { grep -vE '^dnnpar [a-z-]+: ' "tests/golden/$1.out" | wc -L; }

listed() { # name -> "exempt", "pending" or ""
    local e
    for e in "${EXEMPT[@]}"; do [ "${e%%|*}" = "$1" ] && { echo exempt; return; }; done
    for e in "${PENDING[@]}"; do [ "$e" = "$1" ] && { echo pending; return; }; done
}

pass=0; fail=0
for out in tests/golden/*.out; do
    n=$(basename "$out" .out)
    w=$(width "$n")
    l=$(listed "$n")
    if [ "$w" -le "$MAX" ] && [ -z "$l" ]; then
        pass=$((pass + 1))
    elif [ "$w" -gt "$MAX" ] && [ -n "$l" ]; then
        pass=$((pass + 1))
    elif [ -n "$l" ]; then
        fail=$((fail + 1))
        echo "FAIL width $n: $w columns, within $((MAX + 1)): remove it from ${l^^} in $0"
    else
        fail=$((fail + 1))
        echo "FAIL width $n: a line of $w columns (at most $MAX; $(grep -vE '^dnnpar [a-z-]+: ' "$out" |
              awk -v m="$w" 'length($0) >= m { print "line " NR; exit }'))"
    fi
done
# Entries naming no golden are stale too.
for e in "${EXEMPT[@]%%|*}" "${PENDING[@]}"; do
    [ -f "tests/golden/$e.out" ] && continue
    fail=$((fail + 1)); echo "FAIL width $e: listed in $0 but tests/golden/$e.out does not exist"
done
echo "width: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
