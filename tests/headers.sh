#!/usr/bin/env bash
# The public headers (docs/library.md, "Headers"): include/dnnpar.h, the
# umbrella, and every include/dnnpar/*.h.  Checks, one test per header:
#   alone     the header compiles on its own, included twice (its include
#             guard), with -std=c11, the Makefile's warnings and -Werror
#             (`make print-warn`) and nothing but -Iinclude, as a program
#             built against an installed dnnpar includes it;
#   head      it opens with a comment naming it and stating its ownership
#             rule ("Ownership:"), has an include guard no other header uses,
#             and pushes and pops default visibility once each (what it
#             declares is exported, nothing after it);
#   umbrella  dnnpar.h includes it (one more test: dnnpar.h includes nothing
#             else).
# usage: tests/headers.sh [CC] (default cc).  Prints a FAIL line per failure
# and last "headers: N passed, N failed"; the exit status is the failures.
set -u
cd "$(dirname "$0")/.."
cc=${1:-cc}
warn=$(MAKEFLAGS= MFLAGS= MAKELEVEL= make --no-print-directory -s print-warn) || { echo "headers: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
fail() { echo "FAIL headers: $*"; failed=$((failed + 1)); }

umbrella_incs=$(sed -nE 's/^#include "(dnnpar\/[^"]*)"$/\1/p' include/dnnpar.h)
for h in include/dnnpar.h include/dnnpar/*.h; do
    name=${h#include/}
    ok=1
    printf '#include <%s>\n#include <%s>\n' "$name" "$name" > "$tmp/unit.c"
    # shellcheck disable=SC2086
    if ! $cc $warn -Iinclude -fsyntax-only "$tmp/unit.c" 2>"$tmp/err"; then
        fail "$name does not compile on its own:"; head -5 "$tmp/err"; ok=0
    fi
    case $(sed -n 2p "$h") in
    " * $name - "*) ;;
    *) fail "$name: its head comment does not start with ' * $name - '"; ok=0 ;;
    esac
    # its include guard, and no other header of include/, src/ or tools/ uses it
    # (the library's sources include both kinds of header)
    guard=$(sed -nE '0,/^#ifndef/s/^#ifndef ([A-Z0-9_]+)$/\1/p' "$h")
    users=$(grep -rlE "^#(ifndef|define) $guard\$" include src tools --include=*.h | grep -vxF "$h")
    if [ -z "$guard" ] || [ -n "$users" ]; then
        fail "$name: include guard '$guard' missing or also used by $users"; ok=0
    fi
    if ! sed -n '1,/\*\//p' "$h" | grep -q 'Ownership:'; then
        fail "$name: its head comment states no ownership rule ('Ownership:')"; ok=0
    fi
    if [ "$h" != include/dnnpar.h ]; then
        pushes=$(grep -c '^#pragma GCC visibility push(default)$' "$h")
        pops=$(grep -c '^#pragma GCC visibility pop$' "$h")
        if [ "$pushes" != 1 ] || [ "$pops" != 1 ]; then
            fail "$name: visibility pushed $pushes and popped $pops times (once each)"; ok=0
        fi
        if ! printf '%s\n' "$umbrella_incs" | grep -qxF "$name"; then
            fail "dnnpar.h does not include $name"; ok=0
        fi
    fi
    [ "$ok" = 1 ] && passed=$((passed + 1))
done
extra=$(printf '%s\n' "$umbrella_incs" | while IFS= read -r i; do [ -f "include/$i" ] || echo "$i"; done)
other=$(grep -E '^#[[:space:]]*include' include/dnnpar.h | grep -vE '^#include "dnnpar/[a-z0-9_]+\.h"$')
if [ -z "$extra$other" ]; then passed=$((passed + 1))
else fail "dnnpar.h includes what is not a public header: $extra $other"; fi

echo "headers: $passed passed, $failed failed"
exit "$failed"
