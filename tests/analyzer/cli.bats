#!/usr/bin/env bats
# gpulint's command line, as DESIGN.md states it: exit codes, help and usage
# errors, the rule list, odd inputs, config errors, JSON/SARIF/text output,
# determinism across -j, and --staged in throwaway repositories.
#
# Every test works in its own temporary directory; nothing is written into
# the repository. GPULINT overrides the binary under test (default
# build/gpulint of this checkout).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

RULES=(no-via-pinned mapped-pinned-only no-cpu-compute kernel-signature doc-params
       unchecked-status parse-error not-checked invalid-suppression unused-suppression)

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; }

# ---- helpers ---------------------------------------------------------------

# A C file with exactly one error finding (no-via-pinned) on line 2.
bad_c() {
  mkdir -p "$(dirname "$1")"
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n' >"$1"
}

# A C file with no finding.
good_c() {
  mkdir -p "$(dirname "$1")"
  printf '#include <stddef.h>\nvoid upload_f32_via_mapped(float *d, const float *h, size_t n);\n' >"$1"
}

# Run gpulint with the empty config (separate stdout/stderr).
gl() {
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" "$@"
}

# JSON.parse the file $1 and run the JS expression $2 on it as `j`; the
# expression throws (exit 1, message on stderr) when a check fails.
json_check() {
  if command -v node >/dev/null; then
    node -e '
      const fs = require("fs");
      // Strict: invalid UTF-8 is an error, not silently replaced.
      const text = new TextDecoder("utf-8", { fatal: true }).decode(fs.readFileSync(process.argv[1]));
      const j = JSON.parse(text);
      const ok = (c, m) => { if (!c) throw new Error(m); };
      '"$2" "$1"
  elif command -v python3 >/dev/null; then
    python3 -m json.tool "$1" >/dev/null || return 1
    skip "node is missing: JSON parsed with python3, fields not checked"
  else
    skip "neither node nor python3 to parse JSON"
  fi
}

# Checksums of everything in the work tree and of the index file itself.
tree_state() {
  git ls-files --stage
  find . -path ./.git -prune -o -type f -print | LC_ALL=C sort | xargs -d '\n' sha256sum
  sha256sum "${GIT_INDEX_FILE:-.git/index}"
}

new_repo() {
  git init -q -b main "$1"
  cd "$1" || return 1
}

# ---- help, version, usage errors --------------------------------------------

@test "--help: usage on stdout, nothing on stderr, exit 0" {
  run --separate-stderr "$GL" --help
  assert_success
  assert_output --partial "usage: gpulint"
  assert_output --partial "--staged"
  assert_output --partial "--format"
  assert_equal "$stderr" ""
}

@test "-h is --help" {
  run --separate-stderr "$GL" -h
  assert_success
  assert_output --partial "usage: gpulint"
}

@test "--version prints 'gpulint X.Y.Z' and exits 0" {
  run --separate-stderr "$GL" --version
  assert_success
  assert_output --regexp '^gpulint [0-9]+\.[0-9]+\.[0-9]+'
  assert_equal "$stderr" ""
}

@test "an unknown option: exit 2, the option named on stderr, nothing on stdout" {
  run --separate-stderr "$GL" --bogus-option x.c
  assert_equal "$status" 2
  assert_output ""
  [[ $stderr == *"--bogus-option"* ]]
}

@test "an unknown short option: exit 2" {
  run --separate-stderr "$GL" -Q
  assert_equal "$status" 2
  assert_output ""
  [ -n "$stderr" ]
}

@test "a bad --format value: exit 2, the value named on stderr" {
  good_c a.c
  run --separate-stderr "$GL" --format xml a.c
  assert_equal "$status" 2
  assert_output ""
  [[ $stderr == *xml* ]]
}

@test "a bad --color value: exit 2" {
  good_c a.c
  run --separate-stderr "$GL" --color=sometimes a.c
  assert_equal "$status" 2
  assert_output ""
  [[ $stderr == *sometimes* ]]
}

@test "a missing option argument (--config, --format, --explain, -j): exit 2" {
  for opt in --config --format --explain -j; do
    run --separate-stderr "$GL" "$opt"
    assert_equal "$status" 2
    assert_output ""
    [[ $stderr == *"${opt##*-}"* ]] || { echo "stderr for $opt does not name it: $stderr"; return 1; }
  done
}

@test "-j with a non-number: exit 2" {
  good_c a.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" -j many a.c
  assert_equal "$status" 2
  assert_output ""
  [[ $stderr == *many* ]]
}

# ---- rules -------------------------------------------------------------------

@test "--list-rules lists every rule id, one per line, on stdout" {
  run --separate-stderr "$GL" --list-rules
  assert_success
  for r in "${RULES[@]}"; do
    assert_line --regexp "^$r([[:space:]]|$)"
  done
  assert_line --regexp '^pattern:'
}

@test "--explain RULE for every rule: exit 0, names the rule, a few lines of text" {
  for r in "${RULES[@]}"; do
    run --separate-stderr "$GL" --explain "$r"
    assert_success
    assert_output --partial "$r"
    [ "${#lines[@]}" -ge 3 ] || { echo "--explain $r: ${#lines[@]} lines"; return 1; }
  done
}

@test "--explain for a rule with findings shows how to suppress with a reason" {
  for r in no-via-pinned mapped-pinned-only no-cpu-compute kernel-signature doc-params unchecked-status; do
    run --separate-stderr "$GL" --explain "$r"
    assert_success
    assert_output --partial "gpulint: allow($r) --"
  done
}

@test "--explain of an unknown rule: exit 2, named on stderr" {
  run --separate-stderr "$GL" --explain no-such-rule
  assert_equal "$status" 2
  assert_output ""
  [[ $stderr == *no-such-rule* ]]
}

