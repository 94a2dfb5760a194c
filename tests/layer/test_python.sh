#!/usr/bin/env bash
# Runs tests/layer/test_python.py against build/libtlob.so with the first
# python3 that has numpy (`make deps` installs Debian's python3-numpy; a
# python3 earlier on PATH, e.g. pyenv's, may lack it).
set -u
cd "$(dirname "$0")/../.."
py=${PYTHON:-}
if [ -z "$py" ]; then
  for c in python3 /usr/bin/python3; do
    if command -v "$c" >/dev/null && "$c" -c 'import numpy' 2>/dev/null; then py=$c; break; fi
  done
fi
if [ -z "$py" ]; then
  echo "FAIL no python3 with numpy (make deps installs python3-numpy)"
  echo "0 passed, 1 failed"
  exit 1
fi
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} TLOB_LIBRARY=$PWD/build/libtlob.so
exec "$py" tests/layer/test_python.py
