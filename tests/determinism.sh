#!/usr/bin/env bash
# determinism.sh [BUILD_DIR] - issue 12 item 8 (docs/cli.md): every
# subcommand, run twice and once more under another locale and time zone,
# writes byte-identical standard output, output files and exit status.
# Small, fast cases.  Prints "FAIL determinism NAME" with the difference for
# each case that varies and ends with "determinism: N passed, N failed".
set -u
bin="$(cd "${1:-build-test}" && pwd)/dnnpar"
cd "$(dirname "$0")/.."
# Leaks are the goldens' business; here only bytes count (and LeakSanitizer's
# exit pass costs more than most of these runs).
export ASAN_OPTIONS=detect_leaks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
FIX="$work/fixture"
OUT="$work/out"
mkdir -p "$FIX"
"$bin" plan resnet18 --cluster 4xtpu-v3 --json "$FIX/p.json" > /dev/null

# NAME|arguments ($OUT: the output files' directory, the same path in every
# run, so a path echoed in the report is the same too; $FIX: inputs).
cases=(
    "plan|plan alexnet --cluster 2xtpu-v2+2xtpu-v3 --json \$OUT/p.json --trace \$OUT/t.json --dot \$OUT/p.dot"
    "plan-pase|plan lenet --search pase -p 4 --json \$OUT/p.json"
    "plan-mcmc|plan lenet --search mcmc -p 4 --mcmc-iters 2000"
    "compare|compare lenet --cluster 4xtpu-v3 --json \$OUT/c.json"
    "simulate|simulate --strategy \$FIX/p.json --trace \$OUT/t.json --json \$OUT/s.json"
    "scale|scale resnet18 --cluster dgx-a100 --nodes 1,2,4 --json \$OUT/s.json"
    "comm|comm allreduce --cluster 8xtpu-v3 --bytes 8,1K,1M --json \$OUT/c.json"
    "info|info resnet18 --json \$OUT/i.json --dot \$OUT/i.dot"
    "models|models"
    "devices|devices"
    "profile-check|profile --check tests/data/profile-epyc-onednn.json --json \$OUT/c.json"
    "validate|validate tests/data/validate_custom.csv --json \$OUT/v.json"
    "export|export alexnet --cluster 4xtpu-v3 --format astra -o \$OUT/e.txt"
    "export-model|export-model lenet -o \$OUT/m.json"
    "export-cluster|export-cluster 2xtpu-v2+2xtpu-v3"
    "synergy|synergy dbn-m:2 --simulate --trace \$OUT/t.json --json \$OUT/s.json"
    "mpt|mpt late-2 --json \$OUT/m.json"
    "reproduce|reproduce pase --max-p 4"
)

# run N NAME ARGS...: one run under environment set N into $work/runN.
run() {
    local n=$1
    shift
    rm -rf "$OUT" "$work/run$n"
    mkdir -p "$OUT"
    case $n in
        3) env LC_ALL=C.UTF-8 LANG=C.UTF-8 TZ=Asia/Kolkata "$bin" "$@" > "$work/stdout" 2> /dev/null ;;
        *) env LC_ALL=C LANG=C TZ=UTC "$bin" "$@" > "$work/stdout" 2> /dev/null ;;
    esac
    echo "exit status $?" >> "$work/stdout"
    mv "$OUT" "$work/run$n"
    mv "$work/stdout" "$work/run$n/.stdout"
}

passed=0
failed=0
for c in "${cases[@]}"; do
    name=${c%%|*}
    eval "args=(${c#*|})"
    run 1 "${args[@]}"
    run 2 "${args[@]}"
    run 3 "${args[@]}"
    if ! tail -n 1 "$work/run1/.stdout" | grep -qx 'exit status 0'; then
        failed=$((failed + 1))
        echo "FAIL determinism $name: dnnpar ${args[*]}: $(tail -n 1 "$work/run1/.stdout")"
    elif diff -r "$work/run1" "$work/run2" > "$work/diff" &&
        diff -r "$work/run1" "$work/run3" >> "$work/diff"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL determinism $name: dnnpar ${args[*]}"
        head -n 10 "$work/diff"
    fi
done
echo "determinism: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
