#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real etcd 3.4
# (Debian's etcd-server, v2 keys API enabled, data dir under run/) and write
# README.md. Usage: bash tests/corpus/apps/etcd/record.sh (from anywhere; as
# root when etcd is not installed yet, so apt-get can install it).
# etcd and the proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if ! command -v etcd >/dev/null 2>&1; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q etcd-server
fi
mkdir -p run
../../kit/.venv/bin/python record.py
