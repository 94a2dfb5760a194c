# Shared setup: a fixed copy of gpulint (others may rebuild build/ while the
# tests run), caches private to the run, and a scratch directory per test.
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

integration_setup_file() {
  REPO_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export REPO_ROOT
  local bin=${GPULINT:-$REPO_ROOT/build/gpulint}
  [ -x "$bin" ] || { echo "gpulint not built: $bin (make analyzer)" >&2; return 1; }
  cp "$bin" "$BATS_FILE_TMPDIR/gpulint"
  export GL=$BATS_FILE_TMPDIR/gpulint
  export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
}

integration_setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export HOME=$BATS_TEST_TMPDIR/home
  mkdir -p "$HOME"
  export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Fixture GIT_AUTHOR_EMAIL=fixture@example.com
  export GIT_COMMITTER_NAME=Fixture GIT_COMMITTER_EMAIL=fixture@example.com
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
  printf '{}\n' >"$BATS_TEST_TMPDIR/empty.yaml"
  EMPTY_CONFIG=$BATS_TEST_TMPDIR/empty.yaml
}

# A C file with N banned calls (lines 3..N+2) after the banned declaration
# (line 1), each a no-via-pinned finding.
write_uploads() {  # write_uploads FILE N
  local file=$1 n=$2 i
  {
    echo 'void upload_f32_via_pinned(float *dst, const float *src, int n);'
    echo 'void step(float *d, const float *h) {'
    for ((i = 0; i < n; i++)); do echo "    upload_f32_via_pinned(d, h, $i);"; done
    echo '}'
  } >"$file"
}
