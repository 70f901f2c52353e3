#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real json-server
# 1.0.0-beta.3 (the pinned npm package, db.json under run/) and write README.md.
# Usage: bash tests/corpus/apps/json-server-v1/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored);
# the server and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
# json-server 1.0.0-beta.3 is the last 1.0 beta that runs on Node 20 (later ones need >= 22.12).
if [ ! -x node_modules/.bin/json-server ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
