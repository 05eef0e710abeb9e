#!/usr/bin/env bash
# Exit statuses (docs/cli.md, first section): 0 success, 2 for every input
# problem (bad option, unknown name, unreadable or malformed input file,
# a request no plan satisfies), 1 for runtime failures (an output that
# cannot be written).  Each case also needs a one-line message on stderr
# (none on success).  Usage: tests/exitcodes.sh BUILD_DIR
bin=${1:-build-test}/dnnpar
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { # want command...
    local want=$1; shift
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq "$want" ] && { [ "$want" -eq 0 ] || [ "$lines" -ge 1 ]; } &&
       ! grep -q 'runtime error\|AddressSanitizer' "$tmp/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL exit status $rc (want $want): dnnpar $*"; head -3 "$tmp/err"
    fi
}
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
echo "exitcodes: $pass passed, $fail failed"
