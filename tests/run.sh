#!/usr/bin/env bash
# Runs the unit tests (and their runner's isolation, tests/unit/runner.sh), the golden CLI tests, the determinism test
# (tests/determinism.sh), the torch executor test (tests/torch/run.sh), the machine profile
# (tests/profile/run.sh), the ASTRA-sim run
# (tests/astra/run.sh, skipped without ASTRA_SIM_BIN), the exit statuses (tests/exitcodes.sh),
# the include and call layers of src/ (tests/layering.sh), the public headers
# (tests/headers.sh), the golden widths (tests/width.sh), the
# standalone check (tests/standalone.sh), the install test (tests/install/run.sh), the
# docs checks (tests/docs/check.sh) and the units (tests/units.sh) of build directory $1 and ends with one
# line "N passed, N failed" over all of them.
#
# A golden test is tests/golden/NAME.cmd (one shell command line; the word
# the dnnpar on PATH is the binary under test), with the expected standard output in
# NAME.out and the expected exit status in NAME.rc (0 if absent).  Set
# UPDATE_GOLDEN=1 to rewrite .out/.rc from the current binary.
#
# The suites run concurrently (docs/testing.md): each is a job, this script
# run again as `run.sh --job NAME BDIR RELDIR`, its output kept in a file
# and printed, with its counts added, in the fixed order below, so the output
# does not depend on which ends first.  DNNPAR_SUITE_JOBS (default 4) jobs
# run at a time, the heaviest started first; the goldens are spread over
# DNNPAR_GOLDEN_JOBS (default 4) of them.  A job still running after
# DNNPAR_SUITE_TIMEOUT seconds (default 1800) is killed and fails with its
# name, a golden after DNNPAR_GOLDEN_TIMEOUT (default 300).
# DNNPAR_SUITE_TIMES=1: a line "time NAME S s (cpu C s, started at T s)" after
# each job's output (its wall and CPU time and its start; jobs overlap), and
# "time total S s" last.
set -u
bdir=${1:-build-test}
rel_dir=${2:-build}
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

passed=0; failed=0
# suite NAME COMMAND...: runs COMMAND (output and errors captured), prints what
# it printed but its summary lines "NAME: N passed, N failed", then the last of
# them, and adds that to the totals; no summary line counts one failure.  With
# SUITE_SHOW set (an extended regular expression), only the lines matching it
# are printed besides the summary.  Leaves the command's exit status in suite_rc
# and its failures in suite_failed.
suite() {
    local name=$1 out line re
    shift
    out=$("$@" 2>&1); suite_rc=$?
    re="^$name: ([0-9]+) passed, ([0-9]+) failed"
    if [ -n "${SUITE_SHOW:-}" ]; then
        printf '%s\n' "$out" | grep -E "$SUITE_SHOW" | grep -Ev "$re" || true
    else
        printf '%s\n' "$out" | grep -Ev "$re" || true
    fi
    line=$(printf '%s\n' "$out" | grep -E "$re" | tail -n1)
    if [[ $line =~ $re ]]; then
        echo "$line"
        suite_failed=${BASH_REMATCH[2]}
        passed=$((passed + BASH_REMATCH[1])); failed=$((failed + suite_failed))
    else
        echo "$name: crashed (status $suite_rc, no summary line)"
        suite_failed=1; failed=$((failed + 1))
    fi
}

# ---- the jobs: job_NAME prints what it checked and counts in passed/failed --

# The unit tests, each in its own process, two at a time (tests/unit/main.c),
# and the runner's isolation of them (tests/unit/runner.sh).
job_unit() {
    suite unit "$bdir/unit_tests"
    [ "$suite_rc" -ne 0 ] && [ "$suite_failed" -eq 0 ] && { echo "unit tests exited $suite_rc"; failed=$((failed + 1)); }
}
job_runner() { suite runner bash tests/unit/runner.sh "$bdir"; }
# The heavy sweeps over every case, in their release twin (tests/unit/test.h,
# "Sweeps"; the sanitizer build above checks a subset).
job_sweeps() { suite sweeps "$rel_dir/unit_sweeps"; }

