# The environment gpulint's Bats suites run in (tests/analyzer/cli.bats,
# tests/integrations/*.bats). Load it, then call gpulint_env_setup_file from
# setup_file and gpulint_env_setup from setup.

# One fixed copy of the binary under test (GPULINT, default build/gpulint of
# this checkout): others may rebuild build/ while the tests run. gpulint's
# caches are shared by the file's tests (the PCH is built once), apart from
# the user's, and gone with the run.
gpulint_env_setup_file() {
  REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  export REPO_ROOT
  local bin=${GPULINT:-$REPO_ROOT/build/gpulint}
  [ -x "$bin" ] || { echo "gpulint not built: $bin (make analyzer)" >&2; return 1; }
  cp "$bin" "$BATS_FILE_TMPDIR/gpulint"
  export GL=$BATS_FILE_TMPDIR/gpulint
  export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
}

# Each test in its own directory, with a fixed identity and an empty HOME (the
# machine's git config plays no part), and an empty config in EMPTY_CONFIG.
gpulint_env_setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export HOME=$BATS_TEST_TMPDIR/home
  mkdir -p "$HOME"
  export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Fixture GIT_AUTHOR_EMAIL=fixture@example.com
  export GIT_COMMITTER_NAME=Fixture GIT_COMMITTER_EMAIL=fixture@example.com
  export GIT_AUTHOR_DATE='2026-11-30T00:00:00Z' GIT_COMMITTER_DATE='2026-11-30T00:00:00Z'
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
  printf '{}\n' >"$BATS_TEST_TMPDIR/empty.yaml"
  EMPTY_CONFIG=$BATS_TEST_TMPDIR/empty.yaml
}
