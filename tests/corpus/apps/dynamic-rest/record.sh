#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served by Django REST
# framework with dynamic-rest (DREST: DynamicModelViewSets on a DynamicRouter, Django's SQLite in
# memory; the app is app.py in this folder, its seed seed.py) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/dynamic-rest/record.sh (from anywhere).
# The app's venv is made under /tmp (REA_DYNAMIC_REST_VENV, default /tmp/rea-dynamic-rest-venv)
# from the `==` pins of requirements.txt (dynamic-rest and every distribution it pulls); logs go to
# run/ (git-ignored); the server and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/venv-record.sh dynamic-rest
