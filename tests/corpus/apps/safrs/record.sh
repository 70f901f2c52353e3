#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a JSON:API tracker served by safrs
# (Flask + SQLAlchemy + SQLite; the app is app.py in this folder) into this folder, with its
# README.md. Usage: bash record.sh
# The server binds 127.0.0.1 only; the database and the logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh python 'safrs==3.2.0' 'Flask==3.1.3' 'Flask-SQLAlchemy==3.1.1' \
  'SQLAlchemy==2.1.9' 'Werkzeug==3.1.9'
