"""What `ask` and `hints` print runs in a job script under ``bash -euo pipefail`` with only what the production
guide has a job set; `ask`, `tell` and `hints` find the store in one order (--storage, $AUTOTUNE_STORAGE, the
campaign) and `ask` says when the study is private to its directory."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.cli import main
from autotune.hints import FORMATS

LONG = ("--timeout", "300s")
SHELL = ("env", "job", "lfs", "mpich", "dw")  # theta runs Cray MPICH: --format ompi is refused there


def run_job(tmp: Path, text: str) -> subprocess.CompletedProcess[str]:
    """``text`` as a job script runs it: bash -euo pipefail, a clean environment (no OUTPUT_DIR), a stub lfs."""
    (tmp / "bin").mkdir(exist_ok=True)
    (tmp / "bin" / "lfs").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {tmp}/lfs-args\n')
    (tmp / "bin" / "lfs").chmod(0o755)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", text + '\nprintf "%s" "${MPICH_MPIIO_HINTS:-}" > seen'],
                          cwd=tmp, env={"PATH": f"{tmp}/bin:/usr/bin:/bin", "HOME": str(tmp)},
                          capture_output=True, text=True, timeout=30)


def ask(capsys: Any, *args: str) -> tuple[str, str]:
    assert main(["ask", *args, *LONG]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def told(capsys: Any, campaign: Path, out: str, value: str, *store: str) -> None:
    ref = next(ln.split("=", 1)[1] for ln in out.splitlines() if ln.startswith("export AUTOTUNE_TRIAL="))
    assert main(["tell", str(campaign), "--trial", ref, "--value", value, *store, *LONG]) == 0
    capsys.readouterr()


@pytest.mark.slow  # about 5 s: five asks and tells and every hints format through the command line
def test_ask_and_hints_output_runs_under_set_euo_pipefail(campaign: Path, tmp_path: Path, capsys: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    monkeypatch.chdir(tmp_path)
    out, err = ask(capsys, str(campaign), "--seed", "0")
    assert "no shared store (--storage URL or $AUTOTUNE_STORAGE)" in err and "private to this directory" in err
    assert len([ln for ln in err.splitlines() if "no shared store" in ln]) == 1
    told(capsys, campaign, out, "1000")
    out, _ = ask(capsys, str(campaign), "--explore", "1", "--seed", "3")
    told(capsys, campaign, out, "5000")  # the explored configuration is now the best known
    out, _ = ask(capsys, str(campaign), "--explore", "0")
    assert "lfs setstripe" in out and "MPICH_MPIIO_HINTS" in out
    res = run_job(tmp_path, out)
    assert res.returncode == 0, res.stderr
    assert "$OUTPUT_DIR is not set: striping not applied" in res.stderr and not (tmp_path / "lfs-args").exists()
    for fmt in FORMATS:
        code = main(["hints", str(campaign), "--format", fmt, *LONG])
        text, note = capsys.readouterr()
        assert code == 0
        if fmt == "ompi":  # an Open MPI format on Cray MPICH: the defaults, and why on stderr
            assert text.strip() == "# defaults: nothing to set" and "OMPI_MCA_* parameters and OMPIO are Open MPI's" in note
        elif fmt in SHELL:
            res = run_job(tmp_path, text)
            assert res.returncode == 0, (fmt, text, res.stderr)


def test_one_store_order_for_ask_tell_and_hints(campaign: Path, tmp_path: Path, capsys: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    site, other = f"sqlite:///{tmp_path}/site.db", f"sqlite:///{tmp_path}/other.db"
    monkeypatch.setenv("AUTOTUNE_STORAGE", site)
    out, err = ask(capsys, str(campaign), "--seed", "0")
    assert "no shared store" not in err
    told(capsys, campaign, out, "1200")  # tell finds the trial through $AUTOTUNE_STORAGE too
    study = optuna.load_study(study_name="model-theta-ior", storage=site)
    assert [t.value for t in study.trials] == [1200]
    assert not (tmp_path / "work" / "optuna.db").exists()  # nothing private was created
    assert main(["hints", str(campaign), *LONG]) == 0
    assert "from study 'model-theta-ior' trial 0" in capsys.readouterr().err
    ask(capsys, str(campaign), "--seed", "0", "--storage", other)  # the flag comes first
    assert len(optuna.load_study(study_name="model-theta-ior", storage=other).trials) == 1
    assert len(optuna.load_study(study_name="model-theta-ior", storage=site).trials) == 1
    monkeypatch.setenv("AUTOTUNE_STORAGE", "not a url")
    assert main(["ask", str(campaign), *LONG]) == 2
    assert "$AUTOTUNE_STORAGE" in capsys.readouterr().err  # a bad value is named where it came from


def test_export_and_hints_leave_out_what_the_trial_showed_not_in_effect(campaign: Path, capsys: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from autotune import trialrecord
    from autotune.space import CATALOGUE

    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    out, _ = ask(capsys, str(campaign), "--seed", "0")
    told(capsys, campaign, out, "1000")
    out, _ = ask(capsys, str(campaign), "--explore", "1", "--seed", "3")
    told(capsys, campaign, out, "5000")
    def exported(cmd: str) -> dict[str, Any]:
        assert main([cmd, str(campaign), "--format", "json", *(LONG if cmd == "hints" else ())]) == 0
        return dict(json.loads(capsys.readouterr().out)["config"])

    before = exported("export")
    assert exported("hints") == before
    hinted = [k for k in before if (CATALOGUE.get(k) is not None and CATALOGUE[k].mpi_info)]
    assert hinted, before
    out, _ = ask(capsys, str(campaign), "--explore", "0")  # the best configuration again, its run shows a hint ignored
    study = optuna.load_study(study_name="model-theta-ior", storage=f"sqlite:///{campaign.parent}/work/optuna.db")
    running = study.get_trials(states=(optuna.trial.TrialState.RUNNING,))[0]
    trialrecord.write_stored(study._storage, running._trial_id, hints_not_in_effect={
        CATALOGUE[hinted[0]].mpi_info: {"requested": "x", "in_effect": None, "why": "test"}})
    told(capsys, campaign, out, "9000")
    for cmd in ("export", "hints"):
        after = exported(cmd)
        assert hinted[0] not in after and set(after) == set(before) - {hinted[0]}, (cmd, after)


@pytest.mark.parametrize(("argv", "says"), [(("--explore", "2"), "--explore: 2.0 must be a fraction"),
                                            (("--timeout", "nan"), "--timeout: 'nan' is not a duration")])
def test_a_bad_ask_argument_is_the_only_line_before_any_store_notice(campaign: Path, tmp_path: Path, capsys: Any,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      argv: tuple[str, ...], says: str) -> None:
    """A private store's notice is for a job that asks; a bad argument stops before it, one line (exit 2)."""
    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["ask", str(campaign), *argv]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and says in err[0]