job_source() {
    # Source checks: all memory goes through the allocator hook (dnnpar.h,
    # "Memory"); only src/core/alloc.c calls the C library's allocator.
    local raw
    raw=$(grep -rnE '(^|[^A-Za-z0-9_])(malloc|calloc|realloc|free|strdup|strndup)\(' \
          src tools tests/unit bench --include=*.c --include=*.h | grep -vE '^(src/core/alloc|tests/unit/test_alloc|tests/unit/test_alloc_fail)\.c:' |
          grep -vE ':[0-9]+:\s*(/?\*|//)' || true)
    if [ -z "$raw" ]; then passed=$((passed + 1))
    else echo "FAIL check allocator-hook: raw allocator calls:"; printf '%s\n' "$raw" | head; failed=$((failed + 1)); fi

    # Thin CLI (issue 10): tools/dnnpar/ includes only dnnpar.h (through cli.h),
    # its own headers and system headers (<...>).  The files below still
    # include internal headers and are the only exceptions; remove a name once
    # its file is converted.
    local cli_include_exceptions="" bad_inc="" f line hdr
    for f in tools/dnnpar/*.c tools/dnnpar/*.h; do
        case " $cli_include_exceptions " in *" $(basename "$f") "*) continue ;; esac
        while IFS= read -r line; do
            hdr=$(printf '%s' "$line" | sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/')
            [ -f "tools/dnnpar/$hdr" ] && [ "$hdr" = "$(basename "$hdr")" ] && continue
            [ "$hdr" = dnnpar.h ] && continue
            bad_inc="$bad_inc$f: #include \"$hdr\""$'\n'
        done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
    done
    if [ -z "$bad_inc" ]; then passed=$((passed + 1))
    else echo "FAIL check thin-cli: the CLI includes internal headers (use dnnpar.h; exceptions: $cli_include_exceptions):"
         printf '%s' "$bad_inc" | head; failed=$((failed + 1)); fi
}

# The repository stands alone (issue 32, tests/standalone.sh): nothing names
# the shared folder beside the checkout; the copied data match their READMEs'
# sha256 lists.
job_standalone() { suite standalone bash tests/standalone.sh; }
# Layers (tests/layering.sh): no include from a folder of src/ to a higher
# one or across one layer, and no call from an object of the release build
# (make all, a prerequisite of make test) to a higher layer's (no exception).
job_layering() { suite layering bash tests/layering.sh "$rel_dir"; }
# The public headers (tests/headers.sh): each compiles on its own with the
# Makefile's warnings, states its ownership rule, and dnnpar.h includes it.
job_headers() { suite headers bash tests/headers.sh; }
# Presets as data (tests/presets.sh): data/presets/presets.json generates the
# library's tables, holds exactly the presets the command lists, and the
# generator refuses malformed files naming the entry and the key.
job_presets() { suite presets bash tests/presets.sh "$rel_dir"; }

job_symbols() {
    # Exported symbols (issue 10): the release static library (make all, a
    # prerequisite of make test) and the test build's shared library export
    # only dnp_ names, the API of include/dnnpar.h (docs/library.md); the CLI,
    # linked against the release archive, proves it needs nothing else.
    local bad_sym n_sym
    bad_sym=$( { nm -g --defined-only "$rel_dir/libdnnpar.a" | awk 'NF == 3 {print $3}'
                 nm -D --defined-only "$bdir"/libdnnpar.so.*.*.* | awk 'NF == 3 {print $3}'; } |
               grep -v '^dnp_' | sort -u)
    n_sym=$(nm -g --defined-only "$rel_dir/libdnnpar.a" | awk 'NF == 3' | wc -l)
    if [ -z "$bad_sym" ] && [ "$n_sym" -gt 100 ]; then passed=$((passed + 1))
    else echo "FAIL check exported-symbols: $n_sym exported; not dnp_:"
         printf '%s\n' "$bad_sym" | head; failed=$((failed + 1)); fi
}

# The benchmarks compile and link against the release objects (make bench
# runs them; make test only builds them so they cannot rot).
job_bench() {
    local bout
    if bout=$(BENCH_BUILD_ONLY=1 bash bench/run.sh 2>&1); then passed=$((passed + 1))
    else echo "FAIL check bench-build:"; printf '%s\n' "$bout" | tail -5; failed=$((failed + 1)); fi
}

# Fuzz corpus replay: every file of tests/fuzz/corpus/NAME/ through target
# NAME's LLVMFuzzerTestOneInput (tests/fuzz/replay.c), one test per file.
job_replay() {
    local corpus t files rout
    for corpus in tests/fuzz/corpus/*/; do
        t=$(basename "$corpus")
        files=("$corpus"*)
        [ -e "${files[0]}" ] || continue
        if [ ! -x "$bdir/fuzz_replay_$t" ]; then
            echo "FAIL replay $t: $bdir/fuzz_replay_$t not built"; failed=$((failed + 1)); continue
        fi
        if rout=$("$bdir/fuzz_replay_$t" "${files[@]}" 2>&1); then
            passed=$((passed + ${#files[@]}))
        else
            echo "FAIL replay $t: $(printf '%s\n' "$rout" | grep '^replay: ' | tail -n1)"
            printf '%s\n' "$rout" | grep -v '^replay: ' | head -n 12
            failed=$((failed + 1))
        fi
    done
}

# The goldens: jobs golden-1..golden-N take them one at a time (a directory
# made per golden claims it: whichever job is free runs the next), each
# leaving NAME.ok or NAME.fail (what to print) in $tmp/golden; job golden
# prints them in name order.
job_golden_worker() {
    local cmdf name g want_rc rc work=$tmp/work-$job
    local gt=${DNNPAR_GOLDEN_TIMEOUT:-300}
    for cmdf in tests/golden/*.cmd; do
        [ -e "$cmdf" ] || continue
        name=${cmdf%.cmd}
        g=$tmp/golden/$(basename "$name")
        mkdir "$g.claim" 2>/dev/null || continue
        want_rc=0; [ -f "$name.rc" ] && want_rc=$(cat "$name.rc")
        rm -rf "$work"; mkdir -p "$work/tmp"
        # Run from the repository root with the binary under test first on PATH;
        # $TMPDIR_GOLD is a scratch directory emptied before each test.
        PATH="$tmp/bin:$PATH" TMPDIR_GOLD="$work/tmp" timeout -k 10 "$gt" bash -c "$(cat "$cmdf")" \
            >"$work/out" 2>"$work/err" </dev/null
        rc=$?
        if [ "${UPDATE_GOLDEN:-0}" = 1 ] && [ "$rc" -ne 124 ]; then
            cp "$work/out" "$name.out"
            if [ "$rc" -ne 0 ]; then echo "$rc" >"$name.rc"; else rm -f "$name.rc"; fi
            want_rc=$rc
        fi
        if [ "$rc" = "$want_rc" ] && cmp -s "$work/out" "$name.out" &&
           ! grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$work/out" "$work/err"; then
            : > "$g.ok"
        else
            { if [ "$rc" = 124 ] && [ "$want_rc" != 124 ]; then
                  echo "FAIL golden $(basename "$name"): timed out after $gt s (DNNPAR_GOLDEN_TIMEOUT), killed"
              else
                  echo "FAIL golden $(basename "$name"): status $rc (want $want_rc)"
              fi
              diff -u "$name.out" "$work/out" | head -n 20
              head -n 5 "$work/err"; } > "$g.fail.tmp"
            mv "$g.fail.tmp" "$g.fail"
        fi
    done
    rm -rf "$work"
}
job_golden() {
    local cmdf name g gp=0 gf=0
    for cmdf in tests/golden/*.cmd; do
        [ -e "$cmdf" ] || continue
        name=$(basename "${cmdf%.cmd}")
        g=$tmp/golden/$name
        if [ -e "$g.ok" ]; then gp=$((gp + 1))
        elif [ -e "$g.fail" ]; then gf=$((gf + 1)); cat "$g.fail"
        else gf=$((gf + 1)); echo "FAIL golden $name: not run (its job ended first, above)"; fi
    done
    echo "golden: $gp passed, $gf failed"
    passed=$((passed + gp)); failed=$((failed + gf))
}

# Determinism (docs/cli.md): every subcommand twice and under another
# locale and time zone, byte-identical.
job_determinism() { suite determinism bash tests/determinism.sh "$bdir"; }
# Strategies executed on torch.distributed (tests/torch/run.sh; skipped,
# with the reason printed, where Debian's python3-torch is absent).
job_torch() { suite torch bash tests/torch/run.sh "$bdir"; }
# This machine measured by dnnpar profile (tests/profile/run.sh; skipped,
# with the reason printed, where Debian's python3-torch is absent).
job_profile() { suite profile bash tests/profile/run.sh "$bdir"; }
# ASTRA-sim 1.0 runs every zoo model's astra export (tests/astra/run.sh;
# skipped, with the reason printed, unless ASTRA_SIM_BIN names its binary).
job_astra() { suite astra bash tests/astra/run.sh "$bdir"; }
# Every zoo model and ONNX file under every search: plan, simulate, plot,
# dot, export (tests/matrix.sh, the release binary).
job_matrix() { suite matrix bash tests/matrix.sh "$rel_dir"; }
# Exit statuses: 2 for input problems, 1 for runtime failures (tests/exitcodes.sh).
job_exitcodes() { suite exitcodes bash tests/exitcodes.sh "$bdir"; }
# Every flag the Megatron-LM export writes is one of Megatron-LM's own
# arguments with a value it accepts (tests/megatron_flags.sh).
job_megatron_flags() { suite megatron-flags bash tests/megatron_flags.sh "$rel_dir"; }
# The library quick start compiles, runs and prints what docs/library.md shows
# (tests/examples.sh, against the release static library).
job_examples() { suite examples bash tests/examples.sh "$rel_dir"; }
# Golden output widths under 120 columns (tests/width.sh; PENDING lists
# the ones still too wide).
job_width() { suite width bash tests/width.sh; }
# Install into a temporary prefix and build a program against it; the docs
# against the command and option tables, and every README/docs example.
job_install() {
    if bash tests/install/run.sh "$bdir"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
job_docs() {
    DNNPAR_DOCS_OUT="$tmp/docs_out" SUITE_SHOW='^(FAIL|SKIP) ' suite docs bash tests/docs/check.sh "$bdir/dnnpar"
}
# One unit per table column, one meaning of GB (tests/units.sh): the golden
# outputs, the docs examples' outputs just written, the C sources.
job_units() { suite units bash tests/units.sh "$tmp/docs_out"; }

# ---- one job (run by the scheduler below) -----------------------------------
if [ "${DNNPAR_RUN_JOB:-}" != "" ]; then
    job=$DNNPAR_RUN_JOB
    tmp=$DNNPAR_RUN_TMP
    unset DNNPAR_RUN_JOB DNNPAR_RUN_TMP
    t0=$EPOCHREALTIME
    case $job in
    golden-[0-9]*) job_golden_worker ;;
    *) "job_${job//-/_}" ;;
    esac
    # this job's wall time and its processes' CPU time (bash's times: children)
    times > "$tmp/jobs/$job.times"
    cpu=$(awk '{for (i = 1; i <= 2; i++) {split($i, a, "m"); s += a[1] * 60 + a[2]}}
               END {print s}' "$tmp/jobs/$job.times")
    awk -v a="$t0" -v b="$EPOCHREALTIME" -v c="$cpu" -v p="$passed" -v f="$failed" \
        -v s="${DNNPAR_RUN_T0:-$t0}" 'BEGIN {printf "%d %d %.1f %.1f %.1f\n", p, f, b - a, c, a - s}' \
        > "$tmp/jobs/$job.cnt"
    exit 0
fi

# ---- the scheduler ------------------------------------------------------------
t_start=$EPOCHREALTIME
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/jobs" "$tmp/golden" "$tmp/docs_out"
ln -s "$(cd "$bdir" && pwd)/dnnpar" "$tmp/bin/dnnpar"
n_golden=${DNNPAR_GOLDEN_JOBS:-4}
goldens=$(seq -f 'golden-%g' 1 "$n_golden")
# The order of the output (that of the sequential run before).
print_order=(unit runner sweeps source standalone layering headers presets symbols bench replay
             golden determinism torch profile astra matrix exitcodes megatron-flags examples
             width install docs units)
# The order of the starts: the heaviest first (CPU seconds on the 2-core
# machine, docs/testing.md), the golden workers among them since they share
# the goldens out as they go (the last ones started find less or nothing
# left), so that what ends last is short; a job waits for the jobs it reads
# (deps) before it starts.
# shellcheck disable=SC2086
goldens_a=$(echo $goldens | cut -d' ' -f1-2) goldens_b=$(echo $goldens | cut -s -d' ' -f3-)
# shellcheck disable=SC2206
start_order=(unit torch matrix $goldens_a docs sweeps profile $goldens_b layering exitcodes
             determinism install runner headers presets bench examples megatron-flags standalone source
             symbols replay astra golden width units)
declare -A deps=([golden]="$goldens" [width]="$goldens" [units]="docs $goldens")
slots=${DNNPAR_SUITE_JOBS:-4}
suite_timeout=${DNNPAR_SUITE_TIMEOUT:-1800}
self=$(pwd)/tests/run.sh
printed=0

done_job() { [ -e "$tmp/jobs/$1.rc" ]; }
start_job() {
    local job=$1
    ( DNNPAR_RUN_JOB=$job DNNPAR_RUN_TMP=$tmp DNNPAR_RUN_T0=$t_start timeout -k 10 "$suite_timeout" \
          bash "$self" "$bdir" "$rel_dir" > "$tmp/jobs/$job.out" 2>&1 < /dev/null
      echo $? > "$tmp/jobs/$job.rc.tmp"; mv "$tmp/jobs/$job.rc.tmp" "$tmp/jobs/$job.rc" ) &
}
# print_ready: the jobs of print_order, from the first not yet printed, as
# long as each has ended: its output, its counts added (or its failure).
print_ready() {
    local job p f w c s rc
    while [ "$printed" -lt "${#print_order[@]}" ]; do
        job=${print_order[$printed]}
        if [ "$job" = golden ]; then
            for g in $goldens; do done_job "$g" || return 0; done
        fi
        done_job "$job" || return 0
        cat "$tmp/jobs/$job.out"
        if [ -s "$tmp/jobs/$job.cnt" ] && read -r p f w c s < "$tmp/jobs/$job.cnt"; then
            passed=$((passed + p)); failed=$((failed + f))
            [ "${DNNPAR_SUITE_TIMES:-0}" = 1 ] && echo "time $job $w s (cpu $c s, started at $s s)"
        else
            rc=$(cat "$tmp/jobs/$job.rc")
            if [ "$rc" = 124 ]; then
                echo "FAIL $job: timed out after $suite_timeout s (DNNPAR_SUITE_TIMEOUT), killed"
            else
                echo "FAIL $job: its job ended without a count (status $rc)"
            fi
            failed=$((failed + 1))
        fi
        printed=$((printed + 1))
    done
}
running() { jobs -rp | wc -l; }
wait_any() { wait -n 2>/dev/null; print_ready; }
for job in "${start_order[@]}"; do
    for d in ${deps[$job]:-}; do
        while ! done_job "$d" && [ "$(running)" -gt 0 ]; do wait_any; done
    done
    while [ "$(running)" -ge "$slots" ]; do wait_any; done
    start_job "$job"
done
while [ "$(running)" -gt 0 ]; do wait_any; done
wait
print_ready
# the golden workers print nothing themselves: their failures are golden's
for g in $goldens; do
    [ "${DNNPAR_SUITE_TIMES:-0}" = 1 ] && [ -s "$tmp/jobs/$g.cnt" ] && read -r p f w c s < "$tmp/jobs/$g.cnt" &&
        echo "time $g $w s (cpu $c s, started at $s s)"
    if [ -s "$tmp/jobs/$g.out" ] || [ ! -s "$tmp/jobs/$g.cnt" ]; then
        cat "$tmp/jobs/$g.out"
        echo "FAIL $g: the golden job ended abnormally (status $(cat "$tmp/jobs/$g.rc"))"
        failed=$((failed + 1))
    fi
done
[ "${DNNPAR_SUITE_TIMES:-0}" = 1 ] &&
    awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN {printf "time total %.1f s\n", b - a}'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