# ---- exit codes and missing inputs -------------------------------------------

@test "exit 0 for a clean file, 1 for an error finding, 0 for warnings only" {
  good_c clean.c
  gl clean.c
  assert_success
  assert_output ""

  bad_c bad.c
  gl bad.c
  assert_equal "$status" 1
  assert_line --regexp '^bad\.c:2:[0-9]+: error: .*\[no-via-pinned\]$'

  printf '/**\n * @param nope gone\n */\nvoid f(int x);\n' >warn.c
  gl --format json warn.c
  assert_success
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1, "one finding");
    ok(j.findings[0].rule === "doc-params" && j.findings[0].severity === "warning", "a doc-params warning");'
}

@test "a missing file: exit 2, the path named on stderr" {
  good_c present.c
  gl present.c does-not-exist.c
  assert_equal "$status" 2
  [[ $stderr == *does-not-exist.c* ]]
}

@test "a dangling symlink given as a path: exit 2, named on stderr" {
  ln -s nowhere/gone.c dangling.c
  gl dangling.c
  assert_equal "$status" 2
  [[ $stderr == *dangling.c* ]]
}

@test "a FIFO given as a path: exit 2 without blocking on it" {
  mkfifo pipe.c
  run --separate-stderr timeout 30 "$GL" --config "$EMPTY_CONFIG" pipe.c
  [ "$status" -ne 124 ] || { echo "gpulint blocked reading the FIFO"; return 1; }
  assert_equal "$status" 2
  [[ $stderr == *pipe.c* ]]
}

@test "an unreadable file (chmod 000): exit 2" {
  [ "$(id -u)" -ne 0 ] || skip "running as root: chmod 000 does not stop root from reading"
  good_c secret.c
  chmod 000 secret.c
  gl secret.c
  assert_equal "$status" 2
  [[ $stderr == *secret.c* ]]
}

# ---- odd inputs ----------------------------------------------------------------

@test "an empty file: analysed, no finding, exit 0" {
  : >empty.c
  : >empty.cu
  gl --format json empty.c empty.cu
  assert_success
  json_check <(printf '%s' "$output") '
    ok(j.files_analyzed === 2, "files_analyzed " + j.files_analyzed);
    ok(j.findings.length === 0, "findings: " + JSON.stringify(j.findings));'
}

@test "a binary .c file: handled (no crash, valid JSON, no error finding, exit 0)" {
  { head -c 3000 /dev/urandom; printf '\0\0\377\376'; head -c 3000 /dev/urandom; } >blob.c
  good_c ok.c
  gl --format json blob.c ok.c
  [ "$status" -eq 0 ] || { echo "exit $status; stderr: $stderr"; return 1; }
  # Analysed or skipped as binary: either way the other file is analysed.
  json_check <(printf '%s' "$output") '
    ok(j.files_analyzed === 1 || j.files_analyzed === 2, "files_analyzed " + j.files_analyzed);
    ok(!j.findings.some(f => f.severity === "error"), JSON.stringify(j.findings));'
}

@test "a non-UTF-8 (Latin-1) file: the finding on the right line, valid JSON" {
  printf '/* caf\351 cr\350me \377 */\n#include <stddef.h>\n/* \344 */ void upload_f32_via_pinned(float *d, const float *h, size_t n);\n' >latin1.c
  gl --format json latin1.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1, "findings: " + JSON.stringify(j.findings));
    ok(j.findings[0].rule === "no-via-pinned" && j.findings[0].line === 3, JSON.stringify(j.findings[0]));'
  gl --format text --color=never latin1.c
  assert_equal "$status" 1
  assert_line --regexp '^latin1\.c:3:[0-9]+: error: .*\[no-via-pinned\]$'
}

@test "a 5 MB file: analysed, the finding at its last line" {
  awk 'BEGIN { for (i = 0; i < 110000; i++) printf "static int f%d(int x) { return x + %d; }\n", i, i }' >big.c
  printf 'void upload_f32_via_pinned(float *d, const float *h, unsigned long n);\n' >>big.c
  [ "$(stat -c %s big.c)" -ge 5000000 ]
  local last
  last=$(wc -l <big.c)
  # A hang guard, not a speed test: make check-sanitize scales it
  # (TEST_TIMEOUT_SCALE), ASan costs this file 20 times the CPU.
  run --separate-stderr timeout "$((300 * ${TEST_TIMEOUT_SCALE:-1}))" "$GL" --config "$EMPTY_CONFIG" --format json big.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") "
    ok(j.findings.length === 1, 'findings: ' + JSON.stringify(j.findings));
    ok(j.findings[0].line === $last && j.findings[0].rule === 'no-via-pinned', JSON.stringify(j.findings[0]));"
}

@test "compiler errors: parse-error warnings, the rules still run (exit 1 with an error finding)" {
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\nint f(void) { return 1 }\n' >broken.c
  gl --format json broken.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    const r = j.findings.map(f => f.rule + ":" + f.line + ":" + f.severity).sort();
    ok(JSON.stringify(r) === JSON.stringify(["no-via-pinned:2:error", "parse-error:3:warning"]), JSON.stringify(r));'
}

@test "compiler errors alone: parse-error warnings, exit 0" {
  printf 'int f(void) { return 1 }\n' >broken.c
  gl --format json broken.c
  assert_success
  json_check <(printf '%s' "$output") '
    ok(j.findings.length >= 1, "no finding");
    ok(j.findings.every(f => f.rule === "parse-error" && f.severity === "warning"), JSON.stringify(j.findings));'
}

