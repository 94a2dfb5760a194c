#!/usr/bin/env bats
# --shard K/N and --merge DIR (analyzer/shard.c): four shards and a merge
# report exactly what one run over all files reports.
bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

# Run gpulint over "$@" once, then as 4 shards and a merge, from the
# repository root; the two JSON reports must be the same, byte for byte.
single_equals_merged() {
  cd "$REPO_ROOT"
  run --separate-stderr "$GL" --format json "$@"
  [ "$status" -le 1 ] || { echo "single run: exit $status: $stderr"; return 1; }
  local single=$output single_status=$status
  local k
  for k in 1 2 3 4; do
    run --separate-stderr "$GL" --shard "$k/4" --shard-dir "$BATS_TEST_TMPDIR/shards" "$@"
    assert_equal "$status" 0
    [ -z "$output" ]
  done
  run --separate-stderr "$GL" --merge "$BATS_TEST_TMPDIR/shards" --format json "$@"
  assert_equal "$status" "$single_status"
  assert_equal "$output" "$single"
  printf '%s' "$output"
}

@test "this repository: four shards and a merge report what one run does" {
  local report
  report=$(single_equals_merged)
  # Every tracked C/CUDA file was analysed, by exactly one shard.
  local files
  files=$(printf '%s' "$report" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).files_analyzed)')
  [ "$files" -gt 50 ]
  local sum=0 k n
  for k in 1 2 3 4; do
    n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).files.length)' "$BATS_TEST_TMPDIR/shards/shard-$k-of-4.json")
    [ "$n" -gt 0 ]
    sum=$((sum + n))
  done
  assert_equal "$sum" "$files"
}

@test "cross-file findings (kernel signatures, hot call chains) survive the merge" {
  local report
  report=$(single_equals_merged \
    --config tests/analyzer/fixtures/default.yaml tests/analyzer/fixtures/kernel-signature tests/analyzer/fixtures/no-cpu-compute)
  local rules
  rules=$(printf '%s' "$report" | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([...new Set(j.findings.map(f => f.rule))].sort().join(" "))')
  [[ $rules == *kernel-signature* ]]
  [[ $rules == *no-cpu-compute* ]]
}

@test "a merge with a shard missing, or over other files, fails with exit 2 and says why" {
  cd "$REPO_ROOT"
  run "$GL" --shard 1/2 --shard-dir "$BATS_TEST_TMPDIR/half" --config tests/analyzer/fixtures/default.yaml tests/analyzer/fixtures/kernel-signature
  assert_equal "$status" 0
  run --separate-stderr "$GL" --merge "$BATS_TEST_TMPDIR/half" --config tests/analyzer/fixtures/default.yaml tests/analyzer/fixtures/kernel-signature
  assert_equal "$status" 2
  [[ $stderr == *"shard 2 of 2 is missing"* ]]
  run "$GL" --shard 2/2 --shard-dir "$BATS_TEST_TMPDIR/half" --config tests/analyzer/fixtures/default.yaml tests/analyzer/fixtures/kernel-signature
  run --separate-stderr "$GL" --merge "$BATS_TEST_TMPDIR/half" --config tests/analyzer/fixtures/default.yaml tests/analyzer/fixtures/kernel-signature tests/analyzer/fixtures/doc-params
  assert_equal "$status" 2
  [[ $stderr == *"no shard analysed tests/analyzer/fixtures/doc-params/"* ]]
}

@test "--shard takes K/N with 1 <= K <= N and needs --shard-dir" {
  run --separate-stderr "$GL" --shard 5/4 --shard-dir x
  assert_equal "$status" 2
  [[ $stderr == *"--shard needs K/N"* ]]
  run --separate-stderr "$GL" --shard 1/4
  assert_equal "$status" 2
  [[ $stderr == *"needs --shard-dir"* ]]
}
