#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served by FeathersJS
# 5.0.50 (memory services) over its Express REST transport (@feathersjs/feathers, express, memory
# and errors 5.0.50; the app is app.js in this folder, its seed seed.json) into this folder, with
# its README.md.
# Usage: bash tests/corpus/apps/feathers/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored); the server and the
# proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -d node_modules/@feathersjs/memory ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