@test "compiler errors in a header no file analysed includes: one not-checked error at the first, exit 1; the same code as a .c stays parse-error warnings" {
  # Written to follow the header that defines span_t, which is not given.
  printf '#pragma once\nstatic inline int span_len(const span_t *s) { return s->n; }\nstatic inline int span_end(const span_t *s) { return s->n; }\n' >span_ops.h
  gl --format json span_ops.h
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.files_analyzed === 1 && j.files_checked === 0, "counts " + j.files_analyzed + " " + j.files_checked);
    ok(j.findings.length === 1, JSON.stringify(j.findings));
    const f = j.findings[0];
    ok(f.rule === "not-checked" && f.severity === "error" && f.file === "span_ops.h" && f.line === 2, JSON.stringify(f));
    ok(f.message.startsWith("no file analysed includes this header") &&
       f.message.includes("2 errors (the first: unknown type name \x27span_t\x27)"), f.message);'
  cp span_ops.h span_ops.c
  gl --format json span_ops.c
  assert_success
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 2 && j.findings.every(f => f.rule === "parse-error" && f.severity === "warning"),
       JSON.stringify(j.findings));'
}

# ---- config errors -------------------------------------------------------------

@test "config: an unknown key is exit 2 with the config's file:line:col" {
  good_c a.c
  printf '# settings\nhot: ["tlob_*"]\nbogus-key: 1\n' >bad.yaml
  run --separate-stderr "$GL" --config bad.yaml a.c
  assert_equal "$status" 2
  assert_output ""
  [[ $stderr =~ bad\.yaml:3:[0-9]+ ]] || { echo "stderr: $stderr"; return 1; }
  [[ $stderr == *bogus-key* ]]
}

@test "config: an unknown key inside a rule is exit 2 with file:line:col" {
  good_c a.c
  printf 'rules:\n  no-via-pinned:\n    enabled: true\n    sevrity: warning\n' >bad.yaml
  run --separate-stderr "$GL" --config bad.yaml a.c
  assert_equal "$status" 2
  [[ $stderr =~ bad\.yaml:4:[0-9]+ ]] || { echo "stderr: $stderr"; return 1; }
}

@test "config: a bad value is exit 2 with file:line:col" {
  good_c a.c
  printf 'rules:\n  no-via-pinned:\n    severity: fatal\n' >bad.yaml
  run --separate-stderr "$GL" --config bad.yaml a.c
  assert_equal "$status" 2
  [[ $stderr =~ bad\.yaml:3:[0-9]+ ]] || { echo "stderr: $stderr"; return 1; }
  [[ $stderr == *fatal* ]]
}

@test "config: a rule id that does not exist is exit 2 with file:line:col" {
  good_c a.c
  printf 'rules:\n  no-such-rule:\n    enabled: false\n' >bad.yaml
  run --separate-stderr "$GL" --config bad.yaml a.c
  assert_equal "$status" 2
  [[ $stderr =~ bad\.yaml:2:[0-9]+ ]] || { echo "stderr: $stderr"; return 1; }
}

@test "config: a pattern whose regex does not compile is exit 2 with file:line:col" {
  good_c a.c
  printf 'patterns:\n  - id: broken\n    regex: "(unclosed"\n    message: "x"\n' >bad.yaml
  run --separate-stderr "$GL" --config bad.yaml a.c
  assert_equal "$status" 2
  [[ $stderr =~ bad\.yaml:3:[0-9]+ ]] || { echo "stderr: $stderr"; return 1; }
}

@test "config: invalid YAML is exit 2 with file:line:col" {
  good_c a.c
  printf 'hot: ["a",\nrules: {\n' >bad.yaml
  run --separate-stderr "$GL" --config bad.yaml a.c
  assert_equal "$status" 2
  [[ $stderr =~ bad\.yaml:[0-9]+:[0-9]+ ]] || { echo "stderr: $stderr"; return 1; }
}

@test "config: a missing config file is exit 2, named on stderr" {
  good_c a.c
  gl --config nowhere.yaml a.c
  assert_equal "$status" 2
  [[ $stderr == *nowhere.yaml* ]]
}

# ---- output formats --------------------------------------------------------------

@test "JSON: schema_version, tool, version, files_analyzed, files_checked and every field of every finding" {
  mkdir -p src
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n\n/**\n * @param gone x\n */\nvoid g(int y);\n' >src/two.c
  good_c src/ok.c
  local version
  version=$("$GL" --version | awk '{ print $2 }')
  gl --format json src/two.c src/ok.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") "
    ok(Object.keys(j).sort().join() === 'files_analyzed,files_checked,findings,schema_version,tool,version', 'keys: ' + Object.keys(j));
    ok(j.schema_version === 1, 'schema_version ' + j.schema_version);
    ok(j.files_checked === 2, 'files_checked ' + j.files_checked);
    ok(j.tool === 'gpulint', 'tool');
    ok(j.version === '$version', 'version ' + j.version);
    ok(j.files_analyzed === 2, 'files_analyzed ' + j.files_analyzed);
    ok(Array.isArray(j.findings) && j.findings.length === 2, 'two findings');
    for (const f of j.findings) {
      ok(Object.keys(f).sort().join() === 'column,file,line,message,rule,severity', 'finding keys: ' + Object.keys(f));
      ok(typeof f.line === 'number' && typeof f.column === 'number' && f.line >= 1 && f.column >= 1, 'line/column');
      ok(f.file === 'src/two.c', 'file ' + f.file);
      ok(typeof f.message === 'string' && f.message.length > 0, 'message');
    }
    const r = j.findings.map(f => f.rule + '@' + f.line + '/' + f.severity).join();
    ok(r === 'no-via-pinned@2/error,doc-params@5/warning', r);"
}

@test "JSON: no finding is an empty findings array, exit 0" {
  good_c ok.c
  gl --format json ok.c
  assert_success
  json_check <(printf '%s' "$output") 'ok(Array.isArray(j.findings) && j.findings.length === 0, "findings"); ok(j.files_analyzed === 1, "count");'
}

