#!/usr/bin/env bash
# make bench: build the benchmarks against the release library and run them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
# The benchmarks time internals (pase_search, pgraph_build, ...), which the
# release libdnnpar.a keeps local (docs/library.md): link them against an
# archive of the same release objects with the symbols left global.
rm -f build/bench/libdnnpar-internal.a
ar rcs build/bench/libdnnpar-internal.a $(find build/obj -name '*.o' | sort)
for src in bench/bench_*.c; do
    exe=build/bench/$(basename "${src%.c}")
    ${CC:-cc} -std=c11 -O2 -g -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc \
        -Wall -Wextra -Werror "$src" build/bench/libdnnpar-internal.a $(pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lprotobuf-c -lm -o "$exe"
    echo "== $exe"
    "$exe"
done
echo "== plan time against the commit before the default model"
bash bench/plan_vs_base.sh
echo "== reproduce accpar (whole Figs. 5-8), median of 11 runs"
for i in $(seq 11); do
    s=$(date +%s.%N); ./build/dnnpar reproduce accpar > /dev/null; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
done | sort -n | sed -n 6p | awk '{printf "%.3f s\n", $1}'
