#!/usr/bin/env bash
# Install the Debian packages gpulint, its tests and the hook tests need.
# Idempotent: it asks dpkg first and runs apt-get only for what is missing.
# The layer needs none of these (only the CUDA toolkit), so `make layer` never
# calls this script; with libjansson-dev present it also reads safetensors.
set -euo pipefail

packages=(
  libclang-19-dev   # gpulint's parser (C API); 19 parses CUDA 13 headers, see docs/dependencies.md
  clang-19 libclang-rt-19-dev   # libFuzzer, ASan and UBSan: tests/fuzz/ and make check-sanitize
  libpcre2-dev      # pattern rules and pre-filters (JIT)
  libjansson-dev    # JSON and SARIF output
  libyaml-dev       # .gpulint.yaml, with line/column marks for errors
  libcmocka-dev     # C unit tests
  libssl-dev        # SHA-256 content hash of each file (OpenSSL's libcrypto)
  bats bats-assert bats-support   # hook, CLI and integration tests
  pre-commit        # the hook tests run .pre-commit-hooks.yaml through Debian's framework (3.0.4), offline
  pkgconf           # the install test links a program through tlob.pc
  cmake g++         # ... and a C++ program through find_package(tlob); the generated CMake CUDA project of tests/integrations
  meson ninja-build # the generated Meson CUDA project of tests/integrations/meson-targets.bats (bookworm: Meson 1.0.1)
  python3-numpy     # the Python package's tests (python/tlob needs numpy)
  groff-base        # the install test renders the man page
  python3-jsonschema   # the JSON output checked against docs/gpulint-output.schema.json
  gcc make          # the build itself
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done

# git and npm are often installed outside dpkg (the machines here have both
# from the image): what matters is the command, so only fall back to the package.
command -v git >/dev/null 2>&1 || missing+=(git)
# npm runs Microsoft's SARIF validator in the tests; nodesource's nodejs ships
# it, Debian's splits it out.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: run as root:  $cmd" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
