#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served by NestJS 10 with
# @dataui/crud on TypeORM 0.3 and SQLite through better-sqlite3 (the app is src/main.ts in this
# folder, its seed seed.json) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/nestjs-crud/record.sh (from anywhere; as root for apt-get).
# node, npm and a C++ toolchain come from Debian (installed with apt-get when missing); the npm
# packages are those package.json pins, installed with `npm ci` from package-lock.json into
# node_modules/ (git-ignored). better-sqlite3 compiles from source when its prebuilt binary cannot
# be downloaded (python3, make, g++; a few minutes). src/main.ts is compiled with tsc into
# run/dist/. Logs and the SQLite file go to run/ (git-ignored); the server and the proxy bind
# 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null || ! command -v npm >/dev/null || ! command -v g++ >/dev/null \
   || ! command -v make >/dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm build-essential python3
fi

if [ ! -x node_modules/.bin/tsc ] || [ ! -e node_modules/better-sqlite3/build/Release/better_sqlite3.node ]; then
  npm ci --no-audit --no-fund
fi
mkdir -p run
rm -rf run/dist
node_modules/.bin/tsc -p tsconfig.json

bash ../../kit/setup.sh
../../kit/.venv/bin/python record.py
