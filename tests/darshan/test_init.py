"""``init --from-darshan`` on every log shipped inside PyDarshan: a valid campaign whose pattern matches what
Darshan reports, and a diagnosis; bad input is one line and exit 2."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from autotune.cli import main
from autotune.darshan import campaign_from_log
from autotune.errors import ConfigError

from .conftest import IN_DATA, PACKAGE, darshan_figures, dry_run_here, log_id, shipped_logs

LOGS = shipped_logs()
IOR_HDF5 = PACKAGE / "examples" / "example_logs" / "ior_hdf5_example.darshan"
VPIC = PACKAGE / "tests" / "input" / "sample.darshan"
GOODOST = PACKAGE / "tests" / "input" / "sample-goodost.darshan"


def test_the_folders_hold_the_logs_the_issue_names() -> None:
    names = {p.name for p in LOGS}
    assert len(LOGS) >= 12
    assert {"ior_hdf5_example.darshan", "dxt.darshan", "sample-badost.darshan", "sample-goodost.darshan",
            "noposix.darshan"} <= names
    assert any(n.startswith("shane_macsio") for n in names)


def _init(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    out = tmp_path / "campaign.yaml"
    rc = main(["init", "--from-darshan", str(log), "-o", str(out), "--force", *extra])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.mark.slow
@pytest.mark.parametrize("log", LOGS, ids=log_id)
def test_every_shipped_log(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = darshan_figures(log)
    rc, out, err = _init(log, tmp_path, capsys)   # no --system: a known site's profile, else a draft from the log
    if not figures["files"]:  # Darshan itself has no POSIX/MPI-IO bytes for this job
        assert rc == 2 and len(err.strip().splitlines()) == 1, err
        assert "POSIX" in err and "darshan log" in err
        return
    if rc == 2 and "names it, so every trial would write over it" in err:   # a hard-coded output path
        assert len(err.strip().splitlines()) == 1 and "--app-command" in err and "{data_dir}/" in err, err
        rc, out, err = _init(log, tmp_path, capsys, "--app-command", *IN_DATA)
    assert rc == 0, err
    assert "diagnosis" in out and "[headroom]" in out
    campaign = tmp_path / "campaign.yaml"
    assert main(["space", str(campaign)]) == 0
    dry_run_here(campaign, tmp_path / "w", capsys)

    from autotune.campaign import load_campaign

    c = load_campaign(campaign)
    p = c.app.pattern
    assert c.app.ranks == p.ranks == figures["nprocs"]
    phases = [op for op, key in (("write", "written"), ("read", "read")) if figures[key] > 0]
    assert sorted(p.phases) == sorted(phases)
    main_op = "read" if figures["pool_read"] >= 2 * figures["pool_written"] else "write"
    main_bytes = figures["pool_written"] if main_op == "write" else figures["pool_read"]
    assert p.bytes_per_rank == math.ceil(main_bytes / p.ranks)
    assert c.objective.metric == f"{main_op}_bandwidth_mib_s"
    top = figures["files"][0]
    shared = -1 in top["ranks"] or len(top["ranks"]) > 1 or p.ranks == 1
    assert (p.file_mode == "shared") == shared or len(figures["files"]) > 1
    coll = top.get("COLL_WRITES", 0) + top.get("COLL_READS", 0)
    indep = top.get("INDEP_WRITES", 0) + top.get("INDEP_READS", 0)
    if len(figures["files"]) == 1:
        assert (p.io_mode == "collective") == (coll > 0 and coll >= indep)
        assert (p.library == "hdf5") == ("H5F" in figures["modules"])
    assert 1 <= p.transfer_size <= main_bytes


def test_pattern_of_ior_hdf5_and_its_lustre_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    init = campaign_from_log(IOR_HDF5)
    assert init.target.system.name == "cori" and init.target.fs.kind == "lustre"  # /global/cscratch1 is Cori's
    pat = init.derived.pattern
    assert pat["library"] == "hdf5" and pat["file_mode"] == "shared" and pat["io_mode"] == "independent"
    assert pat["transfer_size"] == 256 * 1024  # IOR's default 256 KiB transfers, from MPIIO_ACCESS*
    assert init.settings == {"lustre.stripe_count": 1, "lustre.stripe_size": 1 << 20}
    assert "baseline:" in init.text and "lustre.stripe_count: 1" in init.text
    codes = {f.code for f in init.findings}
    assert "independent-shared" in codes and "headroom" in codes
    # 4 MiB written by 4 ranks of one node: the node's client ceiling for one shared file bounds it whatever the
    # striping (a node's writes to one file go through one client: Dilger, lustre-discuss 2009-11-19), so the
    # model finds no headroom worth a campaign; the large VPIC job below does
    head = next(f for f in init.findings if f.code == "headroom")
    assert head.gain is not None and head.gain <= 1.05 and "within 5%" in head.evidence


def test_vpic_log_collective_with_24_stripes() -> None:
    init = campaign_from_log(VPIC, system="cori")
    pat = init.derived.pattern
    assert pat["io_mode"] == "collective" and pat["file_mode"] == "shared" and pat["phases"] == ["write"]
    assert init.settings["lustre.stripe_count"] == 24
    head = next(f for f in init.findings if f.code == "headroom")
    assert head.gain is not None and head.gain > 1.5 and head.suggestion["lustre.stripe_count"] > 24


def test_the_written_campaign_names_the_aggregate_auto_resolves_to() -> None:
    """Lustre's interference is one-sided, so `auto` is the best of N there; the file says so."""
    init = campaign_from_log(VPIC, system="cori")
    assert "aggregate: auto" in init.text
    assert "# objective.aggregate auto is the best of N on this target (scratch)" in init.text


