#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served as JSON:API by
# Flask-Restless-NG's APIManager (Flask + Flask-SQLAlchemy, a SQLite file in a temporary folder;
# the app is app.py in this folder, its seed seed.py) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/restless/record.sh (from anywhere).
# The app's venv is made under /tmp (REA_RESTLESS_VENV, default /tmp/rea-restless-venv) from the
# `==` pins of requirements.txt (Flask-Restless-NG and every distribution it pulls); logs go to
# run/ (git-ignored); the server and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/venv-record.sh restless
