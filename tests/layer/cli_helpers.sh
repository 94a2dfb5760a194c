# Shared by the `tlob` command-line suites (tests/layer/test_cli.sh,
# tests/layer/test_cli_hostile.sh), sourced from the repository root. Every
# command runs under a time limit: a hang is a failure, never a stuck suite.
# The tool beside the installed suite ($(BUILD)/tests/layer/ -> $(BUILD)/tlob),
# so that make check-sanitize tests its own build; build/tlob from the source tree.
here_tlob=$(dirname "$0")/../../tlob
[ -x "$here_tlob" ] || here_tlob=build/tlob
tlob=${TLOB:-$here_tlob}
tmp=$(mktemp -d /tmp/tlob-test-cli-XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0
limit=${TLOB_TEST_SECONDS:-30}

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }

# within CMD...: runs CMD with stdout/stderr in $tmp/out, $tmp/err; sets rc
# (124 or 137: it ran past the limit).
within() {
  timeout -k 5 "$limit" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

# expect NAME WANT_RC STREAM(out|err) PATTERN -- CMD...   (empty PATTERN: exit code only)
expect() {
  local name=$1 want=$2 stream=$3 pattern=$4
  shift 5
  within "$@"
  if [ "$rc" -eq "$want" ] && { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$tmp/$stream"; }; then
    pass
  else
    local why="exit $rc (want $want)"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="still running after ${limit}s (want exit $want)"
    fail "$name: $why, $stream lacks /$pattern/"
    sed 's/^/  stdout: /' "$tmp/out" | head -5
    sed 's/^/  stderr: /' "$tmp/err" | head -5
  fi
}

# npy FILE DESCR SHAPE NBYTES: a v1.0 .npy file with zero data
npy() {
  local header="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  local len=$(( ${#header} + 1 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))";
    printf '%s\n' "$header"; head -c "$4" /dev/zero; } >"$1"
}

summary() {
  local line="$passed passed, $failed failed"
  [ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
  echo "$line"
  [ "$failed" -eq 0 ]
}