@test "JSON: paths are relative to the repository root" {
  new_repo repo
  mkdir -p src/deep
  bad_c src/deep/bad.c
  git add . && git commit -q -m init
  cd src
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json deep/bad.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 1 && j.findings[0].file === "src/deep/bad.c", JSON.stringify(j.findings));'
}

@test "text: file:line:col: severity: message [rule], the source line, a caret" {
  bad_c bad.c
  gl --format text --color=never bad.c
  assert_equal "$status" 1
  assert_line --index 0 --regexp '^bad\.c:2:([0-9]+): error: .+ \[no-via-pinned\]$'
  local col
  col=$(printf '%s\n' "${lines[0]}" | sed -E 's/^bad\.c:2:([0-9]+):.*/\1/')
  assert_line --index 1 'void upload_f32_via_pinned(float *d, const float *h, size_t n);'
  # The caret sits under the reported column.
  assert_line --index 2 --regexp "^ {$((col - 1))}\\^"
}

@test "--color: never and auto (not a terminal) print no escape codes, always does" {
  bad_c bad.c
  gl --color=never bad.c
  [[ $output != *$'\e['* ]]
  gl --color=auto bad.c
  [[ $output != *$'\e['* ]]
  gl --color=always bad.c
  [[ $output == *$'\e['* ]]
}

@test "SARIF: valid 2.1.0 with one result per finding" {
  bad_c bad.c
  gl --format sarif bad.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.version === "2.1.0", "version " + j.version);
    ok(j.runs.length === 1 && j.runs[0].tool.driver.name === "gpulint", "driver");
    const res = j.runs[0].results;
    ok(res.length === 1 && res[0].ruleId === "no-via-pinned" && res[0].level === "error", JSON.stringify(res));
    ok(res[0].locations[0].physicalLocation.region.startLine === 2, "line");'
}

@test "github: ::error for error findings, ::warning for warnings" {
  bad_c bad.c
  printf '/**\n * @param nope gone\n */\nvoid f(int x);\n' >warn.c
  gl --format github bad.c warn.c
  assert_equal "$status" 1
  assert_line --regexp '^::error file=bad\.c,line=2(,col=[0-9]+)?.*::.*no-via-pinned'
  assert_line --regexp '^::warning file=warn\.c,line=2(,col=[0-9]+)?.*::.*doc-params'
}

@test "JSON: quotes, backslashes and spaces in paths and messages are escaped" {
  mkdir -p 'sub dir'
  # The name holds a double quote, one backslash and spaces.
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n' >'sub dir/we"ird \ name.c'
  printf 'patterns:\n  - id: quote\n    regex: "size_t"\n    message: "say \\"unsigned long\\" \\\\ not it"\n    severity: warning\n' >p.yaml
  run --separate-stderr "$GL" --config p.yaml --format json 'sub dir/we"ird \ name.c'
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 2, JSON.stringify(j.findings));
    ok(j.findings.every(f => f.file === "sub dir/we\"ird \\ name.c"), "file: " + j.findings[0].file);
    const p = j.findings.find(f => f.rule === "pattern:quote");
    ok(p && p.message === "say \"unsigned long\" \\ not it", "message: " + (p && p.message));'
}

@test "JSON: valid UTF-8 even when a message or a file name carries Latin-1 bytes" {
  printf '#include "caf\351.h"\n' >latin.c
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n' >"caf$(printf '\351').c"
  gl --format json latin.c "caf$(printf '\351').c"
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.files_analyzed === 2, "files_analyzed " + j.files_analyzed);
    const nc = j.findings.find(f => f.rule === "not-checked");
    ok(nc && nc.file === "latin.c" && nc.line === 1 && nc.message.includes("caf"), JSON.stringify(j.findings));
    const nv = j.findings.find(f => f.rule === "no-via-pinned");
    ok(nv && nv.file.startsWith("caf") && nv.file.endsWith(".c") && nv.line === 2, JSON.stringify(j.findings));'
}

