"""A long history for a production study, bulk-created in Optuna's own tables (benchmarks and tests of the
service's cost at 10,000-100,000 trials, which real ask/tell processes would take hours to write)."""

from __future__ import annotations

import datetime
import json
import random
import time
from pathlib import Path
from typing import Any

import optuna
import yaml
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution, distribution_to_json
from optuna.storages._rdb import models
from sqlalchemy import create_engine, func, select, text

EXAMPLE = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"  # in a checkout


def production_campaign(tmp: Path) -> Path:
    """The example model campaign (``experiments/campaigns/model-theta-ior.yaml``) as production jobs use it: its work
    directory in ``tmp``, no tracking; returns the file written."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["tracking"] = {"enabled": False}
    data["workdir"] = str(tmp / "work")
    path = tmp / "prod.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _value(rng: random.Random, dist: Any) -> float:
    """A random internal value of an Optuna distribution (categorical: an index)."""
    if isinstance(dist, CategoricalDistribution):
        return float(rng.randrange(len(dist.choices)))
    if isinstance(dist, IntDistribution):
        if dist.log:
            return float(min(dist.high, max(dist.low, round(dist.low * (dist.high / dist.low) ** rng.random()))))
        return float(dist.low + dist.step * rng.randrange((dist.high - dist.low) // dist.step + 1))
    assert isinstance(dist, FloatDistribution)
    return dist.low + (dist.high - dist.low) * rng.random()


def grow_study(url: str, study_name: str, to: int, seed: int) -> None:
    """Bulk-insert completed production trials until the study holds ``to`` trials (the rows Optuna writes)."""
    storage = optuna.storages.RDBStorage(url, skip_compatibility_check=True, skip_table_creation=True)
    sid = storage.get_study_id_from_name(study_name)
    template = storage.get_trial(storage.get_trial_id_from_study_id_trial_number(sid, 0))
    dists = {k: (d, distribution_to_json(d)) for k, d in template.distributions.items()}
    engine = create_engine(url)
    rng = random.Random(seed)
    with engine.begin() as conn:
        have = conn.execute(select(func.count()).select_from(models.TrialModel.__table__)
                            .where(models.TrialModel.__table__.c.study_id == sid)).scalar_one()
        first_id = (conn.execute(select(func.max(models.TrialModel.__table__.c.trial_id))).scalar() or 0) + 1
        now = datetime.datetime.now()
        for start in range(have, to, 5000):
            trials, params, values, attrs = [], [], [], []
            for number in range(start, min(to, start + 5000)):
                tid = first_id + number - have
                trials.append({"trial_id": tid, "number": number, "study_id": sid, "state": "COMPLETE",
                               "datetime_start": now, "datetime_complete": now})
                params += [{"trial_id": tid, "param_name": k, "param_value": _value(rng, d), "distribution_json": j}
                           for k, (d, j) in dists.items()]
                v = rng.lognormvariate(0.0, 0.3) * 1000.0
                values.append({"trial_id": tid, "objective": 0, "value": v, "value_type": "FINITE"})
                for k, a in {"ran": True, "service": "best", "worker": "service", "job_id": str(number),
                             "repetitions": [v], "told_at": time.time(), "is_default": False}.items():
                    attrs.append({"trial_id": tid, "key": k, "value_json": json.dumps(a)})
            conn.execute(models.TrialModel.__table__.insert(), trials)
            conn.execute(models.TrialParamModel.__table__.insert(), params)
            conn.execute(models.TrialValueModel.__table__.insert(), values)
            conn.execute(models.TrialUserAttributeModel.__table__.insert(), attrs)
        if engine.dialect.name == "postgresql":  # explicit ids: move the sequence past them
            conn.execute(text("SELECT setval(pg_get_serial_sequence('trials', 'trial_id'), "
                              "(SELECT MAX(trial_id) FROM trials))"))
    engine.dispose()
