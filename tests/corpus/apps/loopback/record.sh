#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served by LoopBack 4 in
# plain JavaScript (@loopback/core 7.0.15, @loopback/rest 15.0.16, @loopback/repository 8.0.15
# with the memory connector, @loopback/rest-crud 0.19.11; the app is app.js in this folder, its
# seed seed.json) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/loopback/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored); the server and the
# proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -d node_modules/@loopback/rest-crud ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
