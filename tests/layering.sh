#!/usr/bin/env bash
# The include graph between the folders of src/ (README.md, "Layout"):
# each folder is a layer, and a file may include headers of its own folder,
# of a lower layer, and dnnpar.h; never of a higher layer or of another
# folder of its own layer.  From the bottom:
#
#   0 core                      errors, allocator, text helpers
#   1 hw, model                 clusters; graphs, zoo, importers
#   2 topo                      which links a set of devices spans
#   3 net                       collectives on those links
#   4 perf, cost                device model; AccPar's cost model
#   5 plan                      strategies: the decided device tree, the layer table
#   6 sim                       step simulator (lowers a plan/ strategy), Megatron-LM
#                               configurations
#   7 search                    planners (search/pase is part of search)
#   8 report                    plots, exports, validation
#   9 arch/mpt, arch/synergyflow  the paper reproductions (each its own folder)
#
# src/topo includes nothing of src/ but its own headers (topology.h: "it
# includes only dnnpar.h"), so any program can read the machine.
#
# KNOWN lists the upward includes that exist today, each "file header": the
# check fails on any other upward include, and on a KNOWN entry that no
# longer occurs (remove it from the list once its file is fixed).
#
# Symbols (issue 34): the same layers hold for what the code calls, not only
# for what it includes (a call through dnnpar.h's declarations is an include
# of dnnpar.h).  For every object of the release build (BUILD_DIR/obj/src/,
# `make` first; objects whose source is gone are ignored), each undefined
# symbol it references (nm -u) that another folder's object defines (nm -g
# --defined-only) must be defined in a lower layer, or in a folder of the
# same layer: a FAIL line "src/model/zoo.o calls dnp_x (src/search/y.o)"
# otherwise ("uses" for data).  A call made through a function pointer
# (something registered from above) is no reference and passes.
# KNOWN_SYMBOLS lists the exceptions, each "object symbol" with its reason;
# an entry that no longer occurs fails as a KNOWN one does.
#
# usage: tests/layering.sh [BUILD_DIR] (default build).  Prints a FAIL line
# per violation and last "layering: N passed, N failed" (one check per file
# of src/, one per object and one per KNOWN and KNOWN_SYMBOLS entry); the
# exit status is the number of failed checks.
set -u
cd "$(dirname "$0")/.."
bdir=${1:-build}

KNOWN="
"
# Empty since issue 34: the simulator lowers plan/strategy.h's strategy
# (search/plan.c: plan_lower) instead of reading the search's plan, and
# the PaSE report's text buffer is core/rbuf.h.

# "object symbol" (see above): none today.
KNOWN_SYMBOLS="
"

layer() {
    case $1 in
    core) echo 0 ;;
    hw | model) echo 1 ;;
    topo) echo 2 ;;
    net) echo 3 ;;
    perf | cost) echo 4 ;;
    plan) echo 5 ;;
    sim) echo 6 ;;
    search) echo 7 ;;
    report) echo 8 ;;
    arch/*) echo 9 ;;
    *) echo "" ;;
    esac
}

# The folder of a path under src/: its first component, arch/NAME for arch.
folder() {
    local p=${1#src/}
    local top=${p%%/*}
    if [ "$top" = arch ]; then
        local rest=${p#arch/}
        echo "arch/${rest%%/*}"
    else
        echo "$top"
    fi
}

passed=0
failed=0
seen=""
while IFS= read -r f; do
    from=$(folder "$f")
    lf=$(layer "$from")
    if [ -z "$lf" ]; then
        echo "FAIL layering: $f: folder '$from' has no layer (add it to tests/layering.sh)"
        failed=$((failed + 1))
        continue
    fi
    bad=""
    while IFS= read -r hdr; do
        [ -n "$hdr" ] || continue
        [ "$hdr" = dnnpar.h ] && continue
        case $hdr in */*) ;; *) continue ;; esac # a header beside the file
        [ -f "src/$hdr" ] || continue            # not one of src/'s
        to=$(folder "src/$hdr")
        [ "$to" = "$from" ] && continue
        lt=$(layer "$to")
        if [ -n "$lt" ] && [ "$lt" -lt "$lf" ] && [ "$from" != topo ]; then
            continue
        fi
        if printf '%s\n' "$KNOWN" | grep -qxF "$f $hdr"; then
            seen="$seen$f $hdr"$'\n'
            continue
        fi
        bad="$bad  $f ($from, layer $lf) includes $hdr ($to, layer ${lt:-?})"$'\n'
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/p' "$f")
    if [ -z "$bad" ]; then
        passed=$((passed + 1))
    else
        echo "FAIL layering: an include goes up or across the layers:"
        printf '%s' "$bad"
        failed=$((failed + 1))
    fi
done < <(find src -name '*.[ch]' | LC_ALL=C sort)

# ---- symbols ------------------------------------------------------------
objdir=$bdir/obj
objs=()
if [ -d "$objdir/src" ]; then
    while IFS= read -r o; do
        rel=${o#"$objdir"/}
        [ -f "${rel%.o}.c" ] && objs+=("$rel")
    done < <(find "$objdir/src" -name '*.o' | LC_ALL=C sort)
fi
if [ "${#objs[@]}" -eq 0 ]; then
    echo "FAIL layering: no objects in $objdir/src (build them first: make)"
    failed=$((failed + 1))
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # "symbol type object" for every global symbol an object defines, then
    # "object symbol" for every one it references
    (cd "$objdir" && nm -A -g --defined-only "${objs[@]}") |
        awk '{ sub(/:.*/, "", $1); print $3, $2, $1 }' | LC_ALL=C sort -k1,1 -u > "$tmp/defs"
    (cd "$objdir" && nm -A -u "${objs[@]}") |
        awk '{ sub(/:.*/, "", $1); print $1, $NF }' > "$tmp/refs"
    # "object symbol type definer" for every reference to another object's symbol
    awk 'NR == FNR { type[$1] = $2; def[$1] = $3; next }
         ($2 in def) && def[$2] != $1 { print $1, $2, type[$2], def[$2] }' \
        "$tmp/defs" "$tmp/refs" > "$tmp/edges"
    bad_objs=""
    while read -r o sym type d; do
        from=$(folder "$o")
        to=$(folder "$d")
        [ "$to" = "$from" ] && continue
        lf=$(layer "$from")
        lt=$(layer "$to")
        [ -n "$lf" ] && [ -n "$lt" ] && [ "$lt" -le "$lf" ] && continue
        if printf '%s\n' "$KNOWN_SYMBOLS" | grep -qxF "$o $sym"; then
            seen="$seen$o $sym"$'\n'
            continue
        fi
        case $type in T | t | W | w | i) verb=calls ;; *) verb=uses ;; esac
        echo "FAIL layering: $o ($from, layer ${lf:-?}) $verb $sym ($d: $to, layer ${lt:-?})"
        bad_objs="$bad_objs$o"$'\n'
    done < "$tmp/edges"
    n_bad=$(printf '%s' "$bad_objs" | LC_ALL=C sort -u | grep -c . || true)
    passed=$((passed + ${#objs[@]} - n_bad))
    failed=$((failed + n_bad))
fi

while IFS= read -r k; do
    [ -n "$k" ] || continue
    if printf '%s' "$seen" | grep -qxF "$k"; then
        passed=$((passed + 1))
    else
        echo "FAIL layering: known exception '$k' no longer occurs: remove it from KNOWN"
        failed=$((failed + 1))
    fi
done <<<"$KNOWN
$KNOWN_SYMBOLS"

echo "layering: $passed passed, $failed failed"
exit "$failed"
