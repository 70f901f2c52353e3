#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served by Sails.js
# 1.5.18 blueprints (sails-hook-orm 4.0.3, the sails-disk 2.1.2 adapter kept in memory; the app is
# app.js and api/models/*.js in this folder, its seed seed.json) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/sails/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored); the server and the
# proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -d node_modules/sails-hook-orm ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
