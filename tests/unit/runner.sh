#!/usr/bin/env bash
# unit/runner.sh [BUILD_DIR] - the unit-test runner (tests/unit/main.c) isolates
# its tests: the runner_self_* tests of test_runner.c, made to misbehave with
# DNNPAR_TEST_RUNNER_SELF=1 (an abort, a double free, a leak, a hang, an exit,
# failed checks), are each reported failing with the reason, in registry
# order, and the tests among them still pass; the output does not depend on
# the number of workers; DNNPAR_TEST_NOFORK=1 still runs in one process; an
# unknown test name is an error.  Prints "runner: N passed, N failed".
set -u
bin=${1:-build-test}/unit_tests
cd "$(dirname "$0")/../.."
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL runner $1"; failed=$((failed + 1)); }

self="runner_self_abort runner_self_double_free runner_self_leak runner_self_hang runner_self_exit
      runner_self_checks"
# (fmt_time_unit runs before them, test_fmt.c coming first; the last of the others after)
# shellcheck disable=SC2086
out=$(DNNPAR_TEST_RUNNER_SELF=1 DNNPAR_TEST_TIMEOUT=2 "$bin" $self fmt_time_unit 2>&1)
rc=$?
[ "$rc" -eq 1 ] && ok || bad "misbehaving tests: exit status $rc, not 1"
got=$(printf '%s\n' "$out" | grep -E '^(FAIL|unit:) ')
want="FAIL runner_self_abort (killed by signal 6, SIGABRT)
FAIL runner_self_double_free (exit status 1 before the test returned: a sanitizer report or exit())
FAIL runner_self_leak (exit status 1 after the test returned: a leak or a sanitizer report at exit)
FAIL runner_self_hang (timed out after 2 s, killed)
FAIL runner_self_exit (exited before the test returned)
FAIL runner_self_checks (2 checks)
unit: 1 passed, 6 failed"
if [ "$got" = "$want" ]; then ok; else
    bad "misbehaving tests: reported"; printf '%s\n' "$got"; echo "  expected:"; printf '%s\n' "$want"
fi
printf '%s\n' "$out" | grep -q 'AddressSanitizer: attempting double-free' && ok ||
    bad "the double free's report is not in the output"
printf '%s\n' "$out" | grep -q 'LeakSanitizer: detected memory leaks' && ok ||
    bad "the leak's report is not in the output"
printf '%s\n' "$out" | grep -q 'test_runner.c:[0-9]*: misbehave() ? 2 : 1 == 2, expected 1 == 1' && ok ||
    bad "the failed check's line is not in the output"

# Behaving, the same tests pass.
# shellcheck disable=SC2086
out=$("$bin" $self 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n1)" = "unit: 6 passed, 0 failed" ] && ok ||
    bad "behaving tests: exit status $rc, $(printf '%s\n' "$out" | tail -n1)"

# One worker or three: the same output, in the same order.
some="fmt_time_unit runner_self_checks runner_self_leak fmt_wrap_hand_worked"
# shellcheck disable=SC2086
o1=$(DNNPAR_TEST_RUNNER_SELF=1 DNNPAR_TEST_JOBS=1 "$bin" $some 2>&1)
# shellcheck disable=SC2086
o3=$(DNNPAR_TEST_RUNNER_SELF=1 DNNPAR_TEST_JOBS=3 "$bin" $some 2>&1)
strip() { sed -E 's/==[0-9]+==/==PID==/; s/0x[0-9a-f]+/0xADDR/g'; }
if [ "$(printf '%s\n' "$o1" | strip)" = "$(printf '%s\n' "$o3" | strip)" ] &&
   [ "$(printf '%s\n' "$o1" | tail -n1)" = "unit: 2 passed, 2 failed" ]; then ok
else bad "1 and 3 workers differ"; diff <(printf '%s\n' "$o1" | strip) <(printf '%s\n' "$o3" | strip) | head; fi

# In one process (for a debugger): checks still counted.
out=$(DNNPAR_TEST_NOFORK=1 DNNPAR_TEST_RUNNER_SELF=1 "$bin" runner_self_checks fmt_time_unit 2>&1)
rc=$?
got=$(printf '%s\n' "$out" | grep -E '^(FAIL|unit:) ')
[ "$rc" -eq 1 ] && [ "$got" = "FAIL runner_self_checks (2 checks)
unit: 1 passed, 1 failed" ] && ok || bad "DNNPAR_TEST_NOFORK=1: exit status $rc, $got"

# A name that is no test.
out=$("$bin" fmt_time_unit no_such_test 2>&1)
rc=$?
[ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qx "unit: no test named 'no_such_test'" &&
    [ "$(printf '%s\n' "$out" | tail -n1)" = "unit: 1 passed, 0 failed" ] && ok ||
    bad "unknown test name: exit status $rc, $out"
echo "runner: $passed passed, $failed failed"
