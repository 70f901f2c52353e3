#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Roundup issue tracker's REST API
# (classic template, SQLite backend) into this folder, with its README.md. Usage: bash record.sh
# Servers bind 127.0.0.1 only; the tracker, its database, the debug mail file and the logs go to
# run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh roundup-server 'roundup==2.6.0'