@test "text, JSON and SARIF report the same findings (over the unchecked-status and kernel-signature fixtures)" {
  local files
  cp -r "$REPO_ROOT/tests/analyzer/fixtures/unchecked-status" "$REPO_ROOT/tests/analyzer/fixtures/kernel-signature" .
  files=(unchecked-status/*.cu kernel-signature/*.cu)
  gl --format text --color=never "${files[@]}"
  local text_status=$status
  printf '%s\n' "$output" | sed -n -E 's/^(.+):([0-9]+):([0-9]+): (error|warning): (.*) \[([^]]+)\]$/\1|\2|\3|\4|\6|\5/p' | LC_ALL=C sort >text.tsv
  gl --format json "${files[@]}"
  assert_equal "$status" "$text_status"
  printf '%s' "$output" >out.json
  gl --format sarif "${files[@]}"
  assert_equal "$status" "$text_status"
  printf '%s' "$output" >out.sarif
  node -e '
    const fs = require("fs");
    const j = JSON.parse(fs.readFileSync("out.json", "utf8"));
    const rows = j.findings.map(f => [f.file, f.line, f.column, f.severity, f.rule, f.message].join("|"));
    fs.writeFileSync("json.tsv", rows.sort().join("\n") + (rows.length ? "\n" : ""));
    const sarif = JSON.parse(fs.readFileSync("out.sarif", "utf8"));
    // Suppressed findings may be listed with a "suppressions" entry: not results.
    const res = sarif.runs[0].results.filter(r => !(r.suppressions && r.suppressions.length)).map(r => [r.locations[0].physicalLocation.artifactLocation.uri,
        r.locations[0].physicalLocation.region.startLine, r.ruleId].join("|"));
    const fromJson = j.findings.map(f => [f.file, f.line, f.rule].join("|"));
    if (JSON.stringify(res.sort()) !== JSON.stringify(fromJson.sort()))
      throw new Error("SARIF results differ from JSON findings:\n" + res.join("\n") + "\n--\n" + fromJson.join("\n"));'
  [ -s json.tsv ] || { echo "no findings at all"; return 1; }
  LC_ALL=C sort -o json.tsv json.tsv
  run diff text.tsv json.tsv
  assert_success
}

@test "output is the same with -j 1 and -j 4 and in any path order, sorted by file and line" {
  for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
    printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n/** @param q x */\nvoid h%s(int y);\nvoid clone_to_device_x_via_pinned(void);\n' "$i" >"f$i.c"
  done
  local files=(f*.c)
  gl -j 1 --format json "${files[@]}"
  assert_equal "$status" 1
  local one=$output
  gl -j 4 --format json "${files[@]}"
  assert_equal "$status" 1
  assert_equal "$output" "$one"
  # The order the paths are given in does not matter either.
  local reversed=()
  for ((i = ${#files[@]} - 1; i >= 0; i--)); do reversed+=("${files[$i]}"); done
  gl -j 3 --format json "${reversed[@]}"
  assert_equal "$status" 1
  assert_equal "$output" "$one"
  gl -j 1 --color=never "${files[@]}"
  local text_one=$output
  gl -j 4 --color=never "${files[@]}"
  assert_equal "$output" "$text_one"
  json_check <(printf '%s' "$one") '
    ok(j.findings.length === 36, "36 findings, got " + j.findings.length);
    const keys = j.findings.map(f => [f.file, f.line, f.column]);
    for (let i = 1; i < keys.length; i++) {
      const a = keys[i - 1], b = keys[i];
      ok(a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] <= b[2]))), "order at " + i);
    }'
}

# ---- the caches: results follow the inputs and the config ---------------

# main.c's findings depend on sync.h, the config's defines and its hot globs.
cache_fixture() {
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  cat >main.c <<'EOF2'
#include <cuda_runtime_api.h>
#include "sync.h"
void step(float *x, int n)
{
#ifdef CHECKED
    if (SYNC() != cudaSuccess)
        return;
#else
    SYNC();
#endif
    for (int i = 0; i < n; i++)
        x[i] = x[i] * 0.5f;
}
EOF2
  printf '{}\n' >plain.yaml
  printf 'defines: ["CHECKED"]\n' >checked.yaml
  printf 'hot: ["step"]\n' >hot.yaml
}

# "rule:line ..." of the findings gpulint reports for main.c with config $1.
findings_with() {
  run --separate-stderr "$GL" --config "$1" --format json main.c
  [ "$status" -le 1 ] || { echo "exit $status: $stderr"; return 1; }
  printf '%s' "$output" | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j.findings.map(f => f.rule + ":" + f.line).join(" "))'
}

@test "cached results follow a changed header, the config's defines and its hot globs" {
  cache_fixture
  printf '#define SYNC() cudaDeviceSynchronize()\n' >sync.h
  assert_equal "$(findings_with plain.yaml)" "unchecked-status:9"
  # A config that defines CHECKED: the status is checked.
  assert_equal "$(findings_with checked.yaml)" ""
  # The header changed: the macro discards the status explicitly.
  printf '#define SYNC() ((void)cudaDeviceSynchronize())\n' >sync.h
  assert_equal "$(findings_with plain.yaml)" ""
  # step made hot by the config: its float loop counts.
  assert_equal "$(findings_with hot.yaml)" "no-cpu-compute:12"
  # And back: the first answer again.
  printf '#define SYNC() cudaDeviceSynchronize()\n' >sync.h
  assert_equal "$(findings_with plain.yaml)" "unchecked-status:9"
}

