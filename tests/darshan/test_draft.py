"""A draft site profile from the log when no profile knows the site: what the log says, marked, loadable;
every kind of file system a log can show gets a campaign over what can be tuned there."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.cli import main
from autotune.darshan import campaign_from_log, read_log
from autotune.errors import ConfigError
from autotune.systems import load_system

from .conftest import IN_DATA, PACKAGE, darshan, dry_run_here

VPIC = PACKAGE / "tests" / "input" / "sample.darshan"              # Edison /scratch2 (Lustre), no profile
NFS = PACKAGE / "tests" / "input" / "sample-dxt-simple.darshan"    # an NFS project directory
MACSIO = next((PACKAGE / "examples" / "example_logs").glob("shane_macsio*.darshan"))   # ext4 at /
NO_MOUNTS = PACKAGE / "examples" / "example_logs" / "dxt.darshan"  # a log without a mount table
IOR_HDF5 = PACKAGE / "examples" / "example_logs" / "ior_hdf5_example.darshan"   # Cori: a known site
MARK = re.compile(r"  # (from the log|assumed): \S")


def _init(log: Path, out: Path, *extra: str) -> int:
    return main(["init", "--from-darshan", str(log), "-o", str(out), *extra])


def _lustre_truth(path: Path) -> dict[str, Any]:
    """OST ids and stripe layouts straight from PyDarshan's LUSTRE records."""
    report = darshan.DarshanReport(str(path), read_all=False)
    report.mod_read_all_lustre_records(warnings=False)
    df = report.records["LUSTRE"].to_df()["components"]
    osts = {int(o) for ids in df["LUSTRE_OST_IDS"] for o in ids}
    counts = {int(c) for c in df["LUSTRE_COMP_STRIPE_COUNT"]}
    return {"osts": osts, "counts": counts, "sizes": {int(s) for s in df["LUSTRE_COMP_STRIPE_SIZE"]}}


def test_lustre_draft_holds_what_the_log_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "vpic.yaml"
    assert _init(VPIC, out) == 0
    said = capsys.readouterr().out
    site = tmp_path / "vpicio_uni-4478544-site.yaml"
    text = site.read_text()
    values = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#") and not ln.endswith(":")]
    assert values and all(MARK.search(ln) for ln in values), [ln for ln in values if not MARK.search(ln)]
    truth = _lustre_truth(VPIC)
    prof = load_system(str(site))
    fs = prof.filesystem()
    assert fs.kind == "lustre" and fs.path == "/scratch2" and fs.name == "scratch2"
    assert fs.osts == max(len(truth["osts"]), max(truth["counts"])) == 24
    assert fs.default_stripe_count in truth["counts"] and fs.default_stripe_size in truth["sizes"]
    assert prof.mpi_flavour == "cray-mpich" and "mpi:\n  flavour: cray-mpich  # assumed" in text   # DVS mounts
    assert "OST count is at least 24: set osts from `lfs df /scratch2`" in said
    assert yaml.safe_load(out.read_text())["system"] == site.name
    assert main(["space", str(out)]) == 0
    dry_run_here(out, tmp_path / "w", capsys)


def test_nodes_make_cores_from_the_log(tmp_path: Path) -> None:
    init = campaign_from_log(VPIC, nodes=32)
    assert init.target.draft is not None and init.target.system.cores_per_node == 64
    assert "cores: 64  # from the log: 2048 ranks (job header) over --nodes 32" in init.target.draft.text
    assert "cores per node" not in init.target.draft.check


