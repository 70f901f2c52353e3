#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real PouchDB Server
# (the pinned npm package, in-memory storage) and write README.md next to them.
# Usage: bash tests/corpus/apps/pouchdb-server/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored);
# the server and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
# --ignore-scripts: the only install scripts are leveldown's (ships prebuilds,
# unused with --in-memory) and sqlite3's (only for --sqlite, which we do not use).
if [ ! -x node_modules/.bin/pouchdb-server ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
