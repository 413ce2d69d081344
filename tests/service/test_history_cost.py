"""ask, tell, hints and status read a bounded number of trials, however long the study's history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.cli import main
from autotune.service._asktell import WINDOW
from autotune.testing import grow_study

LONG = ("--timeout", "300s")


@pytest.mark.slow
def test_commands_read_a_bounded_number_of_trials(campaign: Path, tmp_path: Path, capsys: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path}/big.db"
    store = ("--storage", url)
    assert main(["ask", str(campaign), *store, "--format", "json", *LONG]) == 0
    ref = json.loads(capsys.readouterr().out)["trial"]
    assert main(["tell", str(campaign), *store, "--trial", ref, "--value", "900", *LONG]) == 0
    capsys.readouterr()
    grow_study(url, ref.split(":")[0], 4 * WINDOW, seed=3)
    loaded: list[int] = []
    bulk, one = optuna.storages.RDBStorage._get_trials, optuna.storages.RDBStorage.get_trial

    def counting_bulk(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = bulk(self, *args, **kwargs)
        loaded.append(len(out))
        return out

    def counting_one(self: Any, trial_id: int) -> Any:
        loaded.append(1)
        return one(self, trial_id)

    monkeypatch.setattr(optuna.storages.RDBStorage, "_get_trials", counting_bulk)
    monkeypatch.setattr(optuna.storages.RDBStorage, "get_trial", counting_one)
    reads = {}
    for name, argv in (("ask best", ["ask", str(campaign), *store, "--format", "json", "--explore", "0", *LONG]),
                       ("ask explore", ["ask", str(campaign), *store, "--format", "json", "--explore", "1", "--seed",
                                        "2", *LONG])):
        loaded.clear()
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        reads[name] = sum(loaded)
        loaded.clear()
        assert main(["tell", str(campaign), *store, "--trial", out["trial"], "--value", "950", *LONG]) == 0
        reads[f"tell after {name}"] = sum(loaded)
        capsys.readouterr()
    for name, argv in (("hints", ["hints", str(campaign), *store, *LONG]), ("status", ["status", str(campaign), *store])):
        loaded.clear()
        assert main(argv) == 0
        reads[name] = sum(loaded)
    capsys.readouterr()
    # the study holds 2,000 trials: each command reads at most the exploration window and a few single trials
    assert max(reads.values()) <= WINDOW + 30, reads
    assert reads["ask best"] <= 10 and reads["hints"] <= 10 and reads["tell after ask best"] <= 10, reads