def _space_and_job(init: Any) -> tuple[Any, dict[str, Any]]:
    import yaml

    from autotune.campaign import baseline_config, parse_campaign

    c = parse_campaign(yaml.safe_load(init.text), Path.cwd())
    space = c.space.bind(c.system, c.fs, c.app.pattern)
    return space, baseline_config(space, c.baseline) or space.default_config()


def test_too_few_aggregators_is_priced_by_the_model() -> None:
    from autotune.darshan import diagnose

    init = campaign_from_log(VPIC, system="cori")
    space, job = _space_and_job(init)
    one = {**job, "mpiio.cb_nodes": 1}   # one aggregator for 2048 ranks and 24 stripes
    found = diagnose(init.derived, 2048, space, one, "write_bandwidth_mib_s")
    few = next(f for f in found if f.code == "too-few-aggregators")
    assert few.gain is not None and few.gain > 1.05 and few.suggestion["mpiio.cb_nodes"] > 1
    assert "mpiio.cb_nodes" in few.params


def test_fpp_log() -> None:
    init = campaign_from_log(GOODOST, system="cori")
    assert init.derived.pattern["file_mode"] == "fpp" and init.derived.pattern["library"] == "posix"
    assert init.derived.sizes["write"][0] == 8 << 20   # ior -t 8m
    assert "slow-ost" not in {f.code for f in init.findings}


@pytest.mark.slow
def test_bad_ost_layout_is_found() -> None:
    init = campaign_from_log(PACKAGE / "tests" / "input" / "sample-badost.darshan", system="cori")
    slow = next(f for f in init.findings if f.code == "slow-ost")
    assert "OST 14" in slow.evidence and slow.gain is None


@pytest.mark.slow
def test_model_campaign_beats_the_logged_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import optuna

    campaign = tmp_path / "vpic.yaml"
    assert main(["init", "--from-darshan", str(VPIC), "--system", "cori", "--target", "model", "--trials", "8",
                 "-o", str(campaign)]) == 0
    assert main(["tune", str(campaign), "--no-tracking", "--workdir", str(tmp_path / "w")]) == 0
    assert "x the baseline" in capsys.readouterr().out
    study = optuna.load_study(study_name="vpicio_uni-4478544", storage=f"sqlite:///{tmp_path / 'w' / 'optuna.db'}")
    done = [t for t in study.trials if t.value is not None]
    baseline = [t for t in done if t.user_attrs.get("baseline")]
    assert len(baseline) == 1 and baseline[0].number == 1   # right after the system default
    assert baseline[0].params["lustre.stripe_count"] == 24
    assert max(t.value for t in done) > 1.5 * baseline[0].value


