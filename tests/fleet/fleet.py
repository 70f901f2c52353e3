"""A fleet of environments on one machine (issue 17 item 5).

Builds a bundle of each shared capture, then starts INSTANCES servers from the bundles at once
(round robin over the apps, each from its bundle's precomputed state.json, each on its own
loopback port) and:
  1. times each one from spawn to its first 200 from /ready (p50, p99);
  2. drives each through `data/reset`, a read, a served write and the read again: the read after
     the write must show it (the written value, or a changed answer for a delete);
  3. moves one instance's state to another of the same app (`data/get` on the first, `data/reset`
     and `data/add` on the second) and requires the second to answer the read as the first does;
  4. makes READS sequential read calls on every instance (a few instances at a time) and prints
     the calls per second per instance (p50, min);
  5. prints the fleet's total memory at /ready and after the calls: the sum of every server's RSS,
     and of its PSS (the binary's pages shared among the processes counted once in all);
and stops every server with SIGTERM. Exits 1 when an instance failed to start or a check failed;
figures are printed, never asserted. Nothing leaves loopback.

    python3 tests/fleet/fleet.py REA_BINARY SHARED_CAPTURES_DIR [--instances N] [--reads N]
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

# What each shared app's instances are driven with: a read, a served write (its tool and
# arguments, `{value}` replaced by a value unique to the instance, or None) and what the read shows
# after it (`value`: the written value appears in the answer; `changed`: the answer differs).
APPS = {
    "json-server": {
        "read": ("get_posts_by_id", {"id": "1"}),
        "write": ("patch_posts_by_id", {"id": "1", "body": {"title": "{value}"}}),
        "shows": "value",
    },
    "kinto": {
        "read": (
            "get_buckets_workspace_collections_records_by_collection_id_and_id",
            {"collection_id": "tasks", "id": "2d8b9e3f-4a5c-4d7e-8f1a-2b3c4d5e6f03"},
        ),
        "write": (
            "patch_buckets_workspace_collections_records_by_collection_id_and_id",
            {
                "collection_id": "tasks",
                "id": "2d8b9e3f-4a5c-4d7e-8f1a-2b3c4d5e6f03",
                "body": {"data": {"title": "{value}"}},
            },
        ),
        "shows": "value",
    },
    "mlflow": {
        "read": ("get_mlflow_experiments_get", {"experiment_id": 1}),
        "write": (
            "post_mlflow_experiments_update",
            {"body": {"experiment_id": "1", "new_name": "{value}"}},
        ),
        "shows": "value",
    },
    # Its one served write deletes a tiddler the recording created later (by a PUT the build
    # withholds), so no served write changes its initial state: its instances are read only.
    "tiddlywiki": {
        "read": ("get_recipes_default_tiddlers_json", {}),
        "write": None,
        "shows": None,
    },
}

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "fleet", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Failure(Exception):
    pass


def post(url, body, headers):
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json",
                 "accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        raise Failure("%s answered HTTP %d: %s" % (url, error.code, error.read()[:300]))


class Instance:
    def __init__(self, rea, app, env_dir, number):
        self.app, self.number = app, number
        self.started = time.monotonic()
        self.child = subprocess.Popen(
            [rea, "environment-serve", "manifest.json", "--evidence", "evidence.json",
             "--pipeline", "pipeline.toml", "--state", "state.json", "--port", "0"],
            cwd=env_dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.base = None
        self.ready_s = None
        self.log = []

    def wait_listening(self):
        """Reads the server's log up to its listening address (then keeps draining it)."""
        for line in self.child.stderr:
            self.log.append(line)
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            url = entry.get("url", "")
            if entry.get("msg") == "MCP transport listening" and url.endswith("/mcp"):
                self.base = url[: -len("/mcp")]
                threading.Thread(target=self.drain, daemon=True).start()
                return
        raise Failure("instance %d (%s) exited before listening: %s"
                      % (self.number, self.app, b"".join(self.log)[-500:]))

    def drain(self):
        for line in self.child.stderr:
            self.log.append(line)

    def wait_ready(self):
        self.wait_listening()
        while True:
            try:
                with urllib.request.urlopen(self.base + "/ready", timeout=5) as answer:
                    if answer.status == 200:
                        self.ready_s = time.monotonic() - self.started
                        return
            except OSError:
                if self.child.poll() is not None:
                    raise Failure("instance %d (%s) exited" % (self.number, self.app))
                time.sleep(0.005)

    def tool(self, name, arguments):
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": arguments, "_meta": META}}
        headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                   "mcp-name": name}
        reply = post(self.base + "/mcp", body, headers)
        if "result" not in reply:
            raise Failure("instance %d: %s answered %s" % (self.number, name, reply))
        return reply["result"]

    def data(self, method, params):
        reply = post(self.base + "/agentenv",
                     {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, {})
        if "result" not in reply:
            raise Failure("instance %d: %s answered %s" % (self.number, method, reply))
        return reply["result"]

    def memory_kib(self):
        """(RSS, PSS) in KiB: PSS shares the binary's pages among the processes mapping them."""
        rss = pss = 0
        with open("/proc/%d/smaps_rollup" % self.child.pid) as rollup:
            for line in rollup:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
        return rss, pss


def fleet_memory_mib(fleet):
    figures = [instance.memory_kib() for instance in fleet]
    return sum(rss for rss, _ in figures) / 1024, sum(pss for _, pss in figures) / 1024


def fill(value, unique):
    if isinstance(value, str):
        return value.replace("{value}", unique)
    if isinstance(value, dict):
        return {key: fill(item, unique) for key, item in value.items()}
    return value


def drive(instance):
    """data/reset, the read, the write and the read again; the read after shows the write."""
    spec = APPS[instance.app]
    instance.data("data/reset", {})
    read_name, read_arguments = spec["read"]
    before = instance.tool(read_name, read_arguments)
    if before.get("isError"):
        raise Failure("instance %d (%s): %s refused: %s"
                      % (instance.number, instance.app, read_name, before))
    if spec["write"] is None:
        return before
    unique = "fleet-%d" % instance.number
    write_name, write_arguments = spec["write"]
    written = instance.tool(write_name, fill(write_arguments, unique))
    if written.get("isError"):
        raise Failure("instance %d (%s): %s refused: %s"
                      % (instance.number, instance.app, write_name, written))
    after = instance.tool(read_name, read_arguments)
    text = json.dumps(after)
    if spec["shows"] == "value" and unique not in text:
        raise Failure("instance %d (%s): the read after %s does not show it: %s"
                      % (instance.number, instance.app, write_name, text[:300]))
    if spec["shows"] == "changed" and after == before:
        raise Failure("instance %d (%s): the read after %s answers as before"
                      % (instance.number, instance.app, write_name))
    return after


def answer_of(result):
    """A tool result's answer, parsed (JSON objects are unordered: `data/get` writes members
    sorted, so a moved entity's members may come in another order)."""
    return [json.loads(item["text"]) for item in result["content"]], result.get("isError")


def transfer(source, target):
    """source's state moved to target: target then answers the read as source does."""
    read_name, read_arguments = APPS[source.app]["read"]
    expected = answer_of(source.tool(read_name, read_arguments))
    document = source.data("data/get", {})
    target.data("data/reset", {})
    target.data("data/add", {"parts": document["parts"]})
    moved = answer_of(target.tool(read_name, read_arguments))
    if moved != expected:
        raise Failure("instance %d answers %s after taking instance %d's state: %s, not %s"
                      % (target.number, read_name, source.number, moved, expected))


def reads_per_second(instance, count):
    read_name, read_arguments = APPS[instance.app]["read"]
    started = time.monotonic()
    for _ in range(count):
        instance.tool(read_name, read_arguments)
    return count / (time.monotonic() - started)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def build_bundles(rea, shared, work):
    # The bundles carry a small stand-in: the fleet runs REA itself, never the bundled copy.
    stand_in = os.path.join(work, "stand-in")
    with open(stand_in, "w") as script:
        script.write("#!/bin/sh\necho stand-in rea\n")
    os.chmod(stand_in, 0o755)
    envs = {}
    for app in APPS:
        bundle = os.path.join(work, app)
        output = subprocess.run(
            [rea, "environment-build", os.path.join(shared, app, "build.har"), bundle,
             "--binary", stand_in, "--json", "--quiet"],
            check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        report = json.loads(output)
        envs[app] = os.path.join(bundle, "envs", report["name"])
    return envs


def run(args, work):
    envs = build_bundles(args.rea, args.shared, work)
    apps = list(APPS)
    fleet = [Instance(args.rea, apps[n % len(apps)], envs[apps[n % len(apps)]], n)
             for n in range(args.instances)]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
            list(pool.map(Instance.wait_ready, fleet))
        rss_ready, pss_ready = fleet_memory_mib(fleet)
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(drive, fleet))
        for app in apps:
            pair = [instance for instance in fleet if instance.app == app][:2]
            transfer(pair[0], pair[1])
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            rates = list(pool.map(lambda instance: reads_per_second(instance, args.reads), fleet))
        rss_after, pss_after = fleet_memory_mib(fleet)
    finally:
        for instance in fleet:
            instance.child.terminate()
        for instance in fleet:
            instance.child.wait(timeout=60)
    ready_ms = [instance.ready_s * 1000 for instance in fleet]
    print("fleet: %d environments (%s), %d cores, load %s"
          % (len(fleet), ", ".join("%s %d" % (app, sum(i.app == app for i in fleet)) for app in apps),
             os.cpu_count(), " ".join(open("/proc/loadavg").read().split()[:3])))
    print("  time to /ready, all started at once: p50 %.0f ms, p99 %.0f ms, max %.0f ms"
          % (percentile(ready_ms, 0.5), percentile(ready_ms, 0.99), max(ready_ms)))
    print("  total memory at /ready: RSS %.1f MiB, PSS %.1f MiB (%.1f MiB per instance); "
          "after the calls: RSS %.1f MiB, PSS %.1f MiB"
          % (rss_ready, pss_ready, pss_ready / len(fleet), rss_after, pss_after))
    print("  reads per second per instance (%d sequential calls, 4 instances at a time): "
          "p50 %.0f, min %.0f" % (args.reads, percentile(rates, 0.5), min(rates)))
    read_only = [app for app in apps if APPS[app]["write"] is None]
    print("  every instance: data/reset, read, write, read shows the write: ok (read only: %s); "
          "state moved between two instances of each app: ok" % (", ".join(read_only) or "none"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rea")
    parser.add_argument("shared")
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--reads", type=int, default=100)
    args = parser.parse_args()
    args.rea = os.path.abspath(args.rea)
    with tempfile.TemporaryDirectory(prefix="rea-fleet.") as work:
        try:
            run(args, work)
        except Failure as failure:
            print("fleet: %s" % failure)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
