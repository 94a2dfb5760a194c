#!/usr/bin/env bash
# Install Microsoft's SARIF validator (npm @microsoft/sarif-multitool, pinned
# in tests/sarif/package-lock.json) into tests/sarif/node_modules.
# npm here refuses the package's postinstall script (which only marks the
# .NET binary executable), so this script does that step itself.
# Idempotent: does nothing when the validator is already runnable.
set -euo pipefail
cd "$(dirname "$0")/../tests/sarif"

tool=node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ -x "$tool" ]; then exit 0; fi

if ! command -v npm >/dev/null 2>&1; then
  echo "deps: npm is missing; run: make deps (as root) or apt-get install nodejs npm" >&2
  exit 1
fi
echo "deps: installing the SARIF validator into tests/sarif/node_modules"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
chmod u+x "$tool"
