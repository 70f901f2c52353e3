#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a small library served by django-tastypie
# (Django's SQLite in memory; the app is app.py in this folder, its seed seed.py) into this folder,
# with its README.md.
# Usage: bash tests/corpus/apps/tastypie/record.sh (from anywhere).
# The app's venv is made under /tmp (REA_TASTYPIE_VENV, default /tmp/rea-tastypie-venv) from the `==`
# pins of requirements.txt; logs go to run/ (git-ignored); the server and the proxy bind 127.0.0.1
# only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/venv-record.sh tastypie