@pytest.mark.parametrize(("log", "fs_type", "words"), [
    (NFS, "nfs", "NFS hides the server's storage layout"),
    (MACSIO, "ext4", "local file system on one node's device"),
    (NO_MOUNTS, "unknown", "no mount"),
])
def test_posix_sites_are_tuned_at_the_mpiio_layer(log: Path, fs_type: str, words: str, tmp_path: Path) -> None:
    init = campaign_from_log(log, command=IN_DATA)
    assert init.target.draft is not None and init.target.kind == "posix" and init.target.space == "local-romio"
    notice = next(n for n in init.notes if "striping is out of reach" in n)
    assert fs_type in notice and words in notice and "collective buffering" in notice
    out = tmp_path / "c.yaml"
    assert _init(log, out, "--app-command", *IN_DATA) == 0
    assert main(["space", str(out)]) == 0
    assert main(["tune", str(out), "--dry-run", "--trials", "2", "--workdir", str(tmp_path / "w")]) == 0


def _with_mount(monkeypatch: pytest.MonkeyPatch, log_path: Path, fs_type: str, mount: str | None = None) -> None:
    """``campaign_from_log`` reads ``log_path`` with its main file's mount recorded as ``fs_type`` (at ``mount``)."""
    import autotune.darshan._campaign as campaign

    real = read_log(log_path)

    def patched(_path: Any, require_data: bool = True) -> Any:
        names = dict(real.names)
        if mount is not None:   # move the files under ``mount``
            names = {k: mount + v for k, v in names.items() if v.startswith("/")}
        mounts = [(m, fs_type if (mount is None and m == "/yellow/usr/projects/eap") else t) for m, t in real.mounts]
        if mount is not None:
            mounts.append((mount, fs_type))
        return replace(real, names=names, mounts=mounts)

    monkeypatch.setattr(campaign, "read_log", patched)


@pytest.mark.parametrize(("fs_type", "words"), [
    ("gpfs", "GPFS/Spectrum Scale spreads every file"),
    ("overlay", "overlay (container) file system"),
    ("xfs", "local file system"),
    ("nfs4", "NFS hides"),
])
def test_every_posix_kind_gets_a_campaign(fs_type: str, words: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_mount(monkeypatch, NFS, fs_type)
    init = campaign_from_log(NFS, command=IN_DATA)
    assert init.target.draft is not None and init.target.fs.kind == "posix"
    assert any(words in n and f"{fs_type} at /yellow/usr/projects/eap" in n for n in init.notes)
    assert f"description: {fs_type} at /yellow/usr/projects/eap  # from the log" in init.target.draft.text
    assert init.target.space == "local-romio" and "baseline" not in yaml.safe_load(init.text)


def test_datawarp_without_a_profile_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_mount(monkeypatch, NFS, "dvs", "/var/opt/cray/dws/mounts/batch/77_striped_scratch")
    with pytest.raises(ConfigError, match="does not record the DataWarp pools") as err:
        campaign_from_log(NFS)
    assert "\n" not in str(err.value) and "--system" in str(err.value)


def test_system_still_overrides_and_known_sites_get_no_draft(tmp_path: Path) -> None:
    assert campaign_from_log(IOR_HDF5).target.draft is None                         # Cori's scratch is in the cori profile
    init = campaign_from_log(VPIC, system="cori")
    assert init.target.draft is None and init.target.system.name == "cori"
    assert _init(VPIC, tmp_path / "c.yaml", "--system", "cori") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]   # no draft written


def test_an_existing_draft_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "vpicio_uni-4478544-site.yaml"
    site.write_text("mine\n")
    assert _init(VPIC, tmp_path / "c.yaml") == 2
    err = capsys.readouterr().err
    assert "--force" in err and len(err.strip().splitlines()) == 1
    assert site.read_text() == "mine\n" and not (tmp_path / "c.yaml").exists()
    assert _init(VPIC, tmp_path / "c.yaml", "--force") == 0 and "OST" in site.read_text()


def test_a_lustre_mount_holding_a_profiles_directory_is_that_site(monkeypatch: pytest.MonkeyPatch) -> None:
    """Theta's profile describes /lus/theta-fs0/projects; a job on /lus/theta-fs0/scratch is on the same file system."""
    _with_mount(monkeypatch, VPIC, "lustre", "/lus/theta-fs0")
    init = campaign_from_log(VPIC, command=IN_DATA)
    assert init.target.draft is None and init.target.system.name == "theta" and init.target.fs.name == "projects"


