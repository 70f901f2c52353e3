#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Optuna Dashboard (SQLite
# storage, artifact folder) into this folder, with its README.md. Usage: bash record.sh
# Servers bind 127.0.0.1 only; the seed database, artifacts and logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh optuna-dashboard 'optuna-dashboard==0.21.0' 'optuna==5.0.0'
