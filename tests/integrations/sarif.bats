#!/usr/bin/env bats
# --format sarif: Microsoft's validator accepts what gpulint writes for the
# whole fixture suite and for this repository, and the content is right.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

# Run the JS expression $2 on the JSON file $1 as `j`; ok(cond, msg) fails it.
json_check() {
  command -v node >/dev/null || skip "node is missing (make deps installs it)"
  node -e '
    const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const ok = (c, m) => { if (!c) { console.error(m); process.exit(1); } };
    '"$2" "$1"
}

# The Azure Pipelines variables GHAzDO's rules ask for (TF_BUILD set).
ado_env() {
  env TF_BUILD=True SYSTEM_DEFINITIONID=17 BUILD_DEFINITIONNAME=gpu-lint \
    SYSTEM_PHASEID=2c3f6a7e-5b1d-4e2a-9f0c-8d7e6b5a4c3d SYSTEM_PHASENAME=lint "$@"
}

@test "SARIF for the whole fixture suite passes Microsoft's validator: default, GitHub and Azure DevOps rule sets, upload and full record" {
  run -1 "$GL" --format sarif --config "$EMPTY_CONFIG" "$REPO_ROOT/tests/analyzer/fixtures"
  printf '%s\n' "$output" >upload.sarif
  run -1 "$GL" --format sarif --sarif-full --config "$EMPTY_CONFIG" "$REPO_ROOT/tests/analyzer/fixtures"
  printf '%s\n' "$output" >full.sarif
  run -1 ado_env "$GL" --format sarif --config "$EMPTY_CONFIG" "$REPO_ROOT/tests/analyzer/fixtures"
  printf '%s\n' "$output" >ado.sarif
  run "$REPO_ROOT/tests/sarif/validate" upload.sarif full.sarif
  assert_success
  run "$REPO_ROOT/tests/sarif/validate" --rule-kind 'Sarif;Gh' upload.sarif full.sarif
  assert_success
  run "$REPO_ROOT/tests/sarif/validate" --rule-kind 'Sarif;Gh;Ado' ado.sarif
  assert_success
  # Without the pipeline's variables, Azure DevOps' rules do fail (the check can fail).
  run "$REPO_ROOT/tests/sarif/validate" --rule-kind Ado upload.sarif
  assert_failure 1
  assert_output --partial GHAzDO
  # Findings of every kind are in it; the suppressed ones only in the full record.
  run grep -c '"ruleId"' upload.sarif
  [ "$output" -gt 100 ]
  ! grep -q '"justification"' upload.sarif
  grep -q '"justification"' full.sarif
  grep -q '"kind": *"inSource"' full.sarif
  # Every result carries suppressions, every region its end.
  json_check upload.sarif '
    const rs = j.runs[0].results;
    ok(rs.every(r => Array.isArray(r.suppressions) && r.suppressions.length === 0), "suppressions");
    ok(rs.every(r => r.locations[0].physicalLocation.region.endColumn > 0), "endColumn");
    ok(rs.every(r => /^[0-9a-f]+:[0-9]+$/.test(r.partialFingerprints.primaryLocationLineHash)), "line hash");
    const levels = rs.map(r => r.level);
    ok(levels.lastIndexOf("error") < levels.indexOf("warning"), "errors first");
    ok(j.runs[0].tool.driver.rules.every(r => r.fullDescription.text.length <= 1024 && !r.helpUri),
       "descriptions");'
}

@test "upload SARIF: a suppressed finding and a fixed baseline finding are not alerts; --sarif-full keeps them" {
  write_uploads up.c 2
  run -0 "$GL" --config "$EMPTY_CONFIG" --write-baseline base.json up.c
  # One of the two is fixed, a new one is suppressed with a reason.
  {
    echo 'void upload_f32_via_pinned(float *dst, const float *src, int n);'
    echo 'void step(float *d, const float *h) {'
    echo '    upload_f32_via_pinned(d, h, 0);'
    echo '    // gpulint: allow(no-via-pinned) -- the fallback path, measured'
    echo '    upload_f32_via_pinned(d, h, 7);'
    echo '}'
  } >up.c
  run -0 "$GL" --format sarif --config "$EMPTY_CONFIG" --baseline base.json up.c
  printf '%s\n' "$output" >upload.sarif
  run -0 "$GL" --format sarif --sarif-full --config "$EMPTY_CONFIG" --baseline base.json up.c
  printf '%s\n' "$output" >full.sarif
  json_check upload.sarif '
    const rs = j.runs[0].results;
    ok(rs.every(r => r.baselineState !== "absent" && r.suppressions.length === 0 && r.baselineState !== "unchanged"),
       JSON.stringify(rs));'
  json_check full.sarif '
    const rs = j.runs[0].results;
    ok(rs.some(r => r.baselineState === "absent"), "fixed entry");
    ok(rs.some(r => r.suppressions.length === 1 && r.suppressions[0].justification === "the fallback path, measured"),
       "suppressed entry");'
}

@test "primaryLocationLineHash stays the same when 10 lines are inserted above the finding" {
  write_uploads up.c 1
  run -1 "$GL" --format sarif --config "$EMPTY_CONFIG" up.c
  printf '%s\n' "$output" >before.sarif
  { for i in 1 2 3 4 5 6 7 8 9 10; do echo "/* line $i */"; done; cat up.c; } >moved.c
  mv moved.c up.c
  run -1 "$GL" --format sarif --config "$EMPTY_CONFIG" up.c
  printf '%s\n' "$output" >after.sarif
  hash() { grep -o '"primaryLocationLineHash": *"[^"]*"' "$1"; }
  [ -n "$(hash before.sarif)" ]
  assert_equal "$(hash after.sarif)" "$(hash before.sarif)"
  grep -q '"startLine": 13' after.sarif
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

@test "SARIF: a header no file analysed includes, with errors alone, is one not-checked error result at its first error, and validates" {
  printf '#pragma once\n\nstatic inline int span_len(const span_t *s) { return s->n; }\nint span_end(const span_t *);\n' >span_ops.h
  run -1 "$GL" --format sarif --config "$EMPTY_CONFIG" span_ops.h
  printf '%s\n' "$output" >span.sarif
  run "$REPO_ROOT/tests/sarif/validate" span.sarif
  assert_success
  json_check span.sarif '
    const rs = j.runs[0].results;
    ok(rs.length === 1, JSON.stringify(rs));
    const r = rs[0], loc = r.locations[0].physicalLocation;
    ok(r.ruleId === "not-checked" && r.level === "error", r.ruleId + " " + r.level);
    ok(loc.artifactLocation.uri === "span_ops.h" && loc.region.startLine === 3, JSON.stringify(loc));
    ok(/^no file analysed includes this header.*2 errors \(the first: unknown type name .span_t.\)/.test(r.message.text), r.message.text);
    ok(j.runs[0].invocations[0].exitCode === 1, "exitCode");'
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
  run -0 "$GL" --format sarif --sarif-full --config "$EMPTY_CONFIG" teardown.cu
  printf '%s\n' "$output" >teardown.sarif
  run node -e '
    const r = JSON.parse(require("fs").readFileSync("teardown.sarif", "utf8")).runs[0].results;
    console.log(r.length, r[0].ruleId, r[0].suppressions[0].justification);'
  assert_output "1 unchecked-status best-effort cleanup on the error path: the first error is already being returned"
}
