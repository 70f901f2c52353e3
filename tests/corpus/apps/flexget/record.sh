#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real FlexGet daemon's REST API
# into this folder, with its README.md. Usage: bash record.sh
# Servers bind 127.0.0.1 only; the config copy, database and logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh flexget 'flexget==3.22.8'
