#!/usr/bin/env bash
# Exit statuses (docs/cli.md, first section): 0 success, 2 for every input
# problem (bad option, unknown name, unreadable or malformed input file,
# a request no plan satisfies), 1 for runtime failures (an output that
# cannot be written, standard output full).  Each case also needs a
# message on stderr (none on success); most also a message naming what
# and where (checkm).  Usage: tests/exitcodes.sh BUILD_DIR
bin=$(cd "${1:-build-test}" && pwd)/dnnpar
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
# check WANT COMMAND...: exit status WANT, and unless 0 a message on stderr.
# checkm WANT WHAT COMMAND...: also the message (the stderr line starting
# "dnnpar"; warnings may precede it) names WHAT (a path, "standard output", a name: where the
# problem is), fixed string.
# checkfull COMMAND...: standard output is /dev/full: exit 1 and a message
# naming standard output.
out_to=$tmp/out
run_check() { # want what command...
    local want=$1 what=$2; shift 2
    "$bin" "$@" >"$out_to" 2>"$tmp/err"
    local rc=$? lines ok=1
    lines=$(wc -l <"$tmp/err")
    [ "$rc" -eq "$want" ] || ok=0
    [ "$want" -eq 0 ] || [ "$lines" -ge 1 ] || ok=0
    grep -q 'runtime error\|AddressSanitizer' "$tmp/err" && ok=0
    if [ -n "$what" ]; then
        grep '^dnnpar' "$tmp/err" | grep -qF -- "$what" || ok=0
    fi
    if [ "$ok" = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL exit status $rc (want $want${what:+, a message naming '$what'}): dnnpar $*"
        head -3 "$tmp/err"
    fi
}
check() { run_check "$1" "" "${@:2}"; }
checkm() { run_check "$@"; }
checkfull() { out_to=/dev/full; run_check 1 "standard output" "$@"; out_to=$tmp/out; }
check 0 info lenet
check 2 info resnet51
check 2 info /nonexistent/model.onnx
check 2 info "$tmp"
check 2 plan lenet --cluster 4xa100 --batch -1
check 2 plan lenet --cluster 4xa101
check 2 plan lenet --cluster /nonexistent/cluster.json
check 2 plan lenet --cluster 4xa100 --search greedy
check 2 plan lenet --cluster 4xa100 --memory-limit 1KB
check 2 plan lenet --cluster 4xa100 --bogus
check 2 plan gpt2 --cluster 4xa100 --search 3d --memory-limit 1MB
check 2 simulate --strategy /nonexistent/s.json
check 2 simulate gpt2 --cluster 4xa100 --batch 8 --config tp=4,pp=2
check 2 validate /nonexistent/runs.csv
check 2 scale lenet --cluster dgx-a100 --nodes 0
check 2 comm allreduce --cluster 4xa100 --bytes x
check 2 export lenet --cluster 4xa100 --format onnx
check 2 synergy /nonexistent/model.onnx
check 2 mpt no-such-layer
check 2 run-torch lenet /nonexistent/s.json --ranks 2
check 2 reproduce nothing
check 2 nosuchcommand
check 1 plan lenet --cluster 4xa100 --json /nonexistent/dir/plan.json
check 1 info lenet --dot /nonexistent/dir/g.dot
check 1 export lenet --cluster 4xa100 --format jax -o /nonexistent/dir/x.py
check 1 export-cluster 4xa100 -o /nonexistent/dir/c.json

# Missing input files: exit 2, the message names the file.
for c in info plan compare scale export export-model synergy mpt; do
    case $c in
    plan|compare) extra=(--cluster 4xa100) ;;
    export) extra=(--cluster 4xa100 --format jax) ;;
    scale) extra=(--cluster dgx-a100 --nodes 2) ;;
    *) extra=() ;;
    esac
    checkm 2 /nonexistent/model.onnx "$c" /nonexistent/model.onnx "${extra[@]}"
done
checkm 2 /nonexistent/model info /nonexistent/model
checkm 2 /nonexistent/cluster.json plan lenet --cluster /nonexistent/cluster.json
checkm 2 /nonexistent/cluster.json comm allreduce --cluster /nonexistent/cluster.json --bytes 1M
checkm 2 /nonexistent/cluster.json export-cluster /nonexistent/cluster.json
checkm 2 /nonexistent/s.json simulate --strategy /nonexistent/s.json
checkm 2 /nonexistent/s.json export lenet --cluster 4xa100 --format jax --strategy /nonexistent/s.json
checkm 2 /nonexistent/s.json run-torch lenet /nonexistent/s.json --ranks 2
checkm 2 /nonexistent/runs.csv validate /nonexistent/runs.csv
checkm 2 /nonexistent/h.json mpt late-2 --hardware /nonexistent/h.json
checkm 2 "$tmp" info "$tmp"

# Output files that cannot be written: exit 1, the message names the file.
checkm 1 /nonexistent/d/p.json plan lenet --cluster 4xa100 --json /nonexistent/d/p.json
checkm 1 /nonexistent/d/p.svg plan lenet --cluster 4xa100 --plot /nonexistent/d/p.svg
checkm 1 /nonexistent/d/t.json plan lenet --cluster 4xa100 --trace /nonexistent/d/t.json
checkm 1 /nonexistent/d/g.dot plan lenet --cluster 4xa100 --dot /nonexistent/d/g.dot
checkm 1 /nonexistent/d/i.json info lenet --json /nonexistent/d/i.json
checkm 1 /nonexistent/d/m.json export-model lenet -o /nonexistent/d/m.json
checkm 1 /dev/full plan lenet --cluster 4xa100 --json /dev/full
checkm 1 /dev/full export-model lenet -o /dev/full
checkm 1 /dev/full export-cluster 4xa100 -o /dev/full

# Standard output that cannot be written (/dev/full), every subcommand
# and help: exit 1 with a message, never 0.
"$bin" plan lenet --cluster 4xtpu-v3 --json "$tmp/s.json" >/dev/null 2>&1
checkfull info lenet
checkfull plan lenet --cluster 4xa100
checkfull plan lenet --cluster 4xa100 --search pase
checkfull plan lenet --cluster 4xa100 --json -
checkfull info lenet --dot -
checkfull compare lenet --cluster 4xa100
checkfull simulate --strategy "$tmp/s.json"
checkfull scale lenet --cluster dgx-a100 --nodes 1,2
checkfull comm allreduce --cluster 4xa100 --bytes 1M
checkfull validate tests/data/validate_custom.csv
checkfull export lenet --cluster 4xa100 --format jax
checkfull export-model lenet
checkfull export-cluster 4xa100
checkfull synergy lenet
checkfull mpt late-2
checkfull reproduce mpt
checkfull models
checkfull devices
checkfull run-torch --help
checkfull --help
checkfull plan --help
echo "exitcodes: $pass passed, $fail failed"
