#!/usr/bin/env bash
# Installs what the browser-scenario tests (tests/it/browser_*.rs) drive, once, into KIT
# (default: target/tmp/browser-kit; the tests run this script themselves when KIT is not ready):
#   json-server/  the shared kit's json-server 0.17.4 (../shared/kit/apps/json-server, npm ci)
#   jupyter/      a virtualenv with Jupyter Server (a form login with an `_xsrf` cookie)
# and the mitmproxy recorder of tests/corpus/kit (its own virtualenv). Chromium comes from
# Debian (`apt-get install chromium`, which .ci/run does).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kit="${1:-${CARGO_TARGET_DIR:-$root/target}/tmp/browser-kit}"
shared="${REA_SHARED_DIR:-$root/../shared}"
mkdir -p "$kit"
if [ ! -x "$kit/json-server/node_modules/.bin/json-server" ]; then
  rm -rf "$kit/json-server"
  cp -r "$shared/kit/apps/json-server" "$kit/json-server"
  chmod -R u+w "$kit/json-server"
  rm -rf "$kit/json-server/run" "$kit/json-server/node_modules"
  (cd "$kit/json-server" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -x "$kit/jupyter/bin/jupyter-server" ]; then
  rm -rf "$kit/jupyter"
  python3 -m venv "$kit/jupyter"
  "$kit/jupyter/bin/pip" install -q 'jupyter_server==2.21.1'
fi
if [ ! -x "$root/tests/corpus/kit/.venv/bin/mitmdump" ]; then
  bash "$root/tests/corpus/kit/setup.sh"
fi
touch "$kit/ready"
echo "browser test kit ready in $kit"