@test "cached results follow a header rewritten with the same size and its mtime kept (cp -p, tar, rsync -t)" {
  cache_fixture
  local plain_h='#define SYNC() cudaDeviceSynchronize()        '
  local void_h='#define SYNC() ((void)cudaDeviceSynchronize())'
  [ ${#plain_h} -eq ${#void_h} ]
  printf '%s\n' "$plain_h" >sync.h
  touch -d '2026-01-01 00:00:00' sync.h
  assert_equal "$(findings_with plain.yaml)" "unchecked-status:9"
  printf '%s\n' "$void_h" >sync.h
  touch -d '2026-01-01 00:00:00' sync.h
  assert_equal "$(findings_with plain.yaml)" ""
}

# "inode mtime path" of every facts cache entry, sorted by path.
cache_entries() {
  find "$XDG_CACHE_HOME/gpulint/facts" -type f -name '*.entry' -printf '%i %T@ %P\n' | sort -k3
}

@test "one cold run over a .cu that includes <stdlib.h> and <cooperative_groups.h> stores an entry for every file, and the next run uses them" {
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  # libclang names these headers through ".." after a symbolic link on a
  # merged-/usr system (/lib -> usr/lib): the dependency must still be found.
  cat >kernel.cu <<'EOF2'
#include <stdlib.h>
#include <cooperative_groups.h>
#include "scale.h"
__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }
EOF2
  printf '#define SCALE 2.0f\n' >scale.h
  run "$GL" --config "$EMPTY_CONFIG" kernel.cu scale.h
  assert_equal "$status" 0
  assert_equal "$(cache_entries | wc -l)" 2
  # Entries aged, then a warm run: each is read (its mtime refreshed), none
  # written again (a store replaces the file, a new inode).
  find "$XDG_CACHE_HOME/gpulint/facts" -type f -name '*.entry' -exec touch -d '2020-01-01' {} +
  local before
  before=$(cache_entries)
  run "$GL" --config "$EMPTY_CONFIG" kernel.cu scale.h
  assert_equal "$status" 0
  local after
  after=$(cache_entries)
  assert_equal "$(awk '{print $1, $3}' <<<"$after")" "$(awk '{print $1, $3}' <<<"$before")"
  assert_equal "$(awk '$2 < 1600000000' <<<"$after")" ""
}

# Two kernels files with the same leading system includes, one with a
# dropped status on line 6.
include_set_fixture() {
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
  for name in first second; do
    cat >$name.cu <<'EOF2'
#include <stdio.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
void run(float *x) {
    cudaDeviceSynchronize();
    scale<<<1, 32>>>(x);
}
EOF2
  done
}

@test "files that share their leading system includes share a precompiled preamble, with the findings of a full parse" {
  include_set_fixture
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json first.cu second.cu
  assert_equal "$status" 1
  local with_pch=$output
  [ "$(find "$XDG_CACHE_HOME/gpulint/pch" -name 'set-*.pch' | wc -l)" -eq 1 ]
  grep -qx '#include <cooperative_groups.h>' "$XDG_CACHE_HOME"/gpulint/pch/set-*.prelude.h
  GPULINT_NO_PCH=1 GPULINT_NO_FACTS_CACHE=1 run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json first.cu second.cu
  assert_equal "$status" 1
  assert_equal "$output" "$with_pch"
  assert_equal "$(printf '%s' "$output" | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j.findings.map(f => f.rule + ":" + f.file + ":" + f.line).join(" "))')" \
    "unchecked-status:first.cu:6 unchecked-status:second.cu:6"
}

@test "two runs at once building the same include set's preamble: one PCH, no lock or temporary file left, both reports those of a full parse" {
  include_set_fixture
  GPULINT_NO_PCH=1 GPULINT_NO_FACTS_CACHE=1 run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json first.cu second.cu
  local expected=$output
  GPULINT_NO_FACTS_CACHE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 first.cu second.cu >one.json &
  local one=$!
  GPULINT_NO_FACTS_CACHE=1 "$GL" --config "$EMPTY_CONFIG" --format json -j2 first.cu second.cu >two.json &
  local two=$!
  local rc1=0 rc2=0
  wait "$one" || rc1=$?
  wait "$two" || rc2=$?
  assert_equal "$rc1 $rc2" "1 1"
  assert_equal "$(cat one.json)" "$expected"
  assert_equal "$(cat two.json)" "$expected"
  local dir=$XDG_CACHE_HOME/gpulint/pch
  assert_equal "$(find "$dir" -name 'set-*.pch' | wc -l)" 1
  assert_equal "$(find "$dir" \( -name '*.lock' -o -name '*.tmp' \) | wc -l)" 0
}

@test "preambles unused for a week, or over the disk budget, are removed; nothing else in the directory is" {
  include_set_fixture
  run "$GL" --config "$EMPTY_CONFIG" first.cu second.cu
  assert_equal "$status" 1
  local dir=$XDG_CACHE_HOME/gpulint/pch
  printf 'not ours\n' >"$dir/notes.txt"
  touch -d '30 days ago' "$dir/notes.txt"
  # In budget and recently used: kept by a run that does not use it.
  run "$GL" --config "$EMPTY_CONFIG" first.cu
  [ "$(find "$dir" -name 'set-*.pch' | wc -l)" -eq 1 ]
  # Over a zero budget: removed, with its prelude.
  GPULINT_PCH_BUDGET_MB=0 run "$GL" --config "$EMPTY_CONFIG" first.cu
  assert_equal "$(find "$dir" -name 'set-*' | wc -l)" 0
  # Built again (the facts are cached: parse anyway), then unused for eight
  # days: removed.
  GPULINT_NO_FACTS_CACHE=1 run "$GL" --config "$EMPTY_CONFIG" first.cu second.cu
  [ "$(find "$dir" -name 'set-*.pch' | wc -l)" -eq 1 ]
  touch -d '8 days ago' "$dir"/set-*.pch
  run "$GL" --config "$EMPTY_CONFIG" first.cu
  assert_equal "$(find "$dir" -name 'set-*.pch' | wc -l)" 0
  [ -f "$dir/notes.txt" ]
}

@test "a preamble's last use is its access time, which each use sets: built long ago but used now, it is kept" {
  include_set_fixture
  run "$GL" --config "$EMPTY_CONFIG" first.cu second.cu
  assert_equal "$status" 1
  local dir=$XDG_CACHE_HOME/gpulint/pch
  # Built eight days ago, used just now. Its mtime is left alone by a use (a
  # set chained on it records it, and clang refuses the chained set once it
  # changes: include_sets.bats).
  touch -m -d '8 days ago' "$dir"/set-*.pch
  local built
  built=$(stat -c %Y "$dir"/set-*.pch)
  GPULINT_NO_FACTS_CACHE=1 run "$GL" --config "$EMPTY_CONFIG" first.cu second.cu
  assert_equal "$(stat -c %Y "$dir"/set-*.pch)" "$built"
  run "$GL" --config "$EMPTY_CONFIG" first.cu
  assert_equal "$(find "$dir" -name 'set-*.pch' | wc -l)" 1
  touch -a -d '8 days ago' "$dir"/set-*.pch
  run "$GL" --config "$EMPTY_CONFIG" first.cu
  assert_equal "$(find "$dir" -name 'set-*.pch' | wc -l)" 0
}

# ---- inputs: directories, default paths -------------------------------------------

@test "a directory is searched recursively for sources; other files are not analysed" {
  mkdir -p tree/a/b
  bad_c tree/a/b/deep.c
  good_c tree/top.c
  printf 'upload_f32_via_pinned is mentioned in the docs\n' >tree/a/README.md
  gl --format json tree
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.files_analyzed === 2, "files_analyzed " + j.files_analyzed);
    ok(j.findings.length === 1 && j.findings[0].file.endsWith("tree/a/b/deep.c"), JSON.stringify(j.findings));'
}

