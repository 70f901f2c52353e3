#!/usr/bin/env bash
# A fleet of 100 environments of the shared captures on this machine (issue 17): started at once
# from their bundles' precomputed state, each driven through data/reset, a read, a served write and
# the read again, one instance's state moved to another per app, then sequential reads on every
# instance. Prints time to /ready (p50/p99), the fleet's total memory and reads per second per
# instance (tests/fleet/fleet.py says what each figure is). Loopback only.
#
#   tests/fleet/run.sh REA_BINARY [--instances N] [--reads N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rea="${1:?usage: tests/fleet/run.sh REA_BINARY [--instances N] [--reads N]}"
shift
shared="${REA_SHARED_DIR:-$root/../shared}"
exec python3 "$root/tests/fleet/fleet.py" "$rea" "$shared/captures" "$@"
