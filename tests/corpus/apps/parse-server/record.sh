#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Parse Server
# (the pinned npm package on a private PostgreSQL 15 cluster under run/pg) and
# write README.md next to them.
# Usage: bash tests/corpus/apps/parse-server/record.sh (from anywhere).
# Needs Node >= 20.19 and Debian's postgresql-15 (initdb, postgres, psql).
# Everything stays in this folder (node_modules/ and run/ are git-ignored);
# PostgreSQL, Parse Server and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
# package.json pins router 2.2.0 (express 5's router): parse-server 9.10.0 reads
# `layer.params` after `Layer.match`, which router 2.3.0 (2026-11) no longer sets, so every
# `/batch` answered 500. --ignore-scripts: the install scripts are parse-server's own (prints a banner),
# protobufjs's and @firebase/util's (both unused by the REST API we record).
if [ ! -x node_modules/.bin/parse-server ]; then
  npm ci --no-audit --no-fund --ignore-scripts
fi
mkdir -p run
../../kit/.venv/bin/python record.py
