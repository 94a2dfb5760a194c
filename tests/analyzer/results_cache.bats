#!/usr/bin/env bats
# The rules' results kept per snapshot (analyzer/results.c): a run where
# nothing changed reuses them, and reports byte for byte what a run without
# any cache reports; a change to a header a file includes (outside the
# analysed files, read from disk), to the config or to the baseline changes
# the result; a cache that cannot be written costs speed only; the cache
# stays bounded and removes nothing but its own entries.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  mkdir inc
  cat >main.c <<'C'
#include <cuda_runtime_api.h>
#include "inc/dep.h"
void step(void)
{
    SYNC();
}
C
  printf '#define SYNC() cudaDeviceSynchronize()\n' >inc/dep.h
  printf '{}\n' >cfg.yaml
}

REUSED='gpulint: trace: the rules'"'"' results of an earlier run'

# The JSON report over main.c alone (inc/dep.h is read from disk); the
# trace lines go to $BATS_TEST_TMPDIR/trace.
report() {
  GPULINT_TRACE=1 "$GL" --config cfg.yaml --format json -j2 -q "$@" main.c 2>"$BATS_TEST_TMPDIR/trace"
}

reused() { grep -qxF "$REUSED" "$BATS_TEST_TMPDIR/trace"; }

@test "a second run reuses the result, byte for byte what no cache reports" {
  run -1 report
  local first=$output
  ! reused
  assert_equal "$(jq -r '.findings[] | .rule + " " + (.line|tostring)' <<<"$first")" "unchecked-status 5"
  run -1 report
  assert_equal "$output" "$first"
  reused
  run -1 env GPULINT_NO_FACTS_CACHE=1 "$GL" --config cfg.yaml --format json -j2 -q main.c
  assert_equal "$output" "$first"
}

@test "a changed header outside the analysed files changes the result" {
  run -1 report
  run -1 report
  reused
  printf '#define SYNC() ((void)0) /* no call */\n' >inc/dep.h
  run -0 report
  ! reused
  assert_equal "$(jq '.findings | length' <<<"$output")" 0
  printf '#define SYNC() cudaDeviceSynchronize()\n' >inc/dep.h
  run -1 report
  assert_equal "$(jq '.findings | length' <<<"$output")" 1
}

@test "a changed config changes the result (a pattern the rules run)" {
  run -1 report
  run -1 report
  reused
  cat >cfg.yaml <<'Y'
patterns:
  - id: no-sync-macro
    regex: '\bSYNC\('
    message: "call the runtime yourself"
    severity: warning
Y
  run -1 report
  ! reused
  assert_equal "$(jq -r '[.findings[].rule] | join(" ")' <<<"$output")" "pattern:no-sync-macro unchecked-status"
}

@test "a changed baseline changes the result" {
  run -0 "$GL" --config cfg.yaml -q --write-baseline base.json main.c
  run -0 report --baseline base.json
  assert_equal "$(jq '.findings | length' <<<"$output")" 0
  run -0 "$GL" --config cfg.yaml -q --write-baseline empty-base.json inc/dep.h
  run -1 report --baseline empty-base.json
  assert_equal "$(jq -r '.findings[].rule' <<<"$output")" "unchecked-status"
  run -0 report --baseline base.json
  reused
  assert_equal "$(jq '.findings | length' <<<"$output")" 0
}

@test "a results directory that cannot be written costs speed only" {
  mkdir -p "$XDG_CACHE_HOME/gpulint"
  printf 'not a directory\n' >"$XDG_CACHE_HOME/gpulint/results"
  run -1 report
  local first=$output
  run -1 report
  ! reused
  assert_equal "$output" "$first"
  assert_equal "$(cat "$XDG_CACHE_HOME/gpulint/results")" "not a directory"
}

@test "the cache keeps at most 64 entries and removes only its own" {
  mkdir -p "$XDG_CACHE_HOME/gpulint/results"
  local d=$XDG_CACHE_HOME/gpulint/results
  for i in $(seq 1 70); do
    touch -d "2 days ago" "$d/$(printf '%064x' "$i").json"
  done
  printf 'mine\n' >"$d/notes.txt"
  touch -d "30 days ago" "$d/notes.txt" "$d/$(printf '%064x' 1).json"
  run -1 report
  assert_equal "$(ls "$d" | grep -c '^[0-9a-f]\{64\}\.json$')" 64
  assert_equal "$(cat "$d/notes.txt")" "mine"
  [ ! -e "$d/$(printf '%064x' 1).json" ]
  run -1 report
  reused
}

# A crashed parse is not kept in the facts cache, so neither is a result
# built from it: the next run parses again (here with the stack to do it).
@test "a result with a crashed parse is not kept" {
  python3 -c '
print("int g(int x) {\n  if (x == 0) return 0;")
for i in range(1, 10001): print("  else if (x == %d) return %d;" % (i, i))
print("  return -1;\n}")' >deep.c
  run -3 env GPULINT_PARSE_STACK_MB=1 "$GL" --config cfg.yaml -q -j2 deep.c main.c
  assert_output --partial "deep.c:1:1: error: libclang crashed parsing it"
  run -3 env GPULINT_PARSE_STACK_MB=1 GPULINT_TRACE=1 "$GL" --config cfg.yaml -q -j2 deep.c main.c
  refute_output --partial "$REUSED"
  run -1 "$GL" --config cfg.yaml -q -j2 deep.c main.c
  refute_output --partial "crashed"
}

@test "a damaged entry is a miss, and is written again" {
  run -1 report
  local first=$output
  local entry
  entry=$(ls "$XDG_CACHE_HOME"/gpulint/results/*.json)
  for damage in '' '{"format": "gpulint results 1", "files_checked": 1}' '[1, 2' \
                '{"format": "gpulint results 1", "files_checked": 1, "unbuilt": [], "found": [{"rule": "x"}]}'; do
    printf '%s' "$damage" >"$entry"
    run -1 report
    ! reused
    assert_equal "$output" "$first"
    run -1 report
    reused
    assert_equal "$output" "$first"
  done
}
