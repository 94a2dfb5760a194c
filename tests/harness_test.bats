#!/usr/bin/env bats
# tests/harness itself: the counts it adds up, failures it must not hide, and
# HARNESS_JOBS (suites at once, logs printed and counted in the order given).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

setup() {
  unset HARNESS_JOBS   # make check runs this suite with its own HARNESS_JOBS
  HARNESS=$(cd "$BATS_TEST_DIRNAME" && pwd)/harness
  cd "$BATS_TEST_TMPDIR" || return 1
  mkdir -p a b
  # The slow suite comes first: run at once with the fast one, its log must
  # still be printed first.
  printf '#!/bin/sh\nsleep 1; echo slow-a\necho "2 passed, 0 failed"\n' >a/run
  printf '#!/bin/sh\necho fast-b\necho "3 passed, 1 failed, 2 skipped"\n' >b/run
  printf '#!/bin/sh\necho "ok 1 - x"\necho "not ok 2 - y"\n' >tap
  printf '#!/bin/sh\nexit 4\n' >silent
  chmod +x a/run b/run tap silent
}

@test "sequential: counts summed, a TAP suite counted, a silent failing suite is a failure" {
  run "$HARNESS" ./a/run ./b/run ./tap ./silent
  assert_equal "$status" 1
  assert_line --index 0 "=== ./a/run"
  assert_line "harness: ./silent reported no test results (exit 4)"
  assert_equal "${lines[-1]}" "6 passed, 3 failed, 2 skipped"
}

@test "HARNESS_JOBS=2: the same counts, logs in the order given, two suites named run kept apart" {
  HARNESS_JOBS=2 run "$HARNESS" ./a/run ./b/run
  assert_equal "$status" 1
  assert_equal "${lines[0]}" "=== ./a/run"
  assert_equal "${lines[1]}" "slow-a"
  assert_equal "${lines[3]}" "=== ./b/run"
  assert_equal "${lines[4]}" "fast-b"
  assert_equal "${lines[-1]}" "5 passed, 1 failed, 2 skipped"
  [ -s build/test-logs/a_run.log ] && [ -s build/test-logs/b_run.log ]
}

@test "HARNESS_JOBS=2: a suite starts when any running one ends, not only the first given" {
  # long/run passes only if third/run starts while it runs: with suites
  # started strictly in order, third/run would wait for long/run to end.
  mkdir -p long short third
  printf '%s\n' '#!/bin/sh' 'for i in $(seq 100); do [ -e third-started ] && break; sleep 0.1; done' \
    '[ -e third-started ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"' >long/run
  printf '#!/bin/sh\necho "1 passed, 0 failed"\n' >short/run
  printf '#!/bin/sh\ntouch third-started\necho "1 passed, 0 failed"\n' >third/run
  chmod +x long/run short/run third/run
  HARNESS_JOBS=2 run "$HARNESS" ./long/run ./short/run ./third/run
  assert_equal "$status" 0
  assert_equal "${lines[0]}" "=== ./long/run"
  assert_equal "${lines[-1]}" "3 passed, 0 failed"
}

@test "HARNESS_JOBS that is not a positive integer: exit 2 naming it" {
  HARNESS_JOBS=0 run --separate-stderr "$HARNESS" ./a/run
  assert_equal "$status" 2
  assert_equal "$stderr" "harness: HARNESS_JOBS must be a positive integer, not '0'"
}

@test "TAP: a skipped point counts as skipped, also written 'not ok # SKIP' (cmocka's skip())" {
  printf '%s\n' '#!/bin/sh' 'echo 1..4' 'echo "not ok 1 # SKIP needs the validator"' \
    'echo "ok 2 - a # skip no device"' 'echo "ok 3 - b"' 'echo "not ok 4 - c"' >tapskip
  chmod +x tapskip
  run "$HARNESS" ./tapskip
  assert_equal "$status" 1
  assert_equal "${lines[-1]}" "1 passed, 1 failed, 2 skipped"
}
