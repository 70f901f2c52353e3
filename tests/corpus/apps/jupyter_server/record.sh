#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Jupyter Server (contents,
# checkpoints, sessions, kernels, config) into this folder, with its README.md.
# Usage: bash record.sh. Servers bind 127.0.0.1 only; the served folder, Jupyter's dirs and
# logs go to run/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../../kit/pyapp-record.sh jupyter-server 'jupyter_server==2.21.1' 'ipykernel==7.4.0'
