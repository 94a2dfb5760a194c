#!/usr/bin/env bats
# --format sarif: Microsoft's validator accepts what gpulint writes for the
# whole fixture suite and for this repository, and the content is right.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

@test "SARIF for the whole fixture suite passes Microsoft's validator" {
  run -1 "$GL" --format sarif --config "$EMPTY_CONFIG" "$REPO_ROOT/tests/analyzer/fixtures"
  printf '%s\n' "$output" >fixtures.sarif
  run "$REPO_ROOT/tests/sarif/validate" fixtures.sarif
  assert_success
  # Findings of every kind are in it, suppressed ones recorded, not dropped.
  run grep -c '"ruleId"' fixtures.sarif
  [ "$output" -gt 100 ]
  grep -q '"justification"' fixtures.sarif
  grep -q '"kind": *"inSource"' fixtures.sarif
}

@test "SARIF for this repository passes Microsoft's validator and reports exit 0" {
  cd "$REPO_ROOT"
  run -0 "$GL" --format sarif
  printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/repo.sarif"
  run "$REPO_ROOT/tests/sarif/validate" "$BATS_TEST_TMPDIR/repo.sarif"
  assert_success
  grep -q '"exitCode": *0' "$BATS_TEST_TMPDIR/repo.sarif"
  grep -q '"executionSuccessful": *true' "$BATS_TEST_TMPDIR/repo.sarif"
}

@test "the validator itself rejects a broken SARIF file (the check can fail)" {
  printf '{"version":"2.1.0","runs":[{"tool":{"driver":{}}}]}\n' >broken.sarif
  run "$REPO_ROOT/tests/sarif/validate" broken.sarif
  assert_failure 1
  assert_output --partial "JSON1002"
}

@test "SARIF results carry the location, the rule and a fingerprint" {
  write_uploads up.c 1
  run -1 "$GL" --format sarif --config "$EMPTY_CONFIG" up.c
  assert_output --partial '"ruleId": "no-via-pinned"'
  assert_output --partial '"startLine": 3'
  assert_output --partial '"uri": "up.c"'
  assert_output --partial '"gpulint/v1"'
  assert_output --partial '"exitCode": 1'
}

@test "a block comment's reason over several lines reaches SARIF whole" {
  cat >teardown.cu <<'CU'
#include <cuda_runtime.h>

void teardown(float *d_x)
{
    /* gpulint: allow(unchecked-status) -- best-effort cleanup on the error
     * path: the first error is already being returned */
    cudaFree(d_x);
}
CU
  run -0 "$GL" --format sarif --config "$EMPTY_CONFIG" teardown.cu
  printf '%s\n' "$output" >teardown.sarif
  run node -e '
    const r = JSON.parse(require("fs").readFileSync("teardown.sarif", "utf8")).runs[0].results;
    console.log(r.length, r[0].ruleId, r[0].suppressions[0].justification);'
  assert_output "1 unchecked-status best-effort cleanup on the error path: the first error is already being returned"
}
