#!/usr/bin/env bash
# Records a Python app folder's captures with the app's own venv under /tmp: the app recorder's
# record.sh runs this in its folder with the app's name. The venv (REA_<NAME>_VENV, default
# /tmp/rea-<name>-venv) is made from the `==` pins of the folder's requirements.txt; the kit's
# venv runs record.py, which reads the venv's path from REA_<NAME>_VENV; logs go to run/
# (git-ignored).
#
#   bash ../../kit/venv-record.sh NAME
set -euo pipefail
name="$1"
var="REA_$(printf '%s' "$name" | tr '[:lower:]-' '[:upper:]_')_VENV"
venv="${!var:-/tmp/rea-$name-venv}"
bash ../../kit/setup.sh
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q -r requirements.txt
mkdir -p run
env "$var=$venv" ../../kit/.venv/bin/python record.py
