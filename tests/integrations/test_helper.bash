# Shared by the integration tests: the same environment as gpulint's CLI
# tests (a fixed copy of the binary, private caches, a directory per test).
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load ../analyzer/gpulint_env

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
