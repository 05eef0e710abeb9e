#!/usr/bin/env bash
# Units (issue 15, "Output": one unit per table; one meaning of GB):
#   columns  in every golden text output (tests/golden/*.out) and every
#            file in the directories given as arguments (the README and
#            docs examples' outputs, tests/docs/check.sh with
#            DNNPAR_DOCS_OUT), no column of a table mixes time units: in a
#            block of consecutive non-blank lines, two times such as
#            "1.096 ms" and "222.302 us" may not end (right-aligned) or
#            start (left-aligned) at the same character column;
#   bytes    in every C source under src/ and tools/, a statement whose
#            string literals say kB, KB, MB, GB or TB (10^3, 10^6, 10^9,
#            10^12 bytes, docs/cli.md) or that names an identifier *_kb,
#            *_mb or *_gb does not scale by 1024, 2^20 or 2^30 (multiply,
#            divide or shift) unless it also says KiB, MiB or GiB.
# Usage: tests/units.sh [DIR...].  Prints one line per finding and a last
# line "units: N passed, N failed" (one check per output file, one per
# source file).
set -u
cd "$(dirname "$0")/.."
export LC_ALL=C

# The time columns of one text file: one line per mixed column.
cols_awk='
function note(key, unit, line) {
    if ((key in unit_at) && unit_at[key] != unit && !(key in told)) {
        printf "%s:%d: a column (%s) mixes %s (line %d) and %s\n", name, line, key, unit_at[key],
               line_at[key], unit
        told[key] = 1
    }
    if (!(key in unit_at)) { unit_at[key] = unit; line_at[key] = line }
}
/^[[:space:]]*$/ { delete unit_at; delete line_at; delete told; next }
{
    s = $0; off = 0
    while (match(s, /[0-9][0-9.]* (ns|us|ms|s)([^A-Za-z0-9_]|$)/)) {
        tok = substr(s, RSTART, RLENGTH); sub(/[^a-z]$/, "", tok)
        unit = tok; sub(/^[0-9.]* /, "", unit)
        start = off + RSTART; end = start + length(tok) - 1
        note("ending at column " end, unit, FNR)
        note("starting at column " start, unit, FNR)
        off += RSTART + RLENGTH - 1; s = substr(s, RSTART + RLENGTH)
    }
}'

# The byte units of one C file: one line per statement at fault.
bytes_awk='
function check(stmt, line,   lit, s, code, dec, bin, id, pow2) {
    lit = ""; s = stmt
    while (match(s, /"([^"\\]|\\.)*"/)) { lit = lit " " substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) }
    code = stmt; gsub(/"([^"\\]|\\.)*"/, "\"\"", code)
    dec = lit ~ /(^|[^A-Za-z])[kKMGT]B([^A-Za-z]|$)/
    bin = lit ~ /[KMGT]iB/
    id = code ~ /[A-Za-z0-9]_(kb|mb|gb)([^A-Za-z0-9_]|$)/
    pow2 = code ~ /[*\/] *(\(double\))? *(1024|1048576|1073741824)(\.0*)?([^0-9]|$)|(^|[^0-9.])(1024|1048576|1073741824)(\.0*)? *[*\/]|<< *(10|20|30)([^0-9]|$)|>> *(10|20|30)([^0-9]|$)/
    if ((dec || id) && !bin && pow2)
        printf "%s:%d: a decimal byte unit (kB, MB, GB or a *_kb/_mb/_gb name) on a power-of-two quantity (say KiB, MiB, GiB)\n", FILENAME, line
}
FNR == 1 { stmt = ""; incomment = 0 }
{
    l = $0
    if (incomment) { if (l ~ /\*\//) { sub(/.*\*\//, "", l); incomment = 0 } else next }
    gsub(/\/\*([^*]|\*[^\/])*\*\//, "", l)
    if (l ~ /\/\*/) { sub(/\/\*.*/, "", l); incomment = 1 }
    sub(/\/\/.*/, "", l)
    if (l ~ /^[[:space:]]*#/) next
    if (stmt == "") start = FNR
    stmt = stmt " " l
    if (l ~ /[;{}][[:space:]]*$/) { check(stmt, start); stmt = "" }
}'

pass=0; fail=0
outputs=(tests/golden/*.out)
for d in "$@"; do
    [ -d "$d" ] || { echo "FAIL units: $d is not a directory"; fail=$((fail + 1)); continue; }
    for f in "$d"/*; do [ -f "$f" ] && outputs+=("$f"); done
done
for f in "${outputs[@]}"; do
    found=$(awk -v name="$f" "$cols_awk" "$f")
    if [ -z "$found" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL units %s\n' "$found"; fi
done
while IFS= read -r f; do
    found=$(awk "$bytes_awk" "$f")
    if [ -z "$found" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL units %s\n' "$found"; fi
done < <(find src tools -name '*.c' | sort)
echo "units: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