@test "no PATH in a repository: the files git tracks, not untracked ones" {
  new_repo repo
  bad_c tracked.c
  git add tracked.c && git commit -q -m init
  bad_c untracked.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].file === "tracked.c", JSON.stringify(j.findings));'
}

@test "the repository's .gpulint.yaml is the default config, also from a subdirectory" {
  new_repo repo
  printf 'rules:\n  no-via-pinned:\n    severity: warning\n' >.gpulint.yaml
  mkdir -p src
  bad_c src/bad.c
  git add . && git commit -q -m init
  cd src
  run --separate-stderr "$GL" --format json bad.c
  assert_success
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].severity === "warning", JSON.stringify(j.findings));'
}

@test "config exclude: skips files in the default file list, not files named on the command line" {
  new_repo repo
  printf 'exclude: ["vendor/**"]\n' >.gpulint.yaml
  bad_c vendor/old.c
  bad_c src/new.c
  git add . && git commit -q -m init
  run --separate-stderr "$GL" --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].file === "src/new.c", JSON.stringify(j.findings));'
  run --separate-stderr "$GL" --format json vendor/old.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].file === "vendor/old.c", JSON.stringify(j.findings));'
}

@test "config: an empty config file is an empty config" {
  bad_c bad.c
  : >empty-file.yaml
  run --separate-stderr "$GL" --config empty-file.yaml --format json bad.c
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 1, JSON.stringify(j.findings));'
}

# ---- --staged -------------------------------------------------------------------

@test "--staged: the staged blob, not the working tree (both directions)" {
  new_repo repo
  bad_c staged_bad.c
  good_c staged_good.c
  git add staged_bad.c staged_good.c
  good_c staged_bad.c
  bad_c staged_good.c
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1, JSON.stringify(j.findings));
    ok(j.findings[0].file === "staged_bad.c" && j.findings[0].line === 2, JSON.stringify(j.findings[0]));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged: .gpulint.yaml is read from the index, and an unstaged copy is named" {
  new_repo repo
  bad_c bad.c
  printf 'rules:\n  no-via-pinned:\n    enabled: false\n' >.gpulint.yaml
  git add bad.c .gpulint.yaml
  # The working tree's copy enables the rule again: not what is committed.
  printf 'rules: {}\n' >.gpulint.yaml
  run --separate-stderr "$GL" --staged
  assert_equal "$status" 0
  assert_equal "$stderr" "gpulint: note: .gpulint.yaml differs from its staged version; --staged uses the staged one"
  # Without --staged the working tree's copy applies.
  run --separate-stderr "$GL" bad.c
  assert_equal "$status" 1
  # An unstaged config is not used by --staged, and that is said.
  git rm -q --cached -f .gpulint.yaml
  printf 'rules:\n  no-via-pinned:\n    enabled: false\n' >.gpulint.yaml
  run --separate-stderr "$GL" --staged
  assert_equal "$status" 1
  [[ $stderr == "gpulint: note: .gpulint.yaml is not staged; --staged runs without it (git add it to use it)"* ]]
  # --config FILE still wins.
  run --separate-stderr "$GL" --staged --config .gpulint.yaml
  assert_equal "$status" 0
}

@test "--staged: a broken staged .gpulint.yaml is a config error naming it" {
  new_repo repo
  good_c good.c
  printf 'rules: [unclosed\n' >.gpulint.yaml
  git add good.c .gpulint.yaml
  printf 'rules: {}\n' >.gpulint.yaml
  run --separate-stderr "$GL" --staged
  assert_equal "$status" 2
  [[ $stderr == *".gpulint.yaml (staged):2:1: error: invalid YAML"* ]]
}

@test "--staged: line numbers come from the staged content" {
  new_repo repo
  bad_c a.c
  git add a.c
  { printf '/* one */\n/* two */\n/* three */\n'; cat a.c; } >a.c.new && mv a.c.new a.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 1 && j.findings[0].line === 2, JSON.stringify(j.findings));'
  gl a.c --format json
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 1 && j.findings[0].line === 5, JSON.stringify(j.findings));'
}

@test "--staged: a header is read from the index too" {
  new_repo repo
  printf '#define SYNC() cudaDeviceSynchronize()\n' >sync.h
  printf '#include <cuda_runtime_api.h>\n#include "sync.h"\nvoid f(void)\n{\n    SYNC();\n}\n' >main.c
  git add sync.h main.c
  printf '#define SYNC() ((void)cudaDeviceSynchronize())\n' >sync.h
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].rule === "unchecked-status" && j.findings[0].file === "main.c" && j.findings[0].line === 5, JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
  gl --format json main.c sync.h
  assert_success
}

