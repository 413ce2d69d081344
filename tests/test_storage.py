"""Opening stores: the fast path production jobs take falls back to the usual one on a store not set up."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from autotune._storage import make_storage
from autotune.errors import StoreUnreachable


def test_the_fast_path_sets_up_a_new_store_and_opens_a_set_up_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/new.db"
    first = make_storage(url, fast=True)  # no tables yet: the usual path creates them
    assert first.get_all_studies() == [] and not first.skip_compatibility_check  # type: ignore[attr-defined]
    optuna.create_study(study_name="s", storage=first).optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    again = make_storage(url, fast=True)
    assert isinstance(again, optuna.storages.RDBStorage) and again.skip_compatibility_check
    assert len(optuna.load_study(study_name="s", storage=again).trials) == 2


def test_the_fast_path_still_reports_an_unreachable_store() -> None:
    with pytest.raises(StoreUnreachable, match="cannot open"):
        make_storage("postgresql://postgres@127.0.0.1:1/x", fast=True)
