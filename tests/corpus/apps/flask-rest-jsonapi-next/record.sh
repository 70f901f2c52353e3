#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served as JSON:API by
# flask-rest-jsonapi-next (Flask + SQLAlchemy + SQLite; the app is app.py in this folder) into this
# folder, with its README.md. Usage: bash record.sh
# The server binds 127.0.0.1 only; the database and the logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh python 'flask-rest-jsonapi-next==0.48.0' 'Flask==3.1.3' 'Werkzeug==3.1.9' \
  'SQLAlchemy==2.1.9' 'marshmallow==4.4.0' 'marshmallow-jsonapi-minfork==0.26.0' 'python-dateutil==4.0.0' \
  'blinker==1.9.0' 'click==8.5.1' 'itsdangerous==2.2.0' 'Jinja2==3.1.6' 'MarkupSafe==3.0.4' \
  'requests==2.34.2' 'packaging==26.4' 'typing_extensions==4.16.0'
