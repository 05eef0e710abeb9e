#!/usr/bin/env bash
# examples.sh [BUILD_DIR] - the library quick start (examples/quickstart.c, issue 32): it
# compiles with the project's warning set against BUILD_DIR's static library and the public
# header alone, runs, prints examples/quickstart.out byte for byte, and docs/library.md shows
# the same source.  Prints "examples: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
bdir=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { if [ "$1" = 0 ]; then passed=$((passed + 1)); else echo "FAIL examples $2"; failed=$((failed + 1)); fi; }
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude examples/quickstart.c "$bdir/libdnnpar.a" \
    -ljansson -lprotobuf-c -lm -o "$tmp/quickstart" 2> "$tmp/cc.err"
check $? "quickstart: does not compile: $(head -3 "$tmp/cc.err")"
if [ -x "$tmp/quickstart" ]; then
    "$tmp/quickstart" > "$tmp/out" 2>&1
    check $? "quickstart: exit status $?: $(head -2 "$tmp/out")"
    cmp -s "$tmp/out" examples/quickstart.out
    check $? "quickstart: output differs from examples/quickstart.out: $(diff examples/quickstart.out "$tmp/out" | head -4)"
fi
# docs/library.md's "Quick start" code block is the file itself
awk '/^```c quickstart.c$/ {on = 1; next} on && /^```$/ {exit} on' docs/library.md > "$tmp/doc.c"
cmp -s "$tmp/doc.c" examples/quickstart.c
check $? "docs/library.md's quickstart.c block differs from examples/quickstart.c"
echo "examples: $passed passed, $failed failed"
[ "$failed" = 0 ]
