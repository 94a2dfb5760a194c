#!/usr/bin/env bats
# --format json against its documented schema (docs/gpulint-output.schema.json),
# with a real validator (python3-jsonschema, installed by make deps).

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is missing (make deps installs it)"
  SCHEMA=$REPO_ROOT/docs/gpulint-output.schema.json
}

validate() {  # validate FILE.json: exit 1 naming the first violation
  python3 - "$SCHEMA" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errors[:5]:
    print("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message), file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

@test "JSON of the whole fixture suite matches the schema, schema_version 1" {
  run -1 --separate-stderr "$GL" --format json --config "$EMPTY_CONFIG" "$REPO_ROOT/tests/analyzer/fixtures"
  printf '%s\n' "$output" >fixtures.json
  run validate fixtures.json
  assert_success
  grep -q '"schema_version": 1,' fixtures.json
  grep -q '"rule": "not-checked"' fixtures.json
}

@test "JSON with --baseline (matched and fixed) matches the schema" {
  write_uploads up.c 2
  run -0 "$GL" --config "$EMPTY_CONFIG" --write-baseline base.json up.c
  write_uploads up.c 1
  run -0 --separate-stderr "$GL" --format json --config "$EMPTY_CONFIG" --baseline base.json up.c
  printf '%s\n' "$output" >baseline.json
  run validate baseline.json
  assert_success
  grep -q '"baseline_matched": 2' baseline.json
  [ "$(grep -c '"rule": "no-via-pinned"' baseline.json)" -eq 1 ]   # the one fixed entry
}

@test "the schema check can fail: output without schema_version, or a bad severity, is rejected" {
  printf '{"tool":"gpulint","version":"0.1.0","files_analyzed":0,"files_checked":0,"findings":[]}\n' >old.json
  run validate old.json
  assert_failure 1
  assert_output --partial "'schema_version' is a required property"
  printf '{"schema_version":1,"tool":"gpulint","version":"0.1.0","files_analyzed":1,"files_checked":1,"findings":[{"rule":"doc-params","severity":"info","file":"a.c","line":1,"column":1,"message":"m"}]}\n' >bad.json
  run validate bad.json
  assert_failure 1
  assert_output --partial "'info' is not one of"
}
