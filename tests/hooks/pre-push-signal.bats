#!/usr/bin/env bats
# A signal to a hook (git killed, Ctrl-C, a CI runner's timeout) stops the
# gpulint it started: nothing keeps parsing after the push or commit was
# abandoned.

load test_helper

setup() {
  common_setup
  remote_with_clean_base
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m "to push"
  # A gpulint that says who it is and who started it, then takes long.
  export GPULINT=$BATS_TEST_TMPDIR/bin/gpulint
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\necho "$$ $PPID" >"%s/started.tmp"\nmv "%s/started.tmp" "%s/started"\nexec sleep 60\n' \
    "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" >"$GPULINT"
  chmod +x "$GPULINT"
}

wait_for_start() {
  local i
  for ((i = 0; i < 200; i++)); do
    [ -s "$BATS_TEST_TMPDIR/started" ] && return 0
    sleep 0.05
  done
  return 1
}

# Sends $1 to the hook (the parent of gpulint) and expects gpulint gone
# within 2 seconds of the hook's end (checked before git itself is waited
# for), and the push or commit to have failed.
signal_hook_and_check() {
  local sig=$1 i child hook alive
  wait_for_start || fail "gpulint never started"
  read -r child hook <"$BATS_TEST_TMPDIR/started"
  kill -"$sig" "$hook"
  for ((i = 0; i < 200; i++)); do
    kill -0 "$hook" 2>/dev/null || break
    sleep 0.05
  done
  kill -0 "$hook" 2>/dev/null && fail "the hook (pid $hook) did not end on SIG$sig"
  alive=1
  for ((i = 0; i < 40; i++)); do
    kill -0 "$child" 2>/dev/null || { alive=0; break; }
    sleep 0.05
  done
  if [ "$alive" -eq 1 ]; then
    kill -KILL "$child"
    fail "gpulint (pid $child) was still running after the hook ended on SIG$sig"
  fi
  git_rc=0
  wait "$git_pid" || git_rc=$?
  [ "$git_rc" -ne 0 ] || fail "git succeeded although its hook was killed"
}

@test "SIGTERM to pre-push stops gpulint, and the push does not happen" {
  before=$(git --git-dir="$REMOTE" rev-parse main)
  git push origin main >"$BATS_TEST_TMPDIR/out" 2>&1 &
  git_pid=$!
  signal_hook_and_check TERM
  assert_equal "$(git --git-dir="$REMOTE" rev-parse main)" "$before"
  run find "$TMPDIR" -mindepth 1
  assert_output ""
}

@test "SIGINT to pre-commit stops gpulint, and nothing is committed" {
  good_c src/c.c c
  git add src/c.c
  head=$(git rev-parse HEAD)
  git commit -m more >"$BATS_TEST_TMPDIR/out" 2>&1 &
  git_pid=$!
  signal_hook_and_check INT
  assert_equal "$(git rev-parse HEAD)" "$head"
  run find "$TMPDIR" -mindepth 1
  assert_output ""
}
