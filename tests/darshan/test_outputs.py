"""A drafted command never writes where the job wrote: its output argument moves under ``{data_dir}``, or init
stops in one line; the data directory sits beside the job's files, never at a file system's root; what init
says it searches is searched; a second init in the same folder works."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from autotune.cli import main
from autotune.darshan import campaign_from_log
from autotune.errors import ConfigError

from .conftest import PACKAGE, dry_run_here

VPIC = PACKAGE / "tests" / "input" / "sample.darshan"            # vpicio_uni /scratch2/.../vpicio.hdf5 32
BADOST = PACKAGE / "tests" / "input" / "sample-badost.darshan"   # ior ... -o ior-posix.out (relative)
GOODOST = PACKAGE / "tests" / "input" / "sample-goodost.darshan"  # ior without -o: IOR's default testFile
MACSIO = next((PACKAGE / "examples" / "example_logs").glob("shane_macsio*.darshan"))   # no output argument
WRITE_A = next((PACKAGE / "examples" / "darshan-graph").glob("pq_app_write_id71296*.darshan"))   # ./app_write A
IOR_HDF5 = PACKAGE / "examples" / "example_logs" / "ior_hdf5_example.darshan"


def _command(log: Path, **kw: object) -> list[str]:
    return list(yaml.safe_load(campaign_from_log(log, **kw).text)["app"]["command"])   # type: ignore[arg-type]


@pytest.mark.parametrize(("log", "before", "after"), [
    (VPIC, "/scratch2/scratchdirs/glock/tokioabc-s.4478544/vpicio/vpicio.hdf5", "{data_dir}/vpicio.hdf5"),
    (BADOST, "ior-posix.out", "{data_dir}/ior-posix.out"),    # relative, and IOR appends .00000000 per rank
    (WRITE_A, "A", "{data_dir}/A"),
    (IOR_HDF5, "/global/cscratch1/sd/ssnyder/test123.h5", "{data_dir}/test123.h5"),
])
def test_the_output_argument_the_log_shows_written_moves(log: Path, before: str, after: str) -> None:
    init = campaign_from_log(log)
    cmd = list(yaml.safe_load(init.text)["app"]["command"])
    assert before not in cmd and after in cmd
    assert any(f"{before} -> {after}" in n for n in init.notes)
    written = {f.name for f in init.derived.files if f.bytes_written}
    assert not any(arg in written for arg in cmd)


def test_a_relative_folder_argument_becomes_the_data_directory() -> None:
    from autotune.darshan._output import move_outputs

    d = campaign_from_log(WRITE_A).derived   # the job wrote .../darshan-graph/A
    assert move_outputs(["./app", "darshan-graph"], d, None).command == ["./app", "{data_dir}"]
    assert move_outputs(["./app", "--out=darshan-graph/A", "7"], d, None).command == ["./app", "--out={data_dir}/A", "7"]
    assert move_outputs(["./app", "other"], d, None).unnamed == [d.matter[0].name]


def test_iors_default_output_is_given_under_the_data_directory() -> None:
    cmd = _command(GOODOST)
    assert cmd[-2:] == ["-o", "{data_dir}/testFile"]   # IOR's -o default is testFile: the job wrote testFile.*


def test_no_argument_names_the_output_so_init_stops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--from-darshan", str(MACSIO), "-o", str(tmp_path / "c.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "/tmp/test/macsio_hdf5_000.h5" in err
    assert "--app-command" in err and "{data_dir}/macsio_hdf5_000.h5" in err
    assert not list(tmp_path.iterdir())   # no campaign, no draft
    assert main(["init", "--from-darshan", str(MACSIO), "-o", str(tmp_path / "m.yaml"), "--target", "model"]) == 0
    with pytest.raises(ConfigError, match="names it"):
        campaign_from_log(MACSIO)


def test_the_data_directory_is_beside_the_jobs_files_or_in_the_work_directory() -> None:
    init = campaign_from_log(VPIC)   # a draft of Edison's /scratch2: the job's folder holds the trials' data
    assert yaml.safe_load(init.text)["target"]["path"] == \
        "/scratch2/scratchdirs/glock/tokioabc-s.4478544/vpicio/autotune-data"
    init = campaign_from_log(VPIC, system="cori")   # Cori's scratch does not hold Edison's files: the work directory does
    where = yaml.safe_load(init.text)["target"]["path"]
    assert where == str(Path.cwd() / "autotune-runs" / "vpicio_uni-4478544" / "data")
    assert any("set target.path to a folder of yours on /global/cscratch1" in n for n in init.notes)
    for log in (MACSIO, WRITE_A):
        target = yaml.safe_load(campaign_from_log(log, command=["./app", "{data_dir}/x"]).text)["target"]
        assert target["path"].endswith("/autotune-data") and target["path"].count("/") > 1


def test_what_init_lists_to_search_is_searched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """hdf5.alignment is set in an application's code: a command cannot receive it, so init says so instead."""
    init = campaign_from_log(IOR_HDF5)
    assert not any("hdf5.alignment" in f.params or "hdf5.alignment" in f.suggestion for f in init.findings)
    assert any(n.startswith("hdf5.alignment: not searched: a command cannot receive it") for n in init.notes)
    out = tmp_path / "c.yaml"
    assert main(["init", "--from-darshan", str(IOR_HDF5), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    searched = [ln for ln in said.splitlines() if ln.strip().startswith("search:")]
    assert searched and not any("hdf5.alignment" in ln for ln in searched)
    dry_run_here(out, tmp_path / "w", capsys)
    model = campaign_from_log(IOR_HDF5, model=True)   # the model takes every parameter
    assert not any("hdf5.alignment: not searched" in n for n in model.notes)


def test_a_second_init_in_the_same_folder_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "vpicio_uni-4478544-site.yaml"
    assert main(["init", "--from-darshan", str(VPIC), "-o", str(tmp_path / "a.yaml")]) == 0
    first = site.read_text()
    assert main(["init", "--from-darshan", str(VPIC), "-o", str(tmp_path / "b.yaml")]) == 0
    assert f"draft site profile unchanged in {site}" in capsys.readouterr().out and site.read_text() == first
    site.write_text(first.replace("cores: 64  # assumed", "cores: 24  # mine"))   # the user's edit
    assert main(["init", "--from-darshan", str(VPIC), "-o", str(tmp_path / "c.yaml")]) == 0
    assert "exists and differs from the log's draft: the campaign uses it" in capsys.readouterr().out
    assert "cores: 24  # mine" in site.read_text()
    c = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert Path(c["system"]).resolve() == site.resolve() and c["app"]["nodes"] == -(-2048 // 24)
    assert main(["space", str(tmp_path / "c.yaml")]) == 0
