"""Startup and memory of bundles: build each capture into a bundle, then start its server with and
without the bundle's precomputed state (state.json) and time it to its first 200 from /ready.

    python3 startup.py REA CAPTURE.har... [--runs N] [--ceilings FILE] [--binary FILE]

Per capture it prints the capture's size, `environment-build`'s wall time, CPU time and peak RSS
(its VmHWM, read every millisecond while it runs: a child's ru_maxrss includes the RSS its launcher
had when it forked, this script's 21 MiB, held until exec), then for the server deriving the state (no --state: what every server did
before) and reading it (--state): the median time from spawn to /ready over N fresh processes, the
median CPU time the server spent by then (all its threads), the RSS at /ready and the peak RSS
(VmHWM), and the ratios (derive/precomputed time, peak RSS/capture size). On a shared machine the
wall times follow the load; the CPU times hardly move with it, so compare builds by those.

With --ceilings FILE (JSON: {"NAME": {"build_s", "build_rss_mib", "ready_ms", "ready_rss_mib"}}),
each capture named there must stay within its ceilings (the precomputed server's figures); the run
fails naming every figure over its ceiling. --binary FILE is the binary the bundles carry (passed to
`environment-build --binary`; default: REA itself). --precomputed-only skips the server deriving
the state (its columns show `-`; the ratios are then the build's and the precomputed server's).
Everything binds 127.0.0.1.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def mib(value_bytes):
    return value_bytes / 1048576


SPLIT_FIELDS = ("RssAnon", "RssFile", "RssShmem")


class Sampler:
    """Reads a live process's /proc/PID/status every millisecond on a thread of its own and keeps
    the sample with the highest VmRSS: `split()` is its (RssAnon, RssFile, RssShmem) in MiB;
    `hwm_kib` the highest VmHWM read (the process's peak unless it peaked in its last millisecond)."""

    def __init__(self, pid, enabled):
        self.pid = pid
        self.best = (0, (0, 0, 0))
        self.hwm_kib = 0
        self.running = enabled
        self.thread = threading.Thread(target=self.run, daemon=True) if enabled else None
        if self.thread:
            self.thread.start()

    def sample(self):
        fields = {}
        try:
            with open("/proc/%d/status" % self.pid) as status:
                for line in status:
                    name, _, value = line.partition(":")
                    if name in ("VmRSS", "VmHWM") or name in SPLIT_FIELDS:
                        fields[name] = int(value.split()[0])
        except OSError:
            return
        self.hwm_kib = max(self.hwm_kib, fields.get("VmHWM", 0))
        rss = fields.get("VmRSS", 0)
        if rss > self.best[0]:
            self.best = (rss, tuple(fields.get(name, 0) / 1024 for name in SPLIT_FIELDS))

    def run(self):
        while self.running:
            self.sample()
            time.sleep(0.001)

    def split(self):
        """Stops sampling (after one last sample) and returns the highest sample's split."""
        if self.thread:
            self.running = False
            self.thread.join()
            self.sample()
        return self.best[1]


def build(rea, har, bundle, binary):
    argv = [rea, "environment-build", har, bundle, "--name", "bench", "--json"]
    if binary:
        argv += ["--binary", binary]
    start = time.monotonic()
    child = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    sampler = Sampler(child.pid, True)
    output = child.stdout.read()
    # The exited child stays readable (a zombie keeps no memory) until it is waited for.
    peak_split = sampler.split()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.monotonic() - start
    if status != 0:
        sys.exit("environment-build failed on %s" % har)
    report = json.loads(output)
    peak_kib = sampler.hwm_kib or usage.ru_maxrss
    return elapsed, usage.ru_utime + usage.ru_stime, peak_kib / 1024, report, peak_split


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """The user and system time a live process has spent, all its threads."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ready_once(rea, env_dir, state, split=False):
    """Starts the bundle's server; returns (seconds to the first 200 from /ready, RSS MiB, peak MiB,
    CPU seconds by then, the highest sample's (anon, file, shmem) MiB with `split`)."""
    port = free_port()
    argv = [rea, "environment-serve", "manifest.json", "--evidence", "evidence.json",
            "--pipeline", "pipeline.toml", "--port", str(port)]
    if state:
        argv += ["--state", "state.json"]
    url = "http://127.0.0.1:%d/ready" % port
    start = time.monotonic()
    child = subprocess.Popen(argv, cwd=env_dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = Sampler(child.pid, split)
    try:
        while True:
            if child.poll() is not None:
                sys.exit("the server exited: %s" % child.stderr.read().decode(errors="replace"))
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.002)
        elapsed = time.monotonic() - start
        rss, peak = status_kib(child.pid, "VmRSS") / 1024, status_kib(child.pid, "VmHWM") / 1024
        cpu = cpu_seconds(child.pid)
        peak_split = sampler.split()
    finally:
        child.terminate()
        _, errors = child.communicate(timeout=30)
    if state and b"precomputed state is not used" in errors:
        sys.exit("the precomputed state was not used: %s" % errors.decode(errors="replace"))
    return elapsed, rss, peak, cpu, peak_split


def ready(rea, env_dir, state, runs, split=False):
    results = [ready_once(rea, env_dir, state, split) for _ in range(runs)]
    highest = max(results, key=lambda r: r[2])
    return (statistics.median(r[0] for r in results), max(r[1] for r in results),
            max(r[2] for r in results), statistics.median(r[3] for r in results), highest[4])


def split_columns(split):
    return " | %6.1f %6.1f %6.1f" % split


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rea")
    parser.add_argument("captures", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ceilings")
    parser.add_argument("--binary")
    parser.add_argument("--precomputed-only", action="store_true")
    parser.add_argument("--split", action="store_true")
    args = parser.parse_args()
    # The servers run in their env folders.
    args.rea = os.path.abspath(args.rea)
    ceilings = json.load(open(args.ceilings)) if args.ceilings else {}
    work = tempfile.mkdtemp()
    failures = []
    heading = "%-16s %7s %7s %7s %8s | %9s %8s %8s %8s | %9s %8s %8s %8s | %7s %7s %7s" % (
        "capture", "MiB", "build s", "cpu s", "RSS MiB", "derive ms", "cpu ms", "RSS MiB", "peak",
        "state ms", "cpu ms", "RSS MiB", "peak", "speedup", "build x", "serve x")
    if args.split:
        # At the highest sample: the build's, then the precomputed server's.
        heading += " | %6s %6s %6s | %6s %6s %6s" % ("b anon", "b file", "b shm", "s anon",
                                                   "s file", "s shm")
    print(heading)
    try:
        for har in args.captures:
            name = os.path.basename(os.path.dirname(har)) if har.endswith("/build.har") else \
                os.path.splitext(os.path.basename(har))[0]
            size = mib(os.path.getsize(har))
            bundle = os.path.join(work, name)
            build_s, build_cpu, build_rss, report, build_split = build(
                args.rea, har, bundle, args.binary)
            env_dir = os.path.join(bundle, "envs", report["name"])
            has_state = os.path.exists(os.path.join(env_dir, "state.json"))
            derive = None if args.precomputed_only and has_state else \
                ready(args.rea, env_dir, False, args.runs)
            state = ready(args.rea, env_dir, True, args.runs, args.split) if has_state else None
            shown = state or derive
            splits = split_columns(build_split) + split_columns(state[4] if state else (0, 0, 0)) \
                if args.split else ""
            print("%-16s %7.2f %7.2f %7.2f %8.1f | %9s %8s %8s %8s | %9s %8s %8s %8s | %7s %7.1f %7.1f" % (
                name, size, build_s, build_cpu, build_rss,
                "%.1f" % (derive[0] * 1000) if derive else "-",
                "%.0f" % (derive[3] * 1000) if derive else "-",
                "%.1f" % derive[1] if derive else "-", "%.1f" % derive[2] if derive else "-",
                "%.1f" % (state[0] * 1000) if state else "-",
                "%.0f" % (state[3] * 1000) if state else "-", "%.1f" % state[1] if state else "-",
                "%.1f" % state[2] if state else "-",
                "%.1fx" % (derive[0] / state[0]) if state and derive else "-",
                build_rss / size, shown[2] / size) + splits, flush=True)
            limits = ceilings.get(name)
            if limits:
                figures = {"build_s": build_s, "build_rss_mib": build_rss,
                           "ready_ms": shown[0] * 1000, "ready_rss_mib": shown[2]}
                for figure, value in figures.items():
                    if figure in limits and value > limits[figure]:
                        failures.append("%s: %s %.1f over its ceiling %s" % (name, figure, value, limits[figure]))
                if not has_state:
                    failures.append("%s: the bundle has no state.json" % name)
            shutil.rmtree(bundle, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAIL " + failure)
    if ceilings:
        missing = [name for name in ceilings if not any(name in capture for capture in args.captures)]
        for name in missing:
            print("FAIL %s: named in the ceilings but not measured" % name)
        if failures or missing:
            sys.exit(1)
        print("every figure within its ceiling")


main()
