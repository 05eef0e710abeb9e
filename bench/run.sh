#!/usr/bin/env bash
# make bench: build the benchmarks against the release objects and run them.
# BENCH_BUILD_ONLY=1 (run by make test, check bench-build): build, do not run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
for src in bench/bench_*.c; do
    exe=build/bench/$(basename "${src%.c}")
    ${CC:-cc} -std=c11 -O2 -g -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc \
        -Wall -Wextra -Werror "$src" build/libdnnpar-internal.a $(pkg-config --libs jansson 2>/dev/null || echo -ljansson) \
        -lprotobuf-c -lm -lpthread -o "$exe"
    if [ -n "${BENCH_BUILD_ONLY:-}" ]; then continue; fi
    echo "== $exe"
    "$exe"
done
if [ -n "${BENCH_BUILD_ONLY:-}" ]; then echo "benchmarks built"; exit 0; fi
echo "== plan time against the commit before the default model"
bash bench/plan_vs_base.sh
echo "== reproduce accpar (whole Figs. 5-8), median of 11 runs"
for i in $(seq 11); do
    s=$(date +%s.%N); ./build/dnnpar reproduce accpar > /dev/null; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
done | sort -n | sed -n 6p | awk '{printf "%.3f s\n", $1}'
