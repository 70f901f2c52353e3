"""The captures' README for Optuna Dashboard (written by record.py after each recording)."""

from appdriver import CAPTURE_FILES
from harlib import producer_notes, render_steps, render_summary_table

import record as R


def render(ver: str, steps: dict, summaries: list[dict]) -> str:
    return f"""# Optuna Dashboard captures

Real HTTP traffic of **optuna-dashboard {ver}** (Bottle under the stdlib `wsgiref` server) on an
**Optuna 5.0.0** SQLite storage with an artifact folder. Recorded on loopback by `record.sh` in this
folder (it installs both from PyPI into `.venv`, writes the seed with `seed.py`, starts
`optuna-dashboard sqlite:///run/optuna.db --host 127.0.0.1 --port {R.APP_PORT} --server wsgiref
--artifact-dir run/artifacts` fresh for each capture, records through mitmdump on port
{R.PROXY_PORT}, stops both by PID with SIGTERM). The dashboard has no authentication.

{CAPTURE_FILES}

{render_summary_table(summaries)}

## Seed (the same before every capture; not recorded)

`seed.py` (run with the app's Python, `PYTHONHASHSEED=0`) creates three studies in a fresh
`run/optuna.db` and adds every trial as a `FrozenTrial` with fixed start/end times (on
2026-11-24, trial *i* of churn-lgbm starts at 09:00 + 10·*i* min, of price-forecast at 12:20 +
10·*i* min, of banner-review at 15:40 + 10·*i* min; each ends 7 min later, running ones have no
end), so ids, numbers, values and timestamps are the same in every capture. Trial ids are global; numbers restart in each study.

| study_id | name | directions (metric names) | user_attrs | trials (trial_id: number state) | notes |
| --- | --- | --- | --- | --- | --- |
| 1 | churn-lgbm | minimize (`logloss`) | team=growth, dataset=churn-2026-10 | 1–6: 0–5 Complete (logloss 0.521, 0.498, 0.534, **0.476**, 0.489, 0.512), 7: 6 Pruned, 8: 7 Fail, **9: 8 Running**, **10: 9 Running**; params `learning_rate` (float, log), `num_leaves` (int), `boosting` (gbdt/dart); intermediate values; user_attr `machine` | study note v1; trial 4 (number 3) note v1 |
| 2 | price-forecast | minimize, minimize (`mape`, `latency_ms`) | team=finance | 11–16: 0–5 Complete; params `model` (arima/prophet/lstm), `window` (7–56 step 7) | — |
| 3 | banner-review | maximize | team=design | 17–18: 0–1 Complete (4, 2), **19: 2 Running**, **20: 3 Running**; params `color`, `font_size` | — (a slider form widget for human scoring) |

The exact rows are in `seed.py` (`CHURN`, `PRICE`, `BANNER`).

{render_steps(steps)}
## What each capture tests

- **build.har** — discover (`/api/meta`, the study list), read each study's detail (trials,
  best trials or Pareto front, search spaces, notes, form widgets), poll with `after=N`, parameter
  importances, CSV exports (all trials, chosen trial numbers); then every write the dashboard
  offers, each followed by the study that shows it: create a study (the new id is nested in
  `study_summary.study_id`), a duplicate name (400), rename (a new study with a **new id**; the old
  id is 404), versioned study and trial notes, `tell` (Complete with values, Fail),
  `user-attrs`, artifact upload to a running trial and to a study (generated UUID `artifact_id`),
  artifact download and delete, study delete.
- **probe-reads.har** — another study, other `after` offsets (the last trial, past the end),
  importances of a two-objective study and of a small one, other CSV selections, errors: missing
  study (404, also for importances and CSV), negative offset (400), CSV trial numbers that do not
  exist (404) or are not integers (400), an unknown plot type (404), a missing artifact (404).
- **probe-crud.har** — create a two-objective study → read → list; refused creates (no
  directions, unknown direction, a seeded name); rename a seeded study (its trials are copied under
  new trial ids) and a rename onto an existing name (400); a note saved with a stale version (409,
  the answer carries the current note), without a version (400), then accepted; a first note on a
  trial; `tell` completing a trial that becomes the best; refused tells (finished trial → 500,
  state Running, missing values, non-numeric values, missing state → 400); user attributes (empty →
  400); artifact upload → download → delete, upload to a finished trial (400), without a file (400);
  delete a seeded study → 404 → list; delete it again (500).

## API styles this app shows (corpus checklist)

| style | here |
| --- | --- |
| action routes (verb segments, RPC bodies naming the target) | yes: `POST /api/trials/<id>/tell` `{{"state", "values"}}`, `POST /api/trials/<id>/user-attrs`, `POST /api/studies/<id>/rename` |
| generated ids nested in created objects | yes: `{{"study_summary": {{"study_id": 4, …}}}}`; `{{"artifact_id": <uuid>, "artifacts": [...]}}`; a rename answers the new study with a new `study_id` |
| revision concurrency | yes: notes carry a `version`; saving must send current + 1, otherwise **409** with the current note |
| validation errors | yes: 400 `{{"reason": …}}` for bad bodies and parameters |
| nested routes mixing two ids | yes: `/api/studies/<study_id>/<trial_id>/note`, `/api/artifacts/<study_id>/<trial_id>`, `/artifacts/<study_id>/<trial_id>/<artifact_id>` |
| an offset cursor | `GET /api/studies/<id>?after=N` answers trials from number N on (the dashboard's polling) |
| fused ids, operator query languages, keyset cursors, `next` links, upserts, documents and folders, soft delete | no |

## What a faithful environment should do

**Study detail.** `GET /api/studies/<id>` answers `{{name, directions, user_attrs: [{{key, value}}],
artifacts, trials, best_trials, intersection_search_space, union_search_space, union_user_attrs,
has_intermediate_values, note: {{version, body}}, is_preferential, objective_names?,
form_widgets?, feedback_component_type, plotly_graph_objects}}`. Each trial: `{{trial_id,
study_id, number, state ("Complete", "Running", "Pruned", "Fail"), params: [{{name,
param_internal_value, param_external_value (a string), param_external_pytyp, distribution}}],
fixed_params, user_attrs, note, artifacts, constraints, intermediate_values: [{{step, value}}],
values, datetime_start, datetime_complete}}` (naive ISO datetimes). `best_trials` is the best
complete trial of a one-objective study and the Pareto front of a two-objective one, so a `tell`
can change it. `after=N` slices `trials` from index N; other keys are unchanged.

**Writes.** Successful writes other than creates answer **204** with an empty JSON body (`{{}}` is
not sent: the body is empty). Creates answer 201. `tell` sets `state`, `values` and
`datetime_complete` (the time of the call). A rename creates a new study (next id), copies the
trials (new trial ids, same numbers), user attributes and notes, and deletes the old study.

**Errors.** `{{"reason": "…"}}` with 400/404/409; unhandled exceptions answer 500 `{{"reason":
"internal server error"}}` (telling a finished trial, deleting a missing study). A path that
matches no route (e.g. a non-numeric study id) would answer Bottle's HTML 404 (not recorded).

**Not deterministic across captures.** Artifact ids (UUID4), `datetime_complete` of trials told
during a capture, `Date`. Everything from the seed is fixed.

## What the captures cannot show

- Plots (`/api/studies/<id>/plot/<type>`) need plotly, which is not installed; only the unknown
  type's 404 is recorded. LLM routes are off (`llm_is_available: false`).
- Preferential (pairwise human feedback) studies and their `/preference` routes, and
  `/<trial_id>/skip`, are not exercised (the seed has no preferential study).
- Parameter importances are computed (fANOVA) from the trials; an environment can only replay
  the recorded numbers, not recompute them after a `tell`.
- The CSV export is `text/csv` computed from the trials; after writes it changes in ways only the
  recorded exports show.

## HAR producer notes

{producer_notes(summaries)}
- wsgiref answers HTTP/1.0 with `Server: WSGIServer/0.2 CPython/3.11.7`; CSV answers are labelled
  `text/csv; chatset=cp932` (sic) with `Content-Disposition: attachment`.
"""
