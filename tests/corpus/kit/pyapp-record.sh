#!/usr/bin/env bash
# What every Python app recorder's record.sh does, run from the app's folder:
#   bash ../../kit/pyapp-record.sh EXECUTABLE 'dist==version' ...
# makes the recorder's venv (setup.sh), makes the app's own .venv, installs the pinned
# distributions into it from PyPI, checks that .venv/bin/EXECUTABLE exists, and runs the
# app's record.py with the recorder's Python.
set -euo pipefail
kit="$(cd "$(dirname "$0")" && pwd)"
bash "$kit/setup.sh"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q "${@:2}"
test -x ".venv/bin/$1"
mkdir -p run
"$kit/.venv/bin/python" record.py
