#!/usr/bin/env bats
# docs/ci.md's GitHub Actions workflow, run as a script: its `run:` steps, in
# order, in a clean clone of this repository, once as it is and once with a
# planted violation. The steps are read from docs/ci.md itself, so a change
# to the documented recipe is tested as written. Left out: the container's
# `apt-get` line (the machine running make check is a Debian image with
# those packages) and the `uses:` steps (GitHub's checkout and upload
# actions; the upload's input, gpulint.sarif, is validated here instead).

bats_require_minimum_version 1.5.0
load test_helper

setup_file() {
  gpulint_env_setup_file
  # The recipe builds its own gpulint; its caches start empty.
  export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/recipe-cache
}
setup() { gpulint_env_setup; }

# The `run:` commands of the workflow in docs/ci.md, one per line.
recipe_steps() {
  awk '/^## GitHub Actions/ { section = 1; next }
       section && /^## / { exit }
       section && /^```yaml/ { block = 1; next }
       block && /^```/ { exit }
       block && match($0, /^ *(- )?run: /) { print substr($0, RSTART + RLENGTH) }' \
    "$REPO_ROOT/docs/ci.md" | grep -v '^apt-get '
}

# Run every step in the clone; print "STEP<TAB>exit status" per step.
run_recipe() {
  local step
  while IFS= read -r step; do
    (cd repo && bash -c "$step") >>recipe.log 2>&1
    printf '%s\t%s\n' "$step" "$?"
  done < <(recipe_steps)
}

clone_repo() {
  git clone -q "$REPO_ROOT" repo
  # The validator is 100 MB from npm: reuse this checkout's instead of
  # downloading it again (make deps sees it installed and skips it).
  ln -s "$REPO_ROOT/tests/sarif/node_modules" repo/tests/sarif/node_modules
}

@test "docs/ci.md names the steps this test runs" {
  run recipe_steps
  assert_success
  assert_line 'make deps && make analyzer'
  assert_line 'build/gpulint --format github'
  assert_line --partial 'build/gpulint --format sarif > gpulint.sarif'
}

@test "the documented workflow passes on this repository and writes a valid upload file, then fails on a planted violation that the upload file carries" {
  command -v node >/dev/null || skip "node is missing (make deps installs it)"
  clone_repo

  run run_recipe
  assert_success
  # Every step succeeded: the build, the annotations, the SARIF.
  refute_output --regexp $'\t[1-9][0-9]*$'
  [ -s repo/gpulint.sarif ]
  run "$REPO_ROOT/tests/sarif/validate" --rule-kind 'Sarif;Gh' repo/gpulint.sarif
  assert_success
  run node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
    process.exit(j.runs[0].results.length === 0 ? 0 : 1)' repo/gpulint.sarif
  assert_success

  # A host-to-device copy outside a mapped pinned buffer, committed.
  mkdir -p repo/src
  cat >repo/src/planted.cu <<'EOF'
#include <cuda_runtime.h>
void upload(float *device, const float *host, size_t n)
{
    (void)cudaMemcpy(device, host, n * sizeof *host, cudaMemcpyHostToDevice);
}
EOF
  git -C repo add src/planted.cu
  git -C repo commit -qm "planted violation"
  : >recipe.log

  run run_recipe
  assert_success
  # The annotation step fails the job (exit 1); the SARIF step tolerates
  # exit 1 and still writes the upload file.
  assert_line $'build/gpulint --format github\t1'
  assert_line --regexp $'^build/gpulint --format sarif .*\t0$'
  run grep -F '::error file=src/planted.cu,line=4' recipe.log
  assert_success
  run "$REPO_ROOT/tests/sarif/validate" --rule-kind 'Sarif;Gh' repo/gpulint.sarif
  assert_success
  run node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
    const r = j.runs[0].results;
    const ok = r.length === 1 && r[0].ruleId === "mapped-pinned-only" &&
      r[0].locations[0].physicalLocation.artifactLocation.uri === "src/planted.cu" &&
      r[0].locations[0].physicalLocation.region.startLine === 4;
    if (!ok) { console.error(JSON.stringify(r)); process.exit(1); }' repo/gpulint.sarif
  assert_success
}
