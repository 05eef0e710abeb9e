#!/usr/bin/env bash
# matrix.sh [BUILD_DIR] - issue 10, "every plan usable everywhere": every zoo
# model (`dnnpar models`) and every file of data/onnx, under every
# search (accpar, dp, owt, hypar, pase, mcmc), on 4xa100 at batch 16 (memory limit 100 TB:
# the large language models fit no 4 devices, and the plans are what is checked):
#   plan     writes the strategy (plan --json; --strategy-json for pase, mcmc)
#   simulate simulate --strategy FILE (the model, cluster, batch from FILE)
#   plot     simulate --strategy FILE --plot X.svg (gnuplot; a non-empty svg)
#   dot      simulate --strategy FILE --dot X.dot (a digraph)
#   export   export MODEL --cluster 4xa100 --strategy FILE --format jax (the same memory
#            limit: export refuses a plan over memory, as plan does)
# each a test.  A later step of a failed plan is counted failed too.  The
# (model, search) pairs of KNOWN are real limits of PaSE's iteration space
# (docs/pase.md, "Limits"): their failure prints a "known limitation" line
# and is not counted; if one passes, the line says so (take it off the list).
# Prints "matrix: N passed, N failed".  Runs the release binary of BUILD_DIR
# (the checks are about the plans, not memory: the unit and golden tests
# cover that under the sanitizers).
set -u
bin="$(cd "${1:-build}" && pwd)/dnnpar"
cd "$(dirname "$0")/.."
onnx_dir=${DNNPAR_ONNX_DIR:-data/onnx}  # in the repository (data/onnx/README.md)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
known=0
# model:search -> why it cannot plan (PaSE's iteration space)
declare -A KNOWN=(
    [vit_tiny:pase]="the iteration space loses the residual's axes through nn.MultiheadAttention's reshapes"
    [vit_tiny:mcmc]="the iteration space loses the residual's axes through nn.MultiheadAttention's reshapes"
    [swin_tiny:pase]="the iteration space cannot place torch.roll's concat of two slices (the shifted windows)"
    [swin_tiny:mcmc]="the iteration space cannot place torch.roll's concat of two slices (the shifted windows)"
)

models=$("$bin" models | awk '/^[a-z0-9]/ {print $1}')
n_onnx=0
for f in "$onnx_dir"/*.onnx; do
    [ -f "$f" ] && { models="$models $f"; n_onnx=$((n_onnx + 1)); }
done
if [ "$n_onnx" -eq 0 ]; then
    echo "FAIL matrix: no ONNX files in $onnx_dir (set DNNPAR_ONNX_DIR)"; failed=$((failed + 1))
fi

# check_model M DIR: every search of model M, its files in DIR (its lines on
# standard output, its counts in DIR/counts).  The models are independent:
# DNNPAR_MATRIX_JOBS (default 2) run at a time, their output printed and their
# counts added in the models' order.
check_model() {
    local m=$1 w=$2 mn s id st out sm passed=0 failed=0 known=0
    mkdir -p "$w"
    mn=$(basename "$m" .onnx)
    for s in accpar dp owt hypar pase mcmc; do
        id="$mn-$s"
        st="$w/$id.json"
        if [ "$s" = pase ] || [ "$s" = mcmc ]; then
            out=(--strategy-json "$st")
        else
            out=(--json "$st")
        fi
        if ! "$bin" plan "$m" --search "$s" --cluster 4xa100 --batch 16 --memory-limit 100TB \
                "${out[@]}" \
                > /dev/null 2> "$w/$id.err"; then
            why=${KNOWN[$mn:$s]:-}
            if [ -n "$why" ]; then
                echo "matrix: known limitation $id: $why ($(head -n1 "$w/$id.err"))"
                known=$((known + 1))
            else
                echo "FAIL matrix $id plan: $(head -n2 "$w/$id.err")"
                failed=$((failed + 5))
            fi
            continue
        fi
        [ -n "${KNOWN[$mn:$s]:-}" ] && echo "matrix: $id plans now (known limitation list is stale)"
        # a model file outside the strategy's directory is given again: a
        # strategy file names only zoo models and files beside it
        # (docs/formats.md, "Strategy files are untrusted")
        sm=(); [ -f "$m" ] && sm=("$m")
        if "$bin" simulate --strategy "$st" "${sm[@]}" > "$w/$id.sim" 2> "$w/$id.err" &&
                grep -q "predicted step time" "$w/$id.sim"; then
            passed=$((passed + 1))
        else
            echo "FAIL matrix $id simulate: $(head -n2 "$w/$id.err")"; failed=$((failed + 1))
        fi
        if "$bin" simulate --strategy "$st" "${sm[@]}" --plot "$w/$id.svg" --dot "$w/$id.dot" \
                > /dev/null 2> "$w/$id.err"; then
            if [ -s "$w/$id.svg" ] && grep -q "<svg" "$w/$id.svg"; then
                passed=$((passed + 1))
            else
                echo "FAIL matrix $id plot: no svg"; failed=$((failed + 1))
            fi
            if grep -q "^digraph" "$w/$id.dot"; then
                passed=$((passed + 1))
            else
                echo "FAIL matrix $id dot: no digraph"; failed=$((failed + 1))
            fi
        else
            echo "FAIL matrix $id plot/dot: $(head -n2 "$w/$id.err")"; failed=$((failed + 2))
        fi
        if "$bin" export "$m" --cluster 4xa100 --strategy "$st" --format jax --memory-limit 100TB \
                > "$w/$id.py" 2> "$w/$id.err" && [ -s "$w/$id.py" ]; then
            passed=$((passed + 1))
        else
            echo "FAIL matrix $id export: $(head -n2 "$w/$id.err")"; failed=$((failed + 1))
        fi
        passed=$((passed + 1)) # the plan itself
        rm -f "$w/$id".*
    done
    echo "$passed $failed $known" > "$w/counts"
}
jobs_max=${DNNPAR_MATRIX_JOBS:-2}
n=0
for m in $models; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    n=$((n + 1))
    check_model "$m" "$work/m$n" > "$work/m$n.log" 2>&1 &
done
wait
n=0
for m in $models; do
    n=$((n + 1))
    cat "$work/m$n.log"
    if [ -f "$work/m$n/counts" ] && read -r p f k < "$work/m$n/counts"; then
        passed=$((passed + p)); failed=$((failed + f)); known=$((known + k))
    else
        echo "FAIL matrix $(basename "$m" .onnx): its checks ended early"; failed=$((failed + 1))
    fi
done
echo "matrix: $known known limitations (not counted)"
echo "matrix: $passed passed, $failed failed"
