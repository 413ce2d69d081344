from __future__ import annotations

import pytest

from autotune.errors import ConfigError
from autotune.hints import mpich_mpiio_hints, render, resolve
from autotune.pattern import IOPattern
from autotune.systems import dw_capacity, load_system

SHAHEEN = load_system("shaheen2")
LOCAL = load_system("local")
PAT = IOPattern(ranks=1280, nodes=40, bytes_per_rank=2 << 20)


def test_mpich_mpiio_hints_file_pattern_syntax() -> None:
    value = mpich_mpiio_hints({"cb_nodes": "8", "striping_unit": "2097152"}, ["wrfinput*", "wrfout*"])
    assert value == "wrfinput*:cb_nodes=8:striping_unit=2097152,wrfout*:cb_nodes=8:striping_unit=2097152"
    with pytest.raises(ConfigError, match="cannot be written"):
        mpich_mpiio_hints({"cb_config_list": "*:*"})


@pytest.mark.parametrize(("nodes", "expected"), [(64, "25436GiB"), (1, "397GiB"), (6, "2384GiB")])
def test_dw_capacity_is_nodes_times_granularity_rounded_down(nodes: int, expected: str) -> None:
    pool = SHAHEEN.filesystem("bb").pool()
    nbytes, text = dw_capacity(nodes, pool)
    assert text == expected
    assert (nodes - 1) * pool.granularity < nbytes <= nodes * pool.granularity


def test_export_formats_for_a_lustre_configuration() -> None:
    s = resolve({"lustre.stripe_count": 48, "lustre.stripe_size": 8 << 20, "mpiio.cb_nodes": 48,
                 "cray.cb_nodes_multiplier": 4}, SHAHEEN, SHAHEEN.filesystem("scratch"), PAT)
    assert render("lfs", s, path="/scratch/run") == "mkdir -p /scratch/run && lfs setstripe -c 48 -S 8m /scratch/run"
    mpich = render("mpich", s, patterns=["wrfout*"])
    assert mpich.startswith("export MPICH_MPIIO_HINTS='wrfout*:") and ",*/wrfout*:" in mpich  # a full path too
    assert "cray_cb_nodes_multiplier=4" in mpich and "striping_factor=48" in mpich
    assert "cb_nodes 48" in render("romio", s)
    assert render("dw", s).startswith("#")


def test_dw_lines_and_h5py() -> None:
    s = resolve({"bb.nodes": 4, "hdf5.alignment": 8 << 20}, SHAHEEN, SHAHEEN.filesystem("bb"), PAT)
    assert render("dw", s) == "#DW jobdw type=scratch access_mode=striped capacity=1589GiB pool=wlm_pool"
    assert "alignment_threshold=8388608" in render("h5py", s)


def test_romio_aggregators_beyond_one_per_node_get_a_cb_config_list() -> None:
    pat = IOPattern(ranks=4, nodes=1, bytes_per_rank=1 << 20)
    s = resolve({"mpiio.cb_nodes": 4}, LOCAL, LOCAL.filesystem("disk"), pat)
    assert s.info == {"cb_nodes": "4", "cb_config_list": "*:4"}
    env = render("env", s, mpi_flavour="mpich")
    assert "ROMIO_HINTS" in env and "cb_config_list *:4" in env


def test_every_format_choice_comes_from_the_dialect_registry() -> None:
    import argparse

    from autotune.cli import build_parser
    from autotune.hints import DIALECTS

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    hints = sub.choices["hints"]
    fmt = next(a for a in hints._actions if "--format" in a.option_strings)
    assert list(fmt.choices or []) == DIALECTS.names() and "job" in DIALECTS.names()
    with pytest.raises(SystemExit):  # argparse: exit 2 for a format no dialect renders
        parser.parse_args(["hints", "c.yaml", "--format", "yaml"])
    assert build_parser().parse_args(["hints", "c.yaml", "--format", "job"]).format == "job"


def test_an_unknown_dialect_is_one_line_naming_the_known_ones() -> None:
    from autotune.errors import RegistryError
    from autotune.hints import Settings

    with pytest.raises(RegistryError, match=r"--format: 'yaml' is not one of mpich, romio, ompi, lfs, dw, job"):
        render("yaml", Settings(info={}))


def test_the_guides_document_every_format_and_one_store_variable() -> None:
    """export-dialects.md describes every --format choice, running.md lists them all, and no guide names the
    store's variable other than $AUTOTUNE_STORAGE (the one ask, tell and hints read)."""
    import re
    from pathlib import Path

    from autotune.hints import FORMATS

    docs = Path(__file__).resolve().parents[2] / "docs"
    dialects = (docs / "guide" / "export-dialects.md").read_text()
    assert [f for f in FORMATS if f"`--format {f}`" not in dialects] == []
    listed = re.search(r"--format \{([a-z0-9,]+)\}", (docs / "guide" / "running.md").read_text())
    assert listed is not None and sorted(listed.group(1).split(",")) == sorted(FORMATS)
    for page in docs.rglob("*.md"):
        assert not re.search(r"AUTOTUNE_STORE(?!AGE)", page.read_text()), page
