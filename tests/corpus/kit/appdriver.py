"""The loop every Python app recorder runs (one app, three captures).

For each scenario (build, probe-reads, probe-crud): make the app's seed
(`prepare`, not recorded), start the app fresh on 127.0.0.1, wait for its
port, finish seeding through the live app if it needs to (`seed_live`, not
recorded), start mitmdump as a loopback proxy writing `<scenario>.har`, run
the scenario through a numbered `Recorder`, stop the proxy (the HAR is
written) and stop the app by the PID (process group) this loop started.
Then validate every HAR, keep the numbered steps in `run/steps.json` and
write the app's README.md with its own `render` function.

An app recorder fills in an `AppSpec` and calls `record_app`.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harlib import Proxy, Recorder, app_version, print_summary, start_process, stop_pid, wait_for_port

Scenario = Callable[[Recorder], None]


@dataclass
class AppSpec:
    name: str                       # folder name, used in log file names
    here: Path                      # the app's folder: HARs and README.md go here
    dist: str                       # the PyPI distribution whose version the README names ("" with `version`)
    app_port: int
    proxy_port: int
    command: Callable[[Path], list]  # argv that starts the app, given the run/ folder
    scenarios: list                 # [(name, fn(Recorder))] in recording order
    render_readme: Callable[[str, dict, list], str]
    prepare: Callable[[Path], None] = lambda run: None   # make the seed before the app starts
    seed_live: Callable[[str], None] = lambda base: None  # seed through the running app
    headers: dict = field(default_factory=dict)          # sent with every recorded request
    ready_path: str | None = None   # GET this until it answers < 500 before seeding
    env: dict | None = None
    stop_signal: int = signal.SIGINT
    settle: float = 0.3             # seconds to wait after the app is ready
    version: Callable[[], str] | None = None  # the app's version when it is not `dist` in .venv (npm, Debian)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.app_port}"

    @property
    def run(self) -> Path:
        return self.here / "run"


def wait_ready(spec: AppSpec, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    wait_for_port(spec.app_port, timeout, proc)
    if spec.ready_path is None:
        time.sleep(spec.settle)
        return
    import httpx

    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            r = httpx.get(spec.base + spec.ready_path, headers=spec.headers, timeout=5, trust_env=False)
            if r.status_code < 500:
                time.sleep(spec.settle)
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{spec.name}: {spec.ready_path} not ready after {timeout}s")


def record_scenario(spec: AppSpec, name: str, fn: Scenario) -> list[str]:
    spec.run.mkdir(exist_ok=True)
    spec.prepare(spec.run)
    log = spec.run / f"{spec.name}-{name}.log"
    log.write_bytes(b"")
    app = start_process(spec.command(spec.run), log, cwd=spec.run, env=spec.env)
    try:
        wait_ready(spec, app)
        spec.seed_live(spec.base)
        with Proxy(spec.here / f"{name}.har", spec.proxy_port, spec.run / f"mitmdump-{name}.log"):
            rec = Recorder(spec.base, spec.proxy_port, headers=dict(spec.headers))
            try:
                fn(rec)
            finally:
                rec.close()
        return rec.steps
    finally:
        stop_pid(app, spec.stop_signal, 30)


CAPTURE_FILES = """| file | what it is |
| --- | --- |
| `build.har` | the agent session an environment is built from |
| `probe-reads.har` | reads only, after a restart from the same seed |
| `probe-crud.har` | writes with reads after each, after a restart from the same seed |"""


def npm_version(here: Path, package: str) -> str:
    """The version of an npm package installed in `here/node_modules`."""
    return json.loads((here / "node_modules" / package / "package.json").read_text())["version"]


def record_app(spec: AppSpec) -> None:
    steps = {}
    for name, fn in spec.scenarios:
        print(f"== {spec.name}: {name}", file=sys.stderr)
        steps[name] = record_scenario(spec, name, fn)
    summaries = print_summary([spec.here / f"{n}.har" for n, _ in spec.scenarios])
    (spec.run / "steps.json").write_text(json.dumps({"steps": steps, "summaries": summaries}, indent=2))
    ver = spec.version() if spec.version else app_version(spec.here / ".venv", spec.dist)
    (spec.here / "README.md").write_text(spec.render_readme(ver, steps, summaries))
    print(f"wrote README.md and {len(spec.scenarios)} HARs", file=sys.stderr)
