#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served as JSON:API by
# pyramid-jsonapi (Pyramid + SQLAlchemy 1.4, a SQLite file in a temporary folder; the app is app.py
# in this folder, its seed seed.py) into this folder, with its README.md.
# Usage: bash tests/corpus/apps/pyramid-jsonapi/record.sh (from anywhere).
# The app's venv is made under /tmp (REA_PYRAMID_JSONAPI_VENV, default /tmp/rea-pyramid-jsonapi-venv)
# from the `==` pins of requirements.txt (pyramid-jsonapi and every distribution it pulls);
# pyramid-jsonapi 2.2.13 ships only an sdist whose setup.py imports `pkg_resources`, which newer
# setuptools no longer has, so it is built without build isolation with the venv's pinned
# setuptools. Logs go to run/ (git-ignored); the server and the proxy bind 127.0.0.1 only and are
# stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
venv="${REA_PYRAMID_JSONAPI_VENV:-/tmp/rea-pyramid-jsonapi-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q "$(grep '^setuptools==' requirements.txt)" "$(grep '^wheel==' requirements.txt)"
"$venv/bin/pip" install -q --no-build-isolation -r requirements.txt
exec bash ../../kit/venv-record.sh pyramid-jsonapi
