#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Jupyter Server (contents,
# checkpoints, sessions, kernels, config) into this folder, with its README.md.
# Usage: bash record.sh. Servers bind 127.0.0.1 only; the served folder, Jupyter's dirs and
# logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q 'jupyter_server==2.21.1' 'ipykernel==7.4.0'
test -x .venv/bin/jupyter-server
mkdir -p run
../../kit/.venv/bin/python record.py
