#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a real Syncthing 1.19 (Debian's
# syncthing package) driven through its REST config API, and write README.md.
# Usage: bash tests/corpus/apps/syncthing/record.sh (from anywhere; as root when syncthing is not
# installed yet, so apt-get can install it). Its home, certificate and folders live under run/
# (git-ignored; no key or certificate is committed); discovery, relays, NAT, announcements,
# usage and crash reporting and upgrades are off, so nothing leaves loopback. Syncthing and the
# proxy bind 127.0.0.1 only and are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../kit/setup.sh
if ! command -v syncthing >/dev/null 2>&1; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q syncthing
fi
mkdir -p run
../../kit/.venv/bin/python record.py
