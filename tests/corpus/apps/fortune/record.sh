#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served as JSON:API by
# Fortune.js 5.5.19 (memory adapter) with fortune-http 1.2.28 and fortune-json-api 2.3.1 (the app
# is app.js in this folder, its seed seed.json) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/fortune/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored); the server and the
# proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -d node_modules/fortune-json-api ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
