#!/usr/bin/env bash
# Bundles of `rea environment-build` checked with the agentenv framework's own tools, for every shared capture.
#
#   tests/bundle/run.sh [REA_BINARY]
#
# For each ../shared/captures/<name>/build.har:
#   - `rea environment-build build.har DIR --name <name> --json` writes the bundle;
#   - validate_bundle.sh (the kit's `agent-env run BUNDLE --dry-run`, twice) accepts it;
#   - the bundle is served as its Dockerfile serves it: the bundle's own bin/rea runs the Dockerfile's CMD with
#     /env replaced by the bundle's env folder, on 127.0.0.1 with an ephemeral port (MCP_ALLOWED_HOSTS and
#     ENVIRONMENT_NAME as the image sets them);
#   - GET /ready answers 200;
#   - the bundle's verify.py runs through run_verify.py (the framework's loader and scoring, MCP SDK 1.x) and
#     through the MCP SDK 2.x: every check passes;
#   - artifacts/check_<name>/ still holds exactly verify.py; the server stops on SIGTERM with exit 143.
# The json-server bundle's README commands run as written (`agent-env run .` up to Docker, which is absent here;
# `envs/json-server/bin/rea serve . --port 18765` serving the card under the bundle's name).
# Then one bundle without --name (a loopback origin, a generic file name `build.har`: named after the folder
# holding it, `json-server`) is validated too.
# Last, two small generated captures: a probe whose recorded status is unknown, and no probe (a count-only
# verifier); each bundle is served and its verify.py run through run_verify.py.
#
# Environment:
#   REA_SHARED_DIR        the shared folder (default: <workspace>/../shared)
#   REA_CONFORMANCE_KIT   a folder holding an already set-up copy of the kit, reused across runs
#                         (default: a fresh copy in a temporary folder, set up with its ./setup.sh)
#   CARGO_TARGET_DIR      where `cargo build -p rea` puts the binary when REA_BINARY is not given
# Prints one line per check and `N passed, M failed`; exits 1 when any check failed. Nothing leaves loopback
# except the kit's own pip/npm installs during setup.
set -uo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=../lib/suite.sh
source "$root/tests/lib/suite.sh"
export PYTHONDONTWRITEBYTECODE=1 # importing verify.py must not leave __pycache__ in the artifact folder

