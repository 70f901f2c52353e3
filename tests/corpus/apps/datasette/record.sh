#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Datasette 1.0 alpha
# (JSON read and write API) into this folder, with its README.md. Usage: bash record.sh
# Servers bind 127.0.0.1 only; logs and the SQLite seed go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh datasette 'datasette==1.0a41'
