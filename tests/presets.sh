#!/usr/bin/env bash
# Presets as data (docs/cluster.md, "Presets as data"): the generator
# tools/codegen/gen_presets.c (built as $1/gen/gen_presets by make) turns
# data/presets/presets.json into the tables the library compiles.  Checks:
# the shipped file generates; every preset of the file is one the command
# knows (and no other); each malformed file below is refused with exit 1,
# a message naming the entry and the key, and nothing on stdout.
# Usage: tests/presets.sh BUILD_DIR (the release build: gen/gen_presets,
# dnnpar).  Last line "presets: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
bdir=${1:-build}
gen=$bdir/gen/gen_presets
passed=0 failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL presets: $*"; failed=$((failed + 1)); }

if "$gen" data/presets/presets.json > "$tmp/out.inc" 2> "$tmp/err" && [ -s "$tmp/out.inc" ]; then ok
else bad "data/presets/presets.json does not generate: $(head -2 "$tmp/err")"; fi

# the names in the file are the names the command lists (devices, then nodes)
want=$(python3 -c '
import json, sys
d = json.load(open("data/presets/presets.json"))
print(" ".join([e["name"] for e in d["devices"]] + [e["node"] for e in d["nodes"]]))')
have=$("$bdir/dnnpar" --list-values | awk -F'\t' '$1 == "cluster" {print $2}')
have_sorted=$(tr ' ' '\n' <<< "$have" | sort | tr '\n' ' ')
want_sorted=$(tr ' ' '\n' <<< "$want" | sort | tr '\n' ' ')
if [ "$have_sorted" = "$want_sorted" ]; then ok
else bad "the command lists '$have', the data file holds '$want'"; fi

# malformed files: python edits the shipped one; each must fail naming WHAT
refuse() { # NAME EXPECTED-MESSAGE-PART PYTHON-EDIT
    python3 -c "
import json
d = json.load(open('data/presets/presets.json'))
$3
json.dump(d, open('$tmp/$1.json', 'w'))"
    if "$gen" "$tmp/$1.json" > "$tmp/$1.out" 2> "$tmp/$1.err"; then
        bad "$1: accepted"
    elif [ -s "$tmp/$1.out" ]; then
        bad "$1: refused but wrote $(wc -c < "$tmp/$1.out") bytes"
    elif ! grep -qF -- "$2" "$tmp/$1.err"; then
        bad "$1: message lacks '$2': $(cat "$tmp/$1.err")"
    else ok; fi
}
refuse unknown_key "entry 'a100': key peak_fp8_flops" "d['devices'][5]['peak_fp8_flops'] = 1e15"
refuse missing_key "entry 'v100': key mem_bytes" "del d['devices'][3]['mem_bytes']"
refuse no_source "entry 't4': key source" "[e for e in d['devices'] if e['name'] == 't4'][0].pop('source')"
refuse negative "entry 'h100': key mem_bw_bps" "d['devices'][7]['mem_bw_bps'] = -1"
refuse string_for_number "key peak_flops" "d['devices'][0]['peak_flops'] = '180e12'"
refuse duplicate "duplicate device name" "d['devices'].append(dict(d['devices'][0]))"
refuse node_device "entry 'dgx1': key device" "d['nodes'][0]['device'] = 'v200'"
refuse node_topo "entry 'dgx1': key intra_topo" "d['nodes'][0]['intra_topo'] = 'hypercube'"
refuse node_named_like_device "entry 'a100': key node" "d['nodes'][2]['node'] = 'a100'"
refuse top_level "format" "d['format'] = 'dnnpar-cluster'"
printf '{"format": "dnnpar-presets", "version": 1, "devices": [' > "$tmp/trunc.json"
if "$gen" "$tmp/trunc.json" > "$tmp/trunc.out" 2> "$tmp/trunc.err" || [ -s "$tmp/trunc.out" ] ||
   ! grep -q "trunc.json:1:" "$tmp/trunc.err"; then bad "a truncated file: $(cat "$tmp/trunc.err")"
else ok; fi

echo "presets: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
