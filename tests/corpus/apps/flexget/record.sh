#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real FlexGet daemon's REST API
# into this folder, with its README.md. Usage: bash record.sh
# Servers bind 127.0.0.1 only; the config copy, database and logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q 'flexget==3.22.8'
test -x .venv/bin/flexget
mkdir -p run
../../kit/.venv/bin/python record.py
