#!/usr/bin/env bash
# The install test: `make install` into a temporary prefix, then build
# tests/install/prog.c against it with `cc prog.c $(pkg-config --cflags
# --libs dnnpar)`, linked shared (LD_LIBRARY_PATH) and static, and run it;
# check the installed files (soname links, man page, completion) and that
# `make uninstall` removes them.  Uses build directory $1 (the sanitizer
# build: its objects are -fPIC, so nothing is compiled twice; its
# sanitizer flags, from $1/flags, are added when linking prog.c).
# Prints "PASS install" or "FAIL install: why"; exit status 0 or 1.
set -u
bdir=${1:?build directory}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL install: $*"; exit 1; }

make --no-print-directory -s install-test-build TB="$bdir" PREFIX="$prefix" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; fail "make install-test-build PREFIX=$prefix failed"; }
for f in bin/dnnpar lib/libdnnpar.a lib/libdnnpar.so lib/libdnnpar.so.0.1 include/dnnpar.h \
         lib/pkgconfig/dnnpar.pc share/man/man1/dnnpar.1 \
         share/bash-completion/completions/dnnpar share/zsh/site-functions/_dnnpar \
         share/dnnpar/python/dnnpar_torch/__main__.py share/doc/dnnpar/LICENSE; do
    [ -e "$prefix/$f" ] || fail "$f not installed"
done
[ "$(readlink "$prefix/lib/libdnnpar.so.0.1")" = libdnnpar.so.0.1.0 ] || fail "libdnnpar.so.0.1 link"
[ "$(readlink "$prefix/lib/libdnnpar.so")" = libdnnpar.so.0.1 ] || fail "libdnnpar.so link"
# before 1.0 the soname carries major.minor (docs/library.md "Versions")
objdump -p "$prefix/lib/libdnnpar.so.0.1.0" | grep -q 'SONAME *libdnnpar.so.0.1$' || fail "soname"
# the public headers only: the umbrella dnnpar.h and every include/dnnpar/*.h (docs/library.md)
[ "$(ls "$prefix/include" | tr '\n' ' ')" = "dnnpar dnnpar.h " ] || fail "only the public headers are installed"
[ "$(ls "$prefix/include/dnnpar")" = "$(ls include/dnnpar)" ] ||
    fail "include/dnnpar/ installed holds $(ls "$prefix/include/dnnpar" | tr '\n' ' ')"
cmp -s LICENSE "$prefix/share/doc/dnnpar/LICENSE" || fail "share/doc/dnnpar/LICENSE is not the LICENSE"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
san=$(tr ' ' '\n' < "$bdir/flags" | grep '^-fsanitize' | tr '\n' ' ')
[ "$(pkg-config --modversion dnnpar)" = 0.1.0 ] || fail "pkg-config --modversion"
# a sub-header alone, as installed: its own includes are its siblings in dnnpar/
# shellcheck disable=SC2046
printf '#include <dnnpar/pase.h>\n' | cc -std=c11 -Wall -Werror $(pkg-config --cflags dnnpar) \
    -fsyntax-only -x c - 2>"$tmp/err" || { cat "$tmp/err"; fail "<dnnpar/pase.h> alone"; }
static_libs=$(pkg-config --libs --static dnnpar)
for l in -ldnnpar -ljansson -lprotobuf-c -lm; do
    case " $static_libs " in *" $l "*) ;;
        *) fail "pkg-config --libs --static dnnpar lacks $l: '$static_libs'";; esac
done
# 70 ops: `dnnpar info resnet18 --json -` lists 70 layers.
want="version 0.1.0, ops 70, step positive, suggest resnet18"
# shellcheck disable=SC2046,SC2086
cc $san -o "$tmp/prog_shared" tests/install/prog.c $(pkg-config --cflags --libs dnnpar) \
    2>"$tmp/err" || { cat "$tmp/err"; fail "shared link"; }
out=$(LD_LIBRARY_PATH=$prefix/lib "$tmp/prog_shared") || fail "shared program failed"
[ "$out" = "$want" ] || fail "shared program printed '$out'"
ldd "$tmp/prog_shared" | grep -q 'libdnnpar.so.0.1 ' || fail "prog_shared does not use libdnnpar.so.0.1"
# Static: the archive by name, the rest of the static link line from pkg-config.
# shellcheck disable=SC2046,SC2086
cc $san -o "$tmp/prog_static" tests/install/prog.c $(pkg-config --cflags dnnpar) \
    $(pkg-config --libs --static dnnpar | sed 's/-ldnnpar/-l:libdnnpar.a/') \
    2>"$tmp/err" || { cat "$tmp/err"; fail "static link"; }
ldd "$tmp/prog_static" | grep -q libdnnpar && fail "prog_static links libdnnpar.so"
out=$("$tmp/prog_static") || fail "static program failed"
[ "$out" = "$want" ] || fail "static program printed '$out'"
grep -q '^\.TH DNNPAR 1' "$prefix/share/man/man1/dnnpar.1" || fail "man page header"
grep -q '^\.SH COMM' "$prefix/share/man/man1/dnnpar.1" || fail "man page lacks the comm section"
bash -n "$prefix/share/bash-completion/completions/dnnpar" || fail "bash completion syntax"
got=$(bash -c 'source "$1"; COMP_WORDS=(dnnpar plan --se); COMP_CWORD=2; _dnnpar
                echo "${COMPREPLY[*]}"; COMP_WORDS=(dnnpar exp); COMP_CWORD=1; _dnnpar
                echo "${COMPREPLY[*]}"' _ "$prefix/share/bash-completion/completions/dnnpar")
[ "$got" = "--search --seed
export export-model export-cluster" ] || fail "bash completion gives '$got'"
# values: an option's (from dnnpar --list-values) and a model in first place
got=$(bash -c 'source "$1"; COMP_WORDS=(dnnpar plan gpt2 --search p); COMP_CWORD=4; _dnnpar
                echo "${COMPREPLY[*]}"; COMP_WORDS=(dnnpar plan llama3); COMP_CWORD=2; _dnnpar
                echo "${COMPREPLY[*]}"; COMP_WORDS=(dnnpar export x --format d); COMP_CWORD=4
                _dnnpar; echo "${COMPREPLY[*]}"' _ "$prefix/share/bash-completion/completions/dnnpar")
[ "$got" = "pase
llama3-8b llama3-70b
dtensor" ] || fail "bash completion of values gives '$got'"
"$prefix/bin/dnnpar" --version | grep -q '^dnnpar 0.1.0$' || fail "installed binary"
# The installed binary finds its installed executor (not the source tree's):
# with no interpreter it gets as far as starting it.
err=$(DNNPAR_PYTHON=/nonexistent/python3 "$prefix/bin/dnnpar" run-torch lenet \
      tests/torch/lenet-dp2.json --ranks 2 2>&1 >/dev/null)
case $err in *"cannot run /nonexistent/python3"*) ;;
    *) fail "installed run-torch: '$err'";; esac
make --no-print-directory -s uninstall PREFIX="$prefix" >/dev/null 2>&1 || fail "make uninstall"
left=$(find "$prefix" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left $left"
echo "PASS install"
