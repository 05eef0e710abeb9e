#!/usr/bin/env bash
# The docs checks, against the binary's own tables (tools/dnnpar/main.c's
# command table, `dnnpar --list-commands`, and each command's option spec,
# `dnnpar CMD [ARGS] --list-options`):
#   options   every option each command accepts is named in its --help and
#             in its section of docs/cli.md (or docs/cli.md's conventions,
#             which apply to every command), and every command has a section;
#   examples  every command line in a README.md or docs/*.md fenced code
#             block that starts with `dnnpar `, `build/dnnpar `,
#             `./build/dnnpar ` (each optionally after a `$ ` prompt) runs
#             with exit status 0, each one test; synopses (with [ ] or
#             CAPITAL placeholders) and the lines in SKIP are skipped, each
#             skip printed with its reason.  With DNNPAR_DOCS_OUT set to a
#             directory, each example's output (standard output and error)
#             is kept there as NNN.out for tests/units.sh.
# usage: tests/docs/check.sh PATH/TO/dnnpar.  Prints PASS/FAIL/SKIP lines and
# last "docs: N passed, N failed (...)"; the exit status is the number of
# failed checks.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.."
root=$(pwd)
fails=0
work=$(mktemp -d)
# run-torch's interpreter, warm (tests/torch/warm.sh: torch imported once
# while the options are checked, each example's run forked from it)
py=${DNNPAR_PYTHON:-/usr/bin/python3}
# shellcheck source=tests/torch/warm.sh
. tests/torch/warm.sh
trap 'warm_stop; rm -rf "$work"' EXIT
[ -x "$py" ] && warm_start "$work" "$py"

# ---- options -------------------------------------------------------------
# Listing options and help allocates next to nothing: skip the leak check's
# exit-time scan there (the goldens run --help with it).
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
# Variants: a command and the arguments that select another option spec.
variants() {
    "$bin" --list-commands | cut -f1 | while read -r c; do
        case $c in
        reproduce) printf '%s\n' "reproduce accpar" "reproduce pase" "reproduce synergyflow" \
                                 "reproduce mpt" ;;
        plan) printf '%s\n' "plan" "plan --search pase" ;;
        *) echo "$c" ;;
        esac
    done
}
# The docs/cli.md section of command $1: from its "## " heading (which may
# name several commands, comma-separated) to the next one.
section() {
    awk -v c="$1" '/^## /{ n = split(substr($0, 4), h, /, */); on = 0
                            for (i = 1; i <= n; i++) if (h[i] == c) on = 1 }
                   on' docs/cli.md
}
conventions=$(awk '/^## /{exit} {print}' docs/cli.md)
missing=""
while read -r v; do
    [ -n "$v" ] || continue
    # shellcheck disable=SC2086
    set -- $v
    c=$1
    sec=$(section "$c")
    [ -n "$sec" ] || { missing="$missing
  docs/cli.md has no section for '$c'"; continue; }
    help=$("$bin" "$@" --help 2>&1)
    for o in $("$bin" "$@" --list-options | sed 's/=$//'); do
        ho=$o; [ ${#o} -eq 3 ] && ho=${o#-}   # a one-letter option is shown as -x
        [ "$o" = --help ] || grep -q -- "$ho\b" <<<"$help" ||
            missing="$missing
  '$v --help' does not mention $o"
        { grep -q -- "$o\b" <<<"$sec" || grep -q -- "$o\b" <<<"$conventions"; } ||
            missing="$missing
  docs/cli.md section '$c' does not mention $o"
    done
done < <(variants)
if [ -z "$missing" ]; then echo "PASS docs-options"
else echo "FAIL docs-options:$missing"; fails=$((fails + 1)); fi

# ---- examples ------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS%:detect_leaks=0}
# Lines not run, each with its reason (matched as fixed strings); every
# skip is printed with its reason.
SKIP=(
    "make run|installs and rebuilds (make run itself); its command, reproduce accpar, is golden reproduce_accpar"
    "reproduce accpar|run in full by goldens reproduce_accpar and reproduce_accpar_json"
    "reproduce pase|PaSE's full evaluation takes minutes; golden pase_reproduce_json runs it to p = 8"
    "reproduce synergyflow|run in full by goldens reproduce_synergyflow and reproduce_synergyflow_json"
    "reproduce mpt|run in full by goldens mpt_reproduce and mpt_reproduce_json"
    "dev.json|dnnpar profile measures this machine (about 15 s); tests/profile/run.sh runs it, its --check and --cluster FILE"
)
if [ -n "${warm_pid:-}" ] && warm_ready; then  # it imported torch
    export DNNPAR_PYTHON=$warm_stub
elif ! "$py" -c 'import torch' >/dev/null 2>&1; then
    SKIP+=("run-torch|needs torch (Debian's python3-torch is not installed)")
fi
skip_reason() {
    local s
    for s in "${SKIP[@]}"; do
        [[ $1 == *"${s%%|*}"* ]] && { echo "${s#*|}"; return; }
    done
    if [[ $1 == *"["* ]]; then echo "a synopsis (optional parts in [ ]), not an example"; return; fi
    local ph
    ph=$(grep -oE '(^| )[A-Z][A-Z_]+([ |,.]|$)' <<<"$1" | head -n1 | tr -d ' |,.')
    [ -n "$ph" ] && echo "a synopsis (placeholder $ph), not an example"
}
mkdir -p "$work/repo/build" "$work/bin"
ln -s "$bin" "$work/bin/dnnpar"; ln -s "$bin" "$work/repo/build/dnnpar"
for d in docs tests scripts bench data; do ln -s "$root/$d" "$work/repo/$d"; done
# Each example is its own test, run in order in one scratch directory
# ($work/repo: files an example writes, such as plan.json, are there for
# the next one, and nothing lands in the repository).
ran=0; skipped=0; efail=0
while IFS=$'\t' read -r file line; do
    cmdline=${line%%#*}                          # drop a trailing comment
    cmdline=$(sed -e 's/ *$//' -e 's/^\$ *//' <<<"$cmdline")
    why=$(skip_reason "$cmdline")
    if [ -n "$why" ]; then
        skipped=$((skipped + 1)); echo "SKIP docs-example $file: '$cmdline': $why"; continue
    fi
    ran=$((ran + 1))
    if (cd "$work/repo" && PATH="$work/bin:$PATH" bash -c "$cmdline" >"$work/out" 2>&1); then
        echo "PASS docs-example $file: '$cmdline'"
    else
        efail=$((efail + 1))
        echo "FAIL docs-example $file: '$cmdline': $(head -c 300 "$work/out")"
    fi
    [ -n "${DNNPAR_DOCS_OUT:-}" ] && cp "$work/out" "$DNNPAR_DOCS_OUT/$(printf '%03d' "$ran").out"
done < <(for f in README.md docs/*.md; do
             awk -v F="$f" '/^```/ { c = !c; next }
                 c && /^ *(\$ +)?((\.\/)?(build\/)?dnnpar |make run)/ { sub(/^ */, ""); print F "\t" $0 }' "$f"
         done)
[ "$ran" -gt 0 ] || { echo "FAIL docs-examples: no example found"; efail=$((efail + 1)); }
echo "docs: $((ran - efail + 1 - fails)) passed, $((efail + fails)) failed ($ran examples run, $skipped skipped)"
exit $((efail + fails))
