#!/usr/bin/env bash
# valgrind.sh [BUILD_DIR [NAME...]] - `make valgrind`: the golden CLI tests
# (tests/golden, as tests/run.sh runs them) with the release binary of
# BUILD_DIR under valgrind memcheck (--leak-check=full, --error-exitcode=99,
# one log per process); NAMEs pick goldens.  valgrind is called by its
# absolute path, so tests that narrow PATH still run under it.  A test fails on a wrong status or output, or on
# any memcheck report.  Slow (minutes), so not part of `make test`.  Ends
# with "valgrind: N passed, N failed (R dnnpar runs, E with memcheck errors)".
set -u
bdir=${1:-build}
cd "$(dirname "$0")/.."
vg=$(command -v valgrind) || { echo "valgrind: not installed (Debian package valgrind)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/logs"
real="$(cd "$bdir" && pwd)/dnnpar"
cat > "$tmp/bin/dnnpar" << WRAP
#!/bin/sh
exec "$vg" -q --error-exitcode=99 --leak-check=full --log-file="$tmp/logs/%p.log" "$real" "\$@"
WRAP
chmod +x "$tmp/bin/dnnpar"

passed=0
failed=0
shift
sel=("$@")
if [ ${#sel[@]} -eq 0 ]; then
    sel=(tests/golden/*.cmd)
else
    sel=("${sel[@]/#/tests/golden/}")
    sel=("${sel[@]/%/.cmd}")
fi
for cmdf in "${sel[@]}"; do
    name=${cmdf%.cmd}
    want_rc=0
    [ -f "$name.rc" ] && want_rc=$(cat "$name.rc")
    rm -rf "$tmp/work" "$tmp/logs"/*
    mkdir -p "$tmp/work"
    PATH="$tmp/bin:$PATH" TMPDIR_GOLD="$tmp/work" bash -c "$(cat "$cmdf")" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    runs=$(ls "$tmp/logs" | wc -l)
    total_runs=$((${total_runs:-0} + runs))
    bad=$(find "$tmp/logs" -type f -size +0 | wc -l)
    bad_runs=$((${bad_runs:-0} + bad))
    if [ "$rc" = "$want_rc" ] && cmp -s "$tmp/out" "$name.out" && [ "$bad" -eq 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL valgrind $(basename "$name"): status $rc (want $want_rc), $bad of $runs runs with memcheck reports"
        cmp -s "$tmp/out" "$name.out" || diff -u "$name.out" "$tmp/out" | head -n 10
        find "$tmp/logs" -type f -size +0 -exec head -n 30 {} \; | head -n 60
    fi
done
echo "valgrind: $passed passed, $failed failed (${total_runs:-0} dnnpar runs, ${bad_runs:-0} with memcheck errors)"
[ "$failed" -eq 0 ]
