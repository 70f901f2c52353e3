#!/usr/bin/env bash
# Issue 15's long runs, after `cargo test --workspace` built the integration-test binary (nothing is
# rebuilt here): the eight fuzz targets for REA_FUZZ_SECONDS each (25 by default; `cargo test` gives
# them 2), then the soak (100,000 mixed MCP and data-plane calls at concurrency 64; REA_SOAK_CALLS
# changes it). Prints the figures (fuzz executions per target, soak calls, errors, RSS) last.
#
#   tests/security/run.sh [--fuzz-only]
#
# --fuzz-only leaves the soak out (tests/run-all.sh runs both).
#
# Exits 1 when a fuzz target crashed or the soak failed. Nothing leaves loopback.
set -uo pipefail
cd "$(dirname "$0")/../.."

export REA_FUZZ_SECONDS="${REA_FUZZ_SECONDS:-25}"
log="$(mktemp "${TMPDIR:-/tmp}/rea-security.XXXXXX")"
trap 'rm -f "$log"' EXIT

soak=1
if [ "${1:-}" = "--fuzz-only" ]; then soak=0; fi

status=0
echo "-- fuzz (${REA_FUZZ_SECONDS} s per target)"
cargo test --workspace --locked --test it -- --nocapture --test-threads=1 security_fuzz:: 2>&1 |
  tee -a "$log" || status=1
if [ "$soak" = 1 ]; then
  echo "-- soak"
  cargo test --workspace --locked --test it -- --nocapture --ignored security_soak:: 2>&1 |
    tee -a "$log" || status=1
fi

echo "-- figures"
# (libtest prints a test's output on its `test … ...` line.)
grep -oE '(fuzz [a-z]+: [0-9]+ executions .*|soak: [0-9]+ calls .*)' "$log" || true
fuzzed="$(grep -cE 'fuzz [a-z]+: [0-9]+ executions .* 0 crashes$' "$log")"
soaked="$(grep -cE 'soak: [0-9]+ calls ' "$log")"
if [ "$fuzzed" -ne 8 ] || [ "$soaked" -ne "$soak" ]; then
  echo "expected 8 fuzz targets and $soak soak, saw $fuzzed and $soaked"
  status=1
fi
exit "$status"
