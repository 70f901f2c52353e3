"""Record HAR captures of a real Optuna Dashboard (studies, trials, notes, artifacts).

Run through record.sh (it makes the venvs). For each capture `seed.py` writes a
fresh `run/optuna.db` with the app's own Python (not recorded), the artifact
folder is emptied, and `optuna-dashboard` is started on 127.0.0.1 (wsgiref
server, no authentication: the dashboard has none).
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18813
PROXY_PORT = 18913
S = "/api/studies"
T = "/api/trials"
# trial ids of the seed (global across studies; numbers restart per study)
CHURN_RUNNING = (9, 10)      # churn-lgbm numbers 8 and 9
CHURN_NOTED = 4              # churn-lgbm number 3, has a trial note (version 1)
BANNER_DONE = 17             # banner-review number 0
BANNER_RUNNING = (19, 20)    # banner-review numbers 2 and 3


def prepare(run: Path) -> None:
    db = run / "optuna.db"
    db.unlink(missing_ok=True)
    shutil.rmtree(run / "artifacts", ignore_errors=True)
    (run / "artifacts").mkdir()
    subprocess.run([HERE / ".venv" / "bin" / "python", HERE / "seed.py", db], check=True, env=app_env(),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def app_env() -> dict:
    e = dict(os.environ)
    e["PYTHONHASHSEED"] = "0"  # search-space choice order comes from sets
    return e


def command(run: Path) -> list:
    return [HERE / ".venv" / "bin" / "optuna-dashboard", f"sqlite:///{run / 'optuna.db'}", "--host", "127.0.0.1",
            "--port", str(APP_PORT), "--server", "wsgiref", "--artifact-dir", run / "artifacts"]


def data_uri(mime: str, text: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(text.encode()).decode()}"


# ---------------------------------------------------------------- scenarios
def build_reads(rec: Recorder) -> None:
    rec.section("Discover and read every study")
    rec.call("GET", "/api/meta", "dashboard features (artifacts on, LLM and plotly off)", expect=200)
    rec.call("GET", S, "list studies (study_summaries)", expect=200)
    rec.call("GET", f"{S}/1", "study churn-lgbm: trials, best trial, search spaces, note", expect=200)
    rec.call("GET", f"{S}/2", "study price-forecast (two objectives: best_trials is the Pareto front)", expect=200)
    rec.call("GET", f"{S}/3", "study banner-review (human-in-the-loop form widget, two running trials)", expect=200)
    rec.call("GET", f"{S}/1", "churn-lgbm trials from number 6 on (the dashboard's polling offset)",
             params={"after": "6"}, expect=200)
    rec.call("GET", f"{S}/1/param_importances", "parameter importances of churn-lgbm", expect=200)
    rec.call("GET", "/csv/1", "CSV export of churn-lgbm", expect=200)
    rec.call("GET", "/csv/2", "CSV export of two price-forecast trials", params={"trial_ids": "0,2"}, expect=200)


def build_writes(rec: Recorder) -> None:
    rec.section("Create a study (generated id nested in study_summary), rename it (a new id), delete it")
    r = rec.call("POST", S, "create study ad-ctr (maximize)",
                 json={"study_name": "ad-ctr", "directions": ["maximize"]}, expect=201)
    sid = r.json()["study_summary"]["study_id"]
    rec.call("GET", f"{S}/{sid}", "read the new study (no trials)", expect=200)
    rec.call("GET", S, "list studies: ad-ctr added", expect=200)
    rec.call("POST", S, "create it again: 400 (name exists)",
             json={"study_name": "ad-ctr", "directions": ["maximize"]}, expect=400)
    r = rec.call("POST", f"{S}/{sid}/rename", "rename ad-ctr to ad-ctr-2027 (copies into a new study)",
                 json={"study_name": "ad-ctr-2027"}, expect=201)
    sid2 = r.json()["study_id"]
    rec.call("GET", f"{S}/{sid2}", "read the renamed study at its new id", expect=200)
    rec.call("GET", f"{S}/{sid}", "the old id: 404", expect=404)
    rec.call("GET", S, "list studies: ad-ctr-2027 instead of ad-ctr", expect=200)

    rec.section("Notes with a version number (optimistic concurrency)")
    rec.call("PUT", f"{S}/1/note", "save the study note as version 2",
             json={"version": 2, "body": "# churn-lgbm\n\nBaseline 0.52; best 0.476 (trial 3)."}, expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm: note version 2", expect=200)
    rec.call("PUT", f"{S}/1/{CHURN_NOTED}/note", "save trial 3's note as version 2 (study id, trial id, note)",
             json={"version": 2, "body": "No leakage found."}, expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm from number 3 on: the trial note", params={"after": "3"}, expect=200)

    rec.section("Tell running trials their result (action route /api/trials/<id>/tell)")
    rec.call("POST", f"{T}/{CHURN_RUNNING[0]}/tell", "complete churn-lgbm number 8 with logloss 0.462",
             json={"state": "Complete", "values": [0.462]}, expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm: number 8 complete and now the best trial", expect=200)
    rec.call("POST", f"{T}/{CHURN_RUNNING[1]}/tell", "fail churn-lgbm number 9", json={"state": "Fail"}, expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm from number 8 on", params={"after": "8"}, expect=200)
    rec.call("GET", "/csv/1", "CSV export shows both new states", expect=200)

    rec.section("Human-in-the-loop: user attributes, tell, artifacts")
    rec.call("POST", f"{T}/{BANNER_RUNNING[0]}/user-attrs", "set user attributes on banner-review number 2",
             json={"user_attrs": {"reviewer": "ana", "comment": "too dark"}}, expect=204)
    rec.call("POST", f"{T}/{BANNER_RUNNING[0]}/tell", "complete it with score 3",
             json={"state": "Complete", "values": [3]}, expect=204)
    rec.call("GET", f"{S}/3", "read banner-review: number 2 complete with its attributes", expect=200)
    r = rec.call("POST", f"/api/artifacts/3/{BANNER_RUNNING[1]}", "upload an SVG to running trial number 3",
                 json={"file": data_uri("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'/>"),
                       "filename": "banner-v4.svg"}, expect=201)
    art = r.json()["artifact_id"]
    rec.call("GET", f"{S}/3", "read banner-review: the trial lists the artifact", expect=200)
    rec.call("GET", f"/artifacts/3/{BANNER_RUNNING[1]}/{art}", "download the artifact", expect=200)
    r = rec.call("POST", "/api/artifacts/1", "upload a study-level text artifact to churn-lgbm",
                 json={"file": data_uri("text/plain", "age\ntenure\nplan\n"), "filename": "features.txt"},
                 expect=201)
    art2 = r.json()["artifact_id"]
    rec.call("GET", f"{S}/1", "read churn-lgbm: the study lists the artifact", expect=200)
    rec.call("GET", f"/artifacts/1/{art2}", "download it", expect=200)
    rec.call("DELETE", f"/api/artifacts/1/{art2}", "delete the study artifact", expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm: no artifacts", expect=200)

    rec.section("Delete the renamed study")
    rec.call("DELETE", f"{S}/{sid2}", "delete ad-ctr-2027", expect=204)
    rec.call("GET", f"{S}/{sid2}", "read it: 404", expect=404)
    rec.call("GET", S, "list studies: the seed's three", expect=200)


def scenario_build(rec: Recorder) -> None:
    build_reads(rec)
    build_writes(rec)


def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Other studies, offsets and exports")
    rec.call("GET", f"{S}/3", "banner-review", expect=200)
    rec.call("GET", f"{S}/2", "price-forecast from number 3 on", params={"after": "3"}, expect=200)
    rec.call("GET", f"{S}/1", "churn-lgbm from number 9 on (the last trial)", params={"after": "9"}, expect=200)
    rec.call("GET", f"{S}/1", "an offset past the end: no trials", params={"after": "20"}, expect=200)
    rec.call("GET", f"{S}/2/param_importances", "importances per objective of price-forecast", expect=200)
    rec.call("GET", f"{S}/3/param_importances", "importances of banner-review (two complete trials)",
             expect=200)
    rec.call("GET", "/csv/3", "CSV export of banner-review", expect=200)
    rec.call("GET", "/csv/1", "CSV export of three churn-lgbm trials", params={"trial_ids": "3,4,5"}, expect=200)
    rec.call("GET", "/api/meta", "dashboard features", expect=200)

    rec.section("Errors")
    rec.call("GET", f"{S}/99", "a study id that does not exist: 404", expect=404)
    rec.call("GET", f"{S}/1", "a negative offset: 400", params={"after": "-1"}, expect=400)
    rec.call("GET", f"{S}/99/param_importances", "importances of a missing study: 404", expect=404)
    rec.call("GET", "/csv/99", "CSV of a missing study: 404", expect=404)
    rec.call("GET", "/csv/1", "CSV of trial numbers that do not exist: 404", params={"trial_ids": "99"}, expect=404)
    rec.call("GET", "/csv/1", "CSV with trial_ids that are not integers: 400", params={"trial_ids": "a,b"},
             expect=400)
    rec.call("GET", f"{S}/1/plot/heatmap", "a plot type that does not exist: 404", expect=404)
    rec.call("GET", "/artifacts/1/00000000-0000-4000-8000-000000000000", "an artifact that does not exist: 404",
             expect=404)


def scenario_probe_crud(rec: Recorder) -> None:
    rec.section("Create a two-objective study; refused creates")
    r = rec.call("POST", S, "create latency-vs-cost (minimize, minimize)",
                 json={"study_name": "latency-vs-cost", "directions": ["minimize", "minimize"]}, expect=201)
    sid = r.json()["study_summary"]["study_id"]
    rec.call("GET", f"{S}/{sid}", "read it", expect=200)
    rec.call("GET", S, "list studies", expect=200)
    rec.call("POST", S, "no directions: 400", json={"study_name": "x", "directions": []}, expect=400)
    rec.call("POST", S, "an unknown direction: 400", json={"study_name": "x", "directions": ["up"]}, expect=400)
    rec.call("POST", S, "a seeded name: 400", json={"study_name": "churn-lgbm", "directions": ["minimize"]},
             expect=400)
    rec.call("GET", S, "list studies: unchanged", expect=200)

    rec.section("Rename a seeded study (its trials are copied under new trial ids)")
    r = rec.call("POST", f"{S}/2/rename", "rename price-forecast to price-forecast-2027",
                 json={"study_name": "price-forecast-2027"}, expect=201)
    sid2 = r.json()["study_id"]
    rec.call("GET", f"{S}/{sid2}", "read it at its new id", expect=200)
    rec.call("GET", f"{S}/2", "the old id: 404", expect=404)
    rec.call("GET", S, "list studies", expect=200)
    rec.call("POST", f"{S}/{sid2}/rename", "rename onto an existing name: 400", json={"study_name": "banner-review"},
             expect=400)

    rec.section("Notes: a stale version is refused with the current note")
    rec.call("PUT", f"{S}/1/note", "save with version 1 (current is 1): 409 with the current note",
             json={"version": 1, "body": "overwrite"}, expect=409)
    rec.call("PUT", f"{S}/1/note", "no version: 400", json={"body": "x"}, expect=400)
    rec.call("PUT", f"{S}/1/note", "save version 2", json={"version": 2, "body": "Reviewed on 2026-12-01."},
             expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm: note version 2", expect=200)
    rec.call("PUT", f"{S}/3/{BANNER_DONE}/note", "first note on banner-review number 0 (version 1)",
             json={"version": 1, "body": "Control banner."}, expect=204)
    rec.call("GET", f"{S}/3", "read banner-review: the trial note", expect=200)

    rec.section("Tell: complete a trial; refused tells")
    rec.call("POST", f"{T}/{CHURN_RUNNING[1]}/tell", "complete churn-lgbm number 9 with logloss 0.455 (new best)",
             json={"state": "Complete", "values": [0.455]}, expect=204)
    rec.call("GET", f"{S}/1", "read churn-lgbm from number 8 on", params={"after": "8"}, expect=200)
    rec.call("GET", f"{S}/1", "read churn-lgbm: best_trials is number 9", expect=200)
    rec.call("POST", f"{T}/{CHURN_RUNNING[1]}/tell", "tell the finished trial again: 500 (the app's answer)",
             json={"state": "Complete", "values": [0.4]}, expect=500)
    rec.call("POST", f"{T}/{CHURN_RUNNING[0]}/tell", "state Running: 400", json={"state": "Running"}, expect=400)
    rec.call("POST", f"{T}/{CHURN_RUNNING[0]}/tell", "Complete without values: 400", json={"state": "Complete"},
             expect=400)
    rec.call("POST", f"{T}/{CHURN_RUNNING[0]}/tell", "values that are not numbers: 400",
             json={"state": "Complete", "values": ["low"]}, expect=400)
    rec.call("POST", f"{T}/{CHURN_RUNNING[0]}/tell", "no state: 400", json={"values": [0.5]}, expect=400)
    rec.call("GET", f"{S}/1", "churn-lgbm number 8 still running", params={"after": "8"}, expect=200)

    rec.section("User attributes and artifacts on a running trial")
    rec.call("POST", f"{T}/{BANNER_RUNNING[1]}/user-attrs", "no attributes: 400", json={"user_attrs": {}},
             expect=400)
    rec.call("POST", f"{T}/{BANNER_RUNNING[1]}/user-attrs", "set reviewer on banner-review number 3",
             json={"user_attrs": {"reviewer": "bo"}}, expect=204)
    rec.call("GET", f"{S}/3", "read banner-review: the attribute", expect=200)
    r = rec.call("POST", f"/api/artifacts/3/{BANNER_RUNNING[1]}", "upload a text note to number 3",
                 json={"file": data_uri("text/plain", "teal, 22px"), "filename": "notes.txt"}, expect=201)
    art = r.json()["artifact_id"]
    rec.call("GET", f"/artifacts/3/{BANNER_RUNNING[1]}/{art}", "download it", expect=200)
    rec.call("DELETE", f"/api/artifacts/3/{BANNER_RUNNING[1]}/{art}", "delete it", expect=204)
    rec.call("GET", f"{S}/3", "read banner-review: no artifact", expect=200)
    rec.call("POST", f"/api/artifacts/3/{BANNER_DONE}", "upload to a finished trial: 400",
             json={"file": data_uri("text/plain", "x"), "filename": "x.txt"}, expect=400)
    rec.call("POST", "/api/artifacts/3", "upload without a file: 400", json={"filename": "x.txt"}, expect=400)

    rec.section("Delete a seeded study")
    rec.call("DELETE", f"{S}/3", "delete banner-review", expect=204)
    rec.call("GET", f"{S}/3", "read it: 404", expect=404)
    rec.call("GET", S, "list studies", expect=200)
    rec.call("DELETE", f"{S}/3", "delete it again: 500 (the app answers a missing study so)", expect=500)


SCENARIOS = [("build", scenario_build), ("probe-reads", scenario_probe_reads), ("probe-crud", scenario_probe_crud)]


def main() -> None:
    import readme

    spec = AppSpec(
        name="optuna_dashboard", here=HERE, dist="optuna-dashboard", app_port=APP_PORT, proxy_port=PROXY_PORT,
        command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare, env=app_env(),
        ready_path="/api/meta", stop_signal=signal.SIGTERM,
    )
    record_app(spec)


if __name__ == "__main__":
    main()
