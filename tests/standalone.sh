#!/usr/bin/env bash
# standalone.sh - issue 32, "the repository does not stand alone": everything
# the build, the tests, the README and the docs read is in the repository.
#   references  no file of the repository (git ls-files; every file outside
#               build directories without git) names the project's shared
#               folder beside the checkout or its absolute path, except the
#               copied-data READMEs, which state where their files came from
#   sha256 DIR  each data folder with a README.md (data/*/, data/*/*/) lists
#               the sha256 of every other file in it, and the files match
# Prints "standalone: N passed, N failed".  Run from anywhere.
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0

# The patterns are written so that this file does not match them itself.
pat='\.\./share[d]\b|/work/share[d]\b'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files)
else
    files=$(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||')
fi
readmes=$(ls data/*/README.md data/*/*/README.md 2>/dev/null)
hits=$(printf '%s\n' "$files" | grep -vxF -f <(printf '%s\n' $readmes) |
       tr '\n' '\0' | xargs -0 grep -IHnE "$pat" 2>/dev/null || true)
if [ -z "$hits" ]; then passed=$((passed + 1))
else
    echo "FAIL standalone references: files read from outside the repository (copy the data into"
    echo "data/ with a README.md stating provenance, as data/onnx/README.md does):"
    printf '%s\n' "$hits" | head -n 20
    failed=$((failed + 1))
fi

for r in $readmes; do
    d=$(dirname "$r")
    listed=$(grep -E '^[0-9a-f]{64}  [^ /]+$' "$r")
    bad=""
    if [ -z "$listed" ]; then
        bad="no sha256 lines in $r"
    else
        out=$(cd "$d" && printf '%s\n' "$listed" | sha256sum -c --quiet 2>&1) || bad="$out"
        for f in "$d"/*; do
            b=$(basename "$f")
            [ "$b" = README.md ] || [ -d "$f" ] && continue
            printf '%s\n' "$listed" | grep -qE "^[0-9a-f]{64}  $b\$" ||
                bad="$bad${bad:+$'\n'}$b is not listed in $r"
        done
    fi
    if [ -z "$bad" ]; then passed=$((passed + 1))
    else echo "FAIL standalone sha256 $d:"; printf '%s\n' "$bad" | head -n 10; failed=$((failed + 1)); fi
done
[ -n "$readmes" ] || { echo "FAIL standalone: no data/*/README.md"; failed=$((failed + 1)); }
echo "standalone: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
