#!/usr/bin/env bash
# Plan time of the zoo on 256 devices, this tree against an earlier commit
# (BASE, default: the last commit before the default performance model),
# both built here and run alternately in one run; medians and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${BASE:-0c710f1}
dir=build/bench-base
if [ ! -f "$dir/build/libdnnpar.a" ] || [ "$(cat "$dir/.rev" 2>/dev/null)" != "$base" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    git archive "$base" | tar -x -C "$dir"
    make -s -C "$dir" build/libdnnpar.a >/dev/null
    echo "$base" > "$dir/.rev"
fi
libs="$(pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lprotobuf-c -lm"
flags="-std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror"
${CC:-cc} $flags -Iinclude bench/plan_time.c build/libdnnpar.a $libs -o build/bench/plan_time_new
${CC:-cc} $flags -I"$dir/include" bench/plan_time.c "$dir/build/libdnnpar.a" $libs -o build/bench/plan_time_base
echo "plan time, zoo on 256 devices, batch 512, all levels: this tree vs $base (median of 7 alternating runs, ms)"
printf '%-22s %-7s %10s %10s %7s\n' cluster search base new ratio
for spec in 256xtpu-v3 128xtpu-v2+128xtpu-v3; do
    for s in dp accpar; do
        n=(); b=()
        for r in 1 2 3 4 5 6 7; do
            b+=("$(build/bench/plan_time_base "$spec" "$s")")
            n+=("$(build/bench/plan_time_new "$spec" "$s")")
        done
        mb=$(printf '%s\n' "${b[@]}" | sort -g | sed -n 4p)
        mn=$(printf '%s\n' "${n[@]}" | sort -g | sed -n 4p)
        printf '%-22s %-7s %10.3f %10.3f %6.2fx\n' "$spec" "$s" "$mb" "$mn" "$(echo "$mn / $mb" | bc -l)"
    done
done
