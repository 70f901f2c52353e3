#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Verdaccio 6
# (the pinned npm package: a private npm registry with no uplinks, storage under
# run/) and write README.md next to them.
# Usage: bash tests/corpus/apps/verdaccio/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored);
# Verdaccio and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
# 6.8.0 is the newest Verdaccio whose engines accept Node 20 (6.9 needs 22).
if [ ! -x node_modules/.bin/verdaccio ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