@test "--staged: an unchanged header is read from the index, not from its unstaged edit" {
  new_repo repo
  printf '#define SYNC() cudaDeviceSynchronize()\n' >sync.h
  printf '#include <cuda_runtime_api.h>\n#include "sync.h"\nvoid f(void)\n{\n    (void)0;\n}\n' >main.c
  git add . && git commit -q -m init
  # Staged: main.c now calls SYNC(); the header's committed SYNC() drops the status.
  printf '#include <cuda_runtime_api.h>\n#include "sync.h"\nvoid f(void)\n{\n    SYNC();\n}\n' >main.c
  git add main.c
  # Not staged: an edit of the header that would hide the problem.
  printf '#define SYNC() ((void)cudaDeviceSynchronize())\n' >sync.h
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].rule === "unchecked-status" && j.findings[0].file === "main.c" && j.findings[0].line === 5, JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged: a staged header is checked against the unchanged definitions in the index" {
  new_repo repo
  printf '#pragma once\n__global__ void scale_kernel(float *x, float a, int n);\n' >kern.cuh
  printf '#include <cuda_runtime.h>\n#include "kern.cuh"\n__global__ void scale_kernel(float *x, float a, int n)\n{\n    if ((int)threadIdx.x < n)\n        x[threadIdx.x] *= a;\n}\n' >kern.cu
  git add . && git commit -q -m init
  # The header loses a parameter; the definition (unchanged, not staged) keeps it.
  printf '#pragma once\n__global__ void scale_kernel(float *x, int n);\n' >kern.cuh
  git add kern.cuh
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].rule === "kernel-signature" && j.findings[0].file === "kern.cuh" && j.findings[0].line === 2, JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged: whole files, so an old violation far from the staged change is reported" {
  new_repo repo
  bad_c touched.c
  git add . && git commit -q -m "a violation from before the rule"
  # An unrelated edit, far from the old call.
  printf '/* a new comment */\n' >>touched.c
  git add touched.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].file === "touched.c" && j.findings[0].line === 2 && j.findings[0].rule === "no-via-pinned", JSON.stringify(j.findings));'
}

@test "--staged respects GIT_INDEX_FILE" {
  new_repo repo
  good_c a.c
  git add a.c && git commit -q -m init
  bad_c a.c
  cp .git/index "$BATS_TEST_TMPDIR/alt-index"
  # Not `git add`: bad_c has good_c's size, so within the same second the
  # copied index's stat data would call a.c unchanged and keep the good blob.
  GIT_INDEX_FILE=$BATS_TEST_TMPDIR/alt-index \
    git update-index --cacheinfo "100644,$(git hash-object -w a.c),a.c"
  good_c a.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_success
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 0, JSON.stringify(j.findings));'
  export GIT_INDEX_FILE=$BATS_TEST_TMPDIR/alt-index
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 1 && j.findings[0].file === "a.c", JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged: a staged deletion is not analysed; a file deleted only from the working tree is" {
  new_repo repo
  bad_c gone.c
  good_c still_staged.c
  good_c keep.c
  git add . && git commit -q -m init
  git rm -q gone.c
  bad_c still_staged.c
  git add still_staged.c
  rm still_staged.c
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    const files = j.findings.map(f => f.file);
    ok(!files.includes("gone.c"), "the deleted file was analysed: " + files);
    ok(files.includes("still_staged.c"), "the staged blob of a file missing on disk was not analysed: " + files);'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged: a renamed file is reported under its new name" {
  new_repo repo
  bad_c old_name.c
  git add . && git commit -q -m init
  mkdir -p "new dir"
  git mv old_name.c "new dir/new name.c"
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_equal "$status" 1
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].file === "new dir/new name.c", JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged: binary entries are handled" {
  new_repo repo
  { head -c 2000 /dev/urandom; printf '\0upload_f32_via_pinned(\0'; } >weights.bin
  { head -c 2000 /dev/urandom; printf '\0\0'; } >blob.c
  good_c ok.c
  git add .
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_success
  json_check <(printf '%s' "$output") '
    ok(!j.findings.some(f => f.file === "weights.bin"), JSON.stringify(j.findings));
    ok(!j.findings.some(f => f.severity === "error"), JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged during a merge conflict: unmerged entries do not crash it, and nothing is changed" {
  new_repo repo
  good_c a.c
  git add a.c && git commit -q -m base
  git checkout -q -b other
  printf '#include <stddef.h>\nvoid other_side(void);\n' >a.c
  git commit -q -am other
  git checkout -q main
  printf '#include <stddef.h>\nvoid main_side(void);\n' >a.c
  git commit -q -am main
  run git merge -q other
  [ "$status" -ne 0 ]
  [ -n "$(git ls-files --unmerged)" ]
  bad_c resolved.c
  git add resolved.c
  local before
  before=$(tree_state)
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  [ "$status" -eq 1 ] || { echo "exit $status; stderr: $stderr"; return 1; }
  json_check <(printf '%s' "$output") '
    ok(j.findings.length === 1 && j.findings[0].file === "resolved.c", JSON.stringify(j.findings));'
  assert_equal "$(tree_state)" "$before"
}

@test "--staged with nothing staged: no finding, exit 0" {
  new_repo repo
  good_c a.c
  git add a.c && git commit -q -m init
  bad_c a.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged --format json
  assert_success
  json_check <(printf '%s' "$output") 'ok(j.findings.length === 0, JSON.stringify(j.findings));'
}

@test "--staged outside a git repository: exit 2 with a message" {
  mkdir plain && cd plain
  export GIT_CEILING_DIRECTORIES=$BATS_TEST_TMPDIR
  good_c a.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --staged
  assert_equal "$status" 2
  [ -n "$stderr" ]
}

@test "a file named explicitly that is not C, C++ or CUDA is said to be skipped, not passed silently" {
  printf 'int main() { return 0; }\n' >x.f90
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json x.f90
  assert_equal "$status" 0
  [[ $stderr == *"'x.f90' is not a C, C++ or CUDA source"* ]]
  [[ $output == *'"files_analyzed": 0'* ]]
}

@test "every C++ source and header kind is analysed, also in a directory walk" {
  mkdir tree
  for ext in cpp cc cxx hpp hh hxx inl ipp inc; do
    printf 'void upload_f32_via_pinned(float *d, const float *h, int n);\n' >"tree/f.$ext"
  done
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" --format json tree
  assert_equal "$status" 1
  [[ $output == *'"files_analyzed": 9'* ]]
  [ "$(grep -c '"rule": "no-via-pinned"' <<<"$output")" -eq 9 ]
}