# serve_bundle LABEL BUNDLE NAME: runs the Dockerfile's CMD from the bundle; sets $server_pid and $base.
serve_bundle() {
  local label="$1" bundle="$2" name="$3"
  local env_dir="$bundle/envs/$name"
  # The bundle's binary is written 0700 (owner-only, executable): run a copy of it all the same, as the
  # server under test must not be the file the framework's tools read.
  cp "$env_dir/bin/rea" "$work/$label.rea" || return 1
  local allowed
  allowed="$(sed -n 's/^ *MCP_ALLOWED_HOSTS=\([^ ]*\).*/\1/p' "$env_dir/Dockerfile")"
  mapfile -t argv < <("$kit/.venv/bin/python" - "$env_dir/Dockerfile" "$env_dir" "$work/$label.rea" <<'EOF'
import json, sys
dockerfile, env_dir, binary = sys.argv[1:]
cmd = [line for line in open(dockerfile) if line.startswith("CMD ")][-1][4:]
argv = json.loads(cmd)
argv[0] = binary
for argument in argv[1:]:
    print(argument.replace("/env/", env_dir + "/", 1) if argument.startswith("/env/") else argument)
EOF
)
  MCP_HOST=127.0.0.1 MCP_PORT=0 ENVIRONMENT_NAME="$name" MCP_ALLOWED_HOSTS="$allowed" \
    "$work/$label.rea" "${argv[@]}" >"$work/$label.out" 2>"$work/$label.err" &
  server_pid=$!
  base=""
  for _ in $(seq 150); do
    url="$(sed -n 's/.*"msg":"MCP transport listening".*"url":"\([^"]*\)".*/\1/p' "$work/$label.err" | head -1)"
    if [ -n "$url" ]; then base="${url%/mcp}"; return 0; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  cat "$work/$label.err"
  return 1
}

verify_2x() { # verify_2x VERIFY_PY MCP_URL: runs verify() on the MCP SDK 2.x, prints its criteria, exit 0 when all pass
  "$kit/.venv/bin/python" - "$1" "$2" <<'EOF'
import asyncio, importlib.util, sys
spec = importlib.util.spec_from_file_location("outcome_verifier_2x", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
results = asyncio.run(module.verify(sys.argv[2]))
for row in results:
    print("PASS" if row.get("result") is True else "FAIL", row.get("id"), row.get("description"))
sys.exit(0 if results and all(row.get("result") is True for row in results) else 1)
EOF
}

captures=0
for dir in "$shared"/captures/*/; do
  har="$dir/build.har"
  [ -f "$har" ] || continue
  captures=$((captures + 1))
  name="$(basename "$dir")"
  bundle="$work/bundles/$name"
  mkdir -p "$work/bundles"
  "$rea" environment-build "$har" "$bundle" --name "$name" --json >"$work/$name.report.json" 2>"$work/$name.build.err"
  rc=$?
  tools="$("$kit/.venv/bin/python" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["tool_count"], "served from the state" if r["state"]["served"] else "replay")' "$work/$name.report.json" 2>/dev/null)"
  step "$rc" "$name.build" "$tools$( [ "$rc" -ne 0 ] && head -c 400 "$work/$name.build.err")"
  [ "$rc" -eq 0 ] || continue

  # contract: BUILD-097 (`agent-env run BUNDLE --dry-run` parses, resolves and plans the bundle; Docker is not run here)
  (cd "$kit" && ./validate_bundle.sh "$bundle") >"$work/$name.validate.txt" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && sed "s/^/    $name: /" "$work/$name.validate.txt" | tail -15
  step "$rc" "$name.validate" "$(tail -1 "$work/$name.validate.txt")"

  if ! serve_bundle "$name" "$bundle" "$name"; then
    step 1 "$name.serve" "no listening line"; continue
  fi
  step 0 "$name.serve" "$base"

  ready="$("$kit/.venv/bin/python" -c 'import sys,urllib.request; print(urllib.request.urlopen(sys.argv[1] + "/ready").status)' "$base" 2>&1)"
  [ "$ready" = "200" ]
  step $? "$name.ready" "GET /ready -> $ready"

  verify_py="$bundle/artifacts/check_$name/verify.py"
  (cd "$kit" && .venv-framework/bin/python run_verify.py "$verify_py" "$base/mcp") >"$work/$name.verify.txt" 2>&1
  rc=$?
  grep -E '^(PASS|FAIL) ' "$work/$name.verify.txt" | sed "s/^/    $name (mcp 1.x): /"
  step "$rc" "$name.verify.framework" "$(tail -1 "$work/$name.verify.txt")"

  verify_2x "$verify_py" "$base/mcp" >"$work/$name.verify2.txt" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && sed "s/^/    $name (mcp 2.x): /" "$work/$name.verify2.txt" | tail -5
  step "$rc" "$name.verify.sdk2" "$(tail -1 "$work/$name.verify2.txt")"

  count="$(find "$bundle/artifacts/check_$name" -mindepth 1 | wc -l)"
  [ "$count" -eq 1 ]
  step $? "$name.artifact" "artifacts/check_$name holds $count entry"

  kill -TERM "$server_pid"; wait "$server_pid"; rc=$?; server_pid=""
  [ "$rc" -eq 143 ]
  step $? "$name.stopped" "exit=$rc"
done
require_cases "$captures" "shared captures with a build.har in $shared/captures"

# The bundle README's commands, as written (issue 14), on the json-server bundle: every line of its ```sh
# blocks runs from the bundle folder. `agent-env run .` must get as far as Docker (absent here: it may only fail
# for that); `envs/NAME/bin/rea serve . --port 18765` must serve the card under the bundle's name until SIGTERM.
bundle="$work/bundles/json-server"
if [ -f "$bundle/README.md" ]; then
  mapfile -t commands < <("$kit/.venv/bin/python" - "$bundle/README.md" <<'EOF'
import sys
inside = False
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("```"):
        inside = line == "```sh"
        continue
    if inside and line.strip():
        print(line)
EOF
)
  [ "${#commands[@]}" -ge 2 ]
  step $? "readme.commands" "${#commands[@]} commands: ${commands[*]}"
  for command in "${commands[@]}"; do
    case "$command" in
      *" serve "*)
        (cd "$bundle" && exec bash -c "exec $command") >"$work/readme.serve.out" 2>"$work/readme.serve.err" &
        server_pid=$!
        name=""
        for _ in $(seq 150); do
          name="$("$kit/.venv/bin/python" -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen("http://127.0.0.1:18765/.well-known/agent-env.json"))["name"])' 2>/dev/null)"
          [ -n "$name" ] && break
          kill -0 "$server_pid" 2>/dev/null || break
          sleep 0.2
        done
        kill -TERM "$server_pid"; wait "$server_pid"; rc=$?; server_pid=""
        [ "$name" = "json-server" ] && [ "$rc" -eq 143 ] && grep -q "^coverage: " "$work/readme.serve.out"
        step $? "readme.serve" "$command: card name '$name', exit $rc"
        ;;
      "agent-env "*)
        mkdir -p "$work/readme-home"
        (cd "$bundle" && HOME="$work/readme-home" PATH="$kit/.venv-framework/bin:$PATH" bash -c "$command") >"$work/readme.agent-env.txt" 2>&1
        rc=$?
        [ "$rc" -eq 0 ] || grep -q "Docker daemon isn't reachable\|docker isn't on PATH" "$work/readme.agent-env.txt"
        step $? "readme.agent-env" "$command: exit $rc, $(grep -m1 -i 'docker' "$work/readme.agent-env.txt" | head -c 200)"
        ;;
      *)
        (cd "$bundle" && bash -c "$command") >"$work/readme.other.txt" 2>&1
        step $? "readme.other" "$command"
        ;;
    esac
  done
fi

# A loopback origin without --name: `build.har` is generic, so the folder names it, with a name-from-file warning.
har="$shared/captures/json-server/build.har"
if [ -f "$har" ]; then
  bundle="$work/bundles/by-file"
  "$rea" environment-build "$har" "$bundle" --json >"$work/by-file.report.json" 2>"$work/by-file.err"
  rc=$?
  detail="$("$kit/.venv/bin/python" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["name"], [w["code"] for w in r["warnings"]])' "$work/by-file.report.json" 2>&1)"
  [ "$rc" -eq 0 ] && [ -d "$bundle/envs/json-server" ] && echo "$detail" | grep -q "name-from-file"
  step $? "by-file.build" "$detail"
  (cd "$kit" && ./validate_bundle.sh "$bundle") >"$work/by-file.validate.txt" 2>&1
  step $? "by-file.validate" "$(tail -1 "$work/by-file.validate.txt")"
else
  step 1 "by-file.build" "$har is missing"
fi

# Two small bundles whose verifiers take the other branches, run through the framework's loader:
# a probe whose recorded status is unknown (no response: status 0; the other record of the tool
# recorded 200, which must not be borrowed), and no probe at all (a count-only verifier that says so).
# contract: EXPORT-065, EXPORT-066
"$kit/.venv/bin/python" - "$work" <<'EOF'
import json, sys
def entry(url, status, text):
    query = [dict(zip(("name", "value"), pair.split("="))) for pair in url.split("?", 1)[1].split("&")] if "?" in url else []
    content = {"size": len(text), "mimeType": "application/json", "text": text} if status else {"size": 0, "mimeType": ""}
    return {"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                        "queryString": query, "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                         "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
def har(path, entries):
    json.dump({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": entries}}, open(path, "w"))
har(sys.argv[1] + "/health.har", [entry("https://api.example.com/api/health", 0, ""),
                                  entry("https://api.example.com/api/health?verbose=1", 200, '{"ok":true}')])
har(sys.argv[1] + "/items.har", [entry("https://api.example.com/api/items/7", 200, '{"id":7}')])
EOF
for name in health items; do
  bundle="$work/bundles/$name"
  "$rea" environment-build "$work/$name.har" "$bundle" --name "$name" --json >"$work/$name.report.json" 2>"$work/$name.build.err"
  step $? "$name.build" "$(grep -E '^(PROBE|EXPECTED_STATUS) =' "$bundle/artifacts/check_$name/verify.py" | cut -d'#' -f1 | tr '\n' ' ')"
  if ! serve_bundle "$name" "$bundle" "$name"; then
    step 1 "$name.serve" "no listening line"; continue
  fi
  (cd "$kit" && .venv-framework/bin/python run_verify.py "$bundle/artifacts/check_$name/verify.py" "$base/mcp") >"$work/$name.verify.txt" 2>&1
  rc=$?
  grep -E '^(PASS|FAIL) ' "$work/$name.verify.txt" | sed "s/^/    $name (mcp 1.x): /"
  case "$name" in
    health) grep -q "get_health: ok, status None (expected None)" "$work/$name.verify.txt" || rc=1 ;;
    items) grep -q "count only" "$work/$name.verify.txt" || rc=1 ;;
  esac
  step "$rc" "$name.verify.framework" "$(tail -1 "$work/$name.verify.txt")"
  kill -TERM "$server_pid"; wait "$server_pid"; server_pid=""
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