def test_lustre_without_lustre_records_assumes_one_ost(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import autotune.darshan._campaign as campaign

    real = read_log(VPIC)
    monkeypatch.setattr(campaign, "read_log", lambda _p, require_data=True: replace(real, lustre=None))
    init = campaign_from_log(VPIC)
    assert init.target.draft is not None and init.target.fs.osts == 1
    assert "osts: 1  # assumed: the log has no LUSTRE records" in init.target.draft.text
    assert init.target.draft.check.startswith("OST count is unknown (assumed 1, so no striping is searched)")
    out = tmp_path / "c.yaml"
    assert _init(VPIC, out) == 0 and main(["space", str(out)]) == 0
    dry_run_here(out, tmp_path / "w", capsys)


def test_a_node_count_that_is_no_power_of_two(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """3000 ranks at 64 per node: 47 nodes, ROMIO's default of one aggregator per node is 47."""
    import autotune.darshan._campaign as campaign

    real = read_log(NFS)
    monkeypatch.setattr(campaign, "read_log", lambda _p, require_data=True: replace(real, nprocs=3000))
    init = campaign_from_log(NFS, command=IN_DATA)
    assert yaml.safe_load(init.text)["app"]["nodes"] == 47
    out = tmp_path / "c.yaml"
    assert _init(NFS, out, "--app-command", *IN_DATA) == 0 and main(["space", str(out)]) == 0
    from autotune.campaign import load_campaign

    c = load_campaign(out)
    space = c.space.bind(c.system, c.fs, c.app.pattern)
    assert space.default_config()["mpiio.cb_nodes"] == 47


@pytest.mark.parametrize("system", [None, "cori"])
def test_a_stripe_size_the_space_cannot_hold(system: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job striped at 128 MiB (above the searched 64 KiB..64 MiB): a campaign, the job's size noted, not its baseline."""
    import autotune.darshan._campaign as campaign

    real = read_log(VPIC)
    lustre = real.lustre.copy()
    lustre["LUSTRE_COMP_STRIPE_SIZE"] = 128 << 20
    monkeypatch.setattr(campaign, "read_log", lambda _p, require_data=True: replace(real, lustre=lustre))
    init = campaign_from_log(VPIC, system=system)
    assert init.settings["lustre.stripe_size"] == 128 << 20
    assert "lustre.stripe_size" not in yaml.safe_load(init.text)["baseline"]
    assert any("lustre.stripe_size=128MiB is outside the searched range" in n for n in init.notes)
    if system is None:
        assert init.target.draft is not None and init.target.fs.default_stripe_size == 1 << 20
        assert "the log's 128MiB is not a size the search space holds" in init.target.draft.text


def test_hints_key_every_output_file_of_the_app() -> None:
    """E3SM writes a large ``_h0`` and a small ``_h1`` history file (the small one is not a main file): the hint
    pattern covers both; the interpreter's or a log file written through POSIX next to them does not widen it."""
    from autotune.darshan import FileFigures
    from autotune.darshan._campaign import _hint_files
    from autotune.darshan._pattern import Derived

    def f(name: str, written: int, layer: str = "MPI-IO") -> FileFigures:
        return FileFigures(name, "/projects", "lustre", layer, "pnetcdf", True, 512, written, 0)

    h0, h1, log = f("/projects/run/can_I_out_h0.nc", 90 << 30), f("/projects/run/can_I_out_h1.nc", 1 << 30), \
        f("/projects/run/e3sm.log", 1 << 20, "POSIX")
    d = Derived({"file_mode": "shared"}, [h0, h1, log], [h0], {"write": 91 << 30, "read": 0}, {}, 1.0, 0.0, False,
                "lustre", "/projects")
    assert _hint_files(d) == ["can_I_out_h*"]
    d.files = [h0, log]
    assert _hint_files(d) == ["can_I_out_h0.nc"]
