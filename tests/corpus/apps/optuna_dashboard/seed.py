"""Write the Optuna seed into a fresh SQLite file (run with the app's own Python).

Usage: .venv/bin/python seed.py run/optuna.db

Every trial is added as a FrozenTrial with fixed start and end times, so ids,
numbers, values and timestamps are the same on every run. Not recorded.
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import FrozenTrial, TrialState
from optuna_dashboard import SliderWidget, register_objective_form_widgets
from optuna_dashboard._note import save_note_with_version

T0 = datetime(2026, 11, 24, 9, 0, 0)

CHURN_DIST = {
    "learning_rate": FloatDistribution(0.001, 0.3, log=True),
    "num_leaves": IntDistribution(16, 256),
    "boosting": CategoricalDistribution(["gbdt", "dart"]),
}
# number: (state, logloss or None, learning_rate, num_leaves, boosting, intermediate, user_attrs)
CHURN = [
    ("COMPLETE", 0.521, 0.1, 31, "gbdt", {0: 0.61, 1: 0.55, 2: 0.521}, {"machine": "gpu-1"}),
    ("COMPLETE", 0.498, 0.05, 63, "gbdt", {0: 0.6, 1: 0.52, 2: 0.498}, {"machine": "gpu-2"}),
    ("COMPLETE", 0.534, 0.2, 128, "dart", {0: 0.58, 1: 0.54, 2: 0.534}, {"machine": "gpu-1"}),
    ("COMPLETE", 0.476, 0.03, 96, "gbdt", {0: 0.59, 1: 0.5, 2: 0.476}, {"machine": "gpu-2"}),
    ("COMPLETE", 0.489, 0.02, 200, "dart", {0: 0.62, 1: 0.51, 2: 0.489}, {"machine": "gpu-1"}),
    ("COMPLETE", 0.512, 0.008, 48, "gbdt", {0: 0.66, 1: 0.56, 2: 0.512}, {"machine": "gpu-2"}),
    ("PRUNED", None, 0.25, 240, "dart", {0: 0.71, 1: 0.69}, {"machine": "gpu-1"}),
    ("FAIL", None, 0.0015, 20, "gbdt", {}, {"machine": "gpu-2", "error": "OOM"}),
    ("RUNNING", None, 0.04, 80, "gbdt", {0: 0.6}, {"machine": "gpu-1"}),
    ("RUNNING", None, 0.012, 150, "dart", {}, {"machine": "gpu-2"}),
]

PRICE_DIST = {
    "model": CategoricalDistribution(["arima", "prophet", "lstm"]),
    "window": IntDistribution(7, 56, step=7),
}
# (mape, latency_ms, model, window)
PRICE = [
    (0.121, 35.0, "prophet", 28),
    (0.098, 120.0, "lstm", 56),
    (0.143, 12.0, "arima", 14),
    (0.110, 80.0, "lstm", 28),
    (0.131, 20.0, "arima", 28),
    (0.125, 60.0, "prophet", 56),
]

BANNER_DIST = {
    "color": CategoricalDistribution(["teal", "orange", "navy"]),
    "font_size": IntDistribution(12, 24),
}
# (state, score or None, color, font_size)
BANNER = [
    ("COMPLETE", 4.0, "teal", 16),
    ("COMPLETE", 2.0, "orange", 20),
    ("RUNNING", None, "navy", 14),
    ("RUNNING", None, "teal", 22),
]


def frozen(i: int, state: str, values, params: dict, dist: dict, inter=None, attrs=None) -> FrozenTrial:
    start = T0 + timedelta(minutes=10 * i)
    st = TrialState[state]
    return FrozenTrial(
        number=0, trial_id=0, state=st, value=None, values=values,
        datetime_start=start, datetime_complete=None if st == TrialState.RUNNING else start + timedelta(minutes=7),
        params=params, distributions={k: dist[k] for k in params}, user_attrs=attrs or {}, system_attrs={},
        intermediate_values=inter or {},
    )


def seed(url: str) -> None:
    storage = optuna.storages.RDBStorage(url)
    churn = optuna.create_study(storage=storage, study_name="churn-lgbm", direction="minimize")
    churn.set_metric_names(["logloss"])
    churn.set_user_attr("team", "growth")
    churn.set_user_attr("dataset", "churn-2026-10")
    for i, (state, v, lr, nl, bo, inter, attrs) in enumerate(CHURN):
        churn.add_trial(frozen(i, state, None if v is None else [v],
                               {"learning_rate": lr, "num_leaves": nl, "boosting": bo}, CHURN_DIST, inter, attrs))
    save_note_with_version(storage, churn._study_id, None, 1, "# churn-lgbm\n\nBaseline: logloss 0.52 (trial 0).")
    save_note_with_version(storage, churn._study_id, churn.trials[3]._trial_id, 1, "Best so far; check for leakage.")

    price = optuna.create_study(storage=storage, study_name="price-forecast", directions=["minimize", "minimize"])
    price.set_metric_names(["mape", "latency_ms"])
    price.set_user_attr("team", "finance")
    for i, (mape, lat, model, window) in enumerate(PRICE):
        price.add_trial(frozen(20 + i, "COMPLETE", [mape, lat], {"model": model, "window": window}, PRICE_DIST))

    banner = optuna.create_study(storage=storage, study_name="banner-review", direction="maximize")
    banner.set_user_attr("team", "design")
    register_objective_form_widgets(banner, widgets=[
        SliderWidget(min=1, max=5, step=1, description="How good is the banner? (1-5)"),
    ])
    for i, (state, v, color, size) in enumerate(BANNER):
        banner.add_trial(frozen(40 + i, state, None if v is None else [v], {"color": color, "font_size": size},
                                BANNER_DIST))


if __name__ == "__main__":
    seed(f"sqlite:///{sys.argv[1]}")
