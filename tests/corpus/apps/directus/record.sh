#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Directus 11
# (the pinned npm package, SQLite under run/) and write README.md next to them.
# Usage: bash tests/corpus/apps/directus/record.sh (from anywhere).
# Everything stays in this folder (node_modules/ and run/ are git-ignored);
# Directus and the proxy bind 127.0.0.1 only and are stopped by PID.
# `npm ci` runs install scripts: sqlite3 and isolated-vm compile from source
# when their prebuilt binaries cannot be downloaded (needs python3, make, g++;
# about 20 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if [ ! -x node_modules/.bin/directus ] || [ ! -e node_modules/sqlite3/build/Release/node_sqlite3.node ]; then
  npm ci --no-audit --no-fund
fi
mkdir -p run
../../kit/.venv/bin/python record.py
