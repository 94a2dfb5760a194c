# Sourced by tests/fuzz/run-smoke and tests/fuzz/run-long (from the
# repository root): fuzz_seed_dir ROOT NAME fills ROOT/NAME/ with the seeds
# of harness NAME, tests/fuzz/seeds/NAME/ and the fixtures of
# tests/analyzer/fixtures/ that it reads, and prints the directory.
fuzz_seed_dir() {
  local dir=$1/$2
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  [ -d "tests/fuzz/seeds/$2" ] && cp tests/fuzz/seeds/"$2"/* "$dir"/ 2>/dev/null
  case $2 in
    config) find tests/analyzer/fixtures -name .gpulint.yaml -size -64k | head -50 |
              while read -r f; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done
            cp .gpulint.yaml "$dir/root.yaml" ;;
    suppress|mask)
            find tests/analyzer/fixtures -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' \) -size -16k |
              sort | head -150 | while read -r f; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done ;;
  esac
  echo "$dir"
}