@pytest.mark.parametrize(("content", "message"), [
    (b"", "is not a Darshan log"),
    (b"hello, this is text and not a log at all\n" * 4, "no Darshan magic number"),
])
def test_not_a_darshan_log(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str) -> None:
    bad = tmp_path / "job.darshan"
    bad.write_bytes(content)
    rc, _, err = _init(bad, tmp_path, capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and message in err


def test_truncated_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "cut.darshan"
    cut.write_bytes(IOR_HDF5.read_bytes()[:3000])
    rc, _, err = _init(cut, tmp_path, capsys)
    assert rc == 2 and "truncated (3000 of" in err and len(err.strip().splitlines()) == 1


def test_missing_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _init(tmp_path / "nope.darshan", tmp_path, capsys)
    assert rc == 2 and "no such file" in err


def test_log_without_posix_or_mpiio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _init(PACKAGE / "tests" / "input" / "noposix.darshan", tmp_path, capsys)
    assert rc == 2 and "no POSIX or MPI-IO records" in err and len(err.strip().splitlines()) == 1


def test_unknown_system(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _init(GOODOST, tmp_path, capsys)   # a site no profile knows: drafted from the log
    assert rc == 0 and "no system profile knows" in (tmp_path / "campaign.yaml").read_text()
    assert "draft site profile written to" in out and "known: cori," in (tmp_path / "campaign.yaml").read_text()
    rc, _, err = _init(GOODOST, tmp_path, capsys, "--system", "local")
    assert rc == 2 and "has no lustre file system" in err
    rc, _, err = _init(GOODOST, tmp_path, capsys, "--system", "nowhere")
    assert rc == 2 and "not found" in err


def test_output_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.yaml"
    out.write_text("mine\n")
    assert main(["init", "--from-darshan", str(IOR_HDF5), "-o", str(out)]) == 2
    assert out.read_text() == "mine\n"
    assert "--force" in capsys.readouterr().err


def test_app_command_picks_the_preset(tmp_path: Path) -> None:
    init = campaign_from_log(IOR_HDF5, command=["h5bench_write", "cfg", "out.h5"])
    assert "extractor: h5bench" in init.text
    plain = campaign_from_log(IOR_HDF5, command=["./mysim", "--steps", "3"])
    assert "extractor: darshan" in plain.text and "DARSHAN_LOGFILE" in plain.text


def test_copied_log_reads_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "x.darshan"
    shutil.copy(IOR_HDF5, copy)
    assert campaign_from_log(copy).derived.pattern == campaign_from_log(IOR_HDF5).derived.pattern


def test_config_error_is_the_type() -> None:
    with pytest.raises(ConfigError):
        campaign_from_log(PACKAGE / "tests" / "input" / "noposix.darshan")


def test_app_command_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.yaml"
    assert main(["init", "--from-darshan", str(IOR_HDF5), "-o", str(out), "--app-command", "ior", "-a", "HDF5",
                 "-o", "{data_dir}/t.h5"]) == 0
    from autotune.campaign import load_campaign

    c = load_campaign(out)
    assert c.app.command == ("ior", "-a", "HDF5", "-o", "{data_dir}/t.h5") and c.metric == {"extractor": "ior"}
    assert main(["init", "--from-darshan", str(IOR_HDF5), "--app-command"]) == 2
    assert "--app-command" in capsys.readouterr().err


def test_no_headroom_when_the_job_runs_the_models_best() -> None:
    from autotune.darshan import diagnose
    from autotune.optimize import model_ranked

    macsio = next(p for p in shipped_logs() if p.name.startswith("shane_macsio"))
    init = campaign_from_log(macsio, system="local", command=IN_DATA)
    space, _ = _space_and_job(init)
    best = model_ranked(space, "write_bandwidth_mib_s", True, top=1)[0]
    head = next(f for f in diagnose(init.derived, 16, space, best, "write_bandwidth_mib_s") if f.code == "headroom")
    assert head.gain is not None and head.gain < 1.05 and not head.suggestion and "no headroom" in head.title


@pytest.mark.parametrize(("fs_type", "mount", "kind", "space"), [
    ("lustre", "/global/cscratch1", "lustre", "lustre-cray"),
    ("dvs", "/var/opt/cray/dws/mounts/batch/123_striped_scratch", "datawarp", "datawarp-cray"),
    ("dvs", "/global/common", "posix", "local-romio"),
    ("nfs", "/yellow/usr/projects", "posix", "local-romio"),
    ("ext4", "/", "posix", "local-romio"),
])
def test_mount_kinds(fs_type: str, mount: str, kind: str, space: str) -> None:
    from autotune.darshan._target import SPACE_FOR_KIND, fs_kind

    assert fs_kind(fs_type, mount) == kind and SPACE_FOR_KIND[kind] == space


def test_truncated_command_line_in_the_log() -> None:
    from autotune.darshan._campaign import _argv

    assert _argv("ior -o '/lus/x y") == ["ior", "-o", "'/lus/x", "y"]   # Darshan cuts long command lines
    assert _argv("ior -o '/lus/x y'") == ["ior", "-o", "/lus/x y"]


def test_the_hints_count_is_noted_not_invented() -> None:
    """Darshan counts the MPI-IO hint calls (MPIIO_HINTS) but records no values; the log's 'h=' metadata is the
    hints Darshan wrote its own log with, so it never becomes a setting of the job."""
    init = campaign_from_log(IOR_HDF5)
    assert "#   MPI-IO hints: set 17 time(s) (MPIIO_HINTS); Darshan does not record their values" in init.text
    assert init.log.metadata.get("h") and "cb_nodes" not in init.settings and "mpiio.cb_nodes" not in init.settings
