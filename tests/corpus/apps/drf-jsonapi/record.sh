#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a JSON:API library served by Django REST
# framework JSON:API (Django + SQLite; the app is app.py in this folder) into this folder, with its
# README.md. Usage: bash record.sh
# The server binds 127.0.0.1 only; the database and the logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh python 'djangorestframework-jsonapi==8.1.0' 'djangorestframework==3.18.3' \
  'Django==5.2.19' 'django-filter==26.2' 'inflection==0.5.1' 'asgiref==3.13.0' 'sqlparse==0.6.1'
