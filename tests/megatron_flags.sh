#!/usr/bin/env bash
# tests/megatron_flags.sh BUILD_DIR: every flag `dnnpar export --format
# megatron` writes is one of Megatron-LM's own arguments, and where
# Megatron-LM fixes the choices (--normalization, --recompute-granularity,
# ...) its value is one of them (issue 32).  The argument list is recorded
# in tests/data/megatron_flags.txt from Megatron-LM's source
# (tools/megatron_flags.py names the commit), so no Megatron-LM is needed.
# Prints a FAIL line per bad flag and last "megatron-flags: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
bin=${1:-build}/dnnpar
list=tests/data/megatron_flags.txt
passed=0; failed=0
# exports that between them write every flag the exporter knows
cases=(
    "gpt3-175b --cluster 8xdgx-a100-80g --batch 64 --precision fp16 --config tp=8,pp=8,microbatch=1,interleave=3,recompute=selective,seq_par=1"
    "llama2-13b --cluster 4xdgx-a100+4xdgx1 --batch 512 --precision fp16"
    "llama2-70b --cluster 16xdgx-a100-80g --batch 256 --precision bf16 --config tp=8,pp=4,dp=4,microbatch=1,recompute=full,zero=1"
    "gpt2 --cluster 1xdgx-a100 --batch 16 --config tp=2,pp=2,dp=2,microbatch=2,layers=5:7"
    "bert-large --cluster 1xdgx-a100 --batch 64 --precision bf16"
)
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    if ! out=$("$bin" export $c --format megatron 2>&1); then
        echo "FAIL megatron-flags: export $c: $out" | head -3; failed=$((failed + 1)); continue
    fi
    while read -r flag value; do
        case "$flag" in --*) ;; *) continue ;; esac
        entry=$(grep -E -- "^$flag( |\$)" "$list")
        if [ -z "$entry" ]; then
            echo "FAIL megatron-flags: $flag (export $c) is not a Megatron-LM argument"
            failed=$((failed + 1)); continue
        fi
        choices=${entry#"$flag"}
        if [ -n "$choices" ] && ! printf '%s\n' $choices | grep -qxF -- "$value"; then
            echo "FAIL megatron-flags: $flag $value (export $c): Megatron-LM takes$choices"
            failed=$((failed + 1)); continue
        fi
        passed=$((passed + 1))
    done <<< "$out"
done
echo "megatron-flags: $passed passed, $failed failed"
exit $failed
