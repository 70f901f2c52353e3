# Sourced by the suites under tests/ that drive real clients against a built `rea` binary
# (tests/conformance/run.sh, tests/bundle/run.sh): the work folder and its cleanup, `step` counting
# checks, the binary under test ($1 or `cargo build -p rea`) as $rea, and the conformance kit
# (REA_CONFORMANCE_KIT, or a fresh copy of ../shared/kit/conformance set up in the work folder) as
# $kit. Expects `root` (the workspace) to be set by the caller.

shared="${REA_SHARED_DIR:-$root/../shared}"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT

passed=0; failed=0
step() { # step STATUS NAME DETAIL
  if [ "$1" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $2 ${3:-}"; else failed=$((failed + 1)); echo "FAIL $2 ${3:-}"; fi
}
# require_cases COUNT WHAT: a suite that ran zero cases fails.
require_cases() {
  [ "$1" -gt 0 ]
  step $? cases "$1 $2"
}

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build -q -p rea) || { echo "FAIL build cargo build -p rea"; echo "0 passed, 1 failed"; exit 1; }
  rea="${CARGO_TARGET_DIR:-$root/target}/debug/rea"
fi
[ -x "$rea" ] || { echo "FAIL binary $rea is not executable"; echo "0 passed, 1 failed"; exit 1; }

kit="${REA_CONFORMANCE_KIT:-$work/kit}"
if [ ! -x "$kit/.venv/bin/python" ] || [ ! -x "$kit/.venv-framework/bin/agent-env" ]; then
  mkdir -p "$kit"
  cp -R "$shared/kit/conformance/." "$kit/"
  chmod -R u+w "$kit"
  if ! (cd "$kit" && ./setup.sh >"$work/setup.log" 2>&1); then
    tail -20 "$work/setup.log"; echo "FAIL kit.setup $kit/setup.sh"; echo "0 passed, 1 failed"; exit 1
  fi
fi
step 0 kit.setup "$kit"
