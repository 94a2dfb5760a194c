# Shared by tests/analyzer/hostile/*.bats: the gpulint environment of the
# other suites (tests/analyzer/gpulint_env.bash) and the helpers these
# files have in common.
load ../gpulint_env

# A C file with exactly one error finding (no-via-pinned) on line 2: the
# finding that must survive whatever happens to the files around it.
bad_c() {
  mkdir -p "$(dirname "$1")"
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n' >"$1"
}

# gpulint under a timeout (seconds, $1), empty config unless given after.
gl_within() {
  local limit=$1
  shift
  run --separate-stderr timeout "$limit" "$GL" "$@"
}
