#!/usr/bin/env bash
# The fidelity run: every corpus app (../shared/captures/* and tests/corpus/apps/* holding
# build.har, probe-reads.har and probe-crud.har) built into an environment and compared with its
# probes by `environment-compare`, served from the state and in replay. Prints the agreement
# table and the misses per difference category (README.md's "Fidelity" section is this output),
# then fails when an app agrees on fewer steps than its floor in tests/fidelity/floors.toml, or
# when a missed step (served from the state) has no entry in the app's miss review
# tests/fidelity/reviews/<app>.toml (the table's "knowable" columns leave out the steps the review
# classes cannot-know; tests/fidelity/<app>.md and misses.md are rendered from the reviews).
# Arguments go to the runner: --print-floors prints the current figures as floors;
# --root DIR (repeatable) measures other folders; --floors FILE checks other floors;
# --json DIR writes every comparison's Evidence to DIR; --write-lists renders the lists.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q --locked -p rea-tests --bin fidelity
exec "${CARGO_TARGET_DIR:-target}/debug/fidelity" "$@"
