"""A drafted command's inputs stay where they are: only files the job wrote without reading them first move
under ``{data_dir}``; a file the job read and then wrote (an update in place) stops the draft in one line."""

from __future__ import annotations

from dataclasses import replace

import pytest

from autotune.darshan import campaign_from_log
from autotune.darshan._campaign import _outputs
from autotune.darshan._output import move_outputs, read_first
from autotune.darshan._pattern import Derived, FileFigures
from autotune.errors import ConfigError

from .conftest import PACKAGE

IOR_HDF5 = PACKAGE / "examples" / "example_logs" / "ior_hdf5_example.darshan"   # wrote, then read, test123.h5
OUT = "/global/cscratch1/sd/ssnyder/test123.h5"
FOLDER = "/global/cscratch1/sd/ssnyder"


@pytest.fixture(scope="module")
def derived() -> Derived:
    return campaign_from_log(IOR_HDF5).derived


def _with_input(d: Derived, name: str) -> Derived:
    """``d`` plus a file the job only read (a configuration, a mesh), beside its output."""
    read = FileFigures(name, "/global/cscratch1", "lustre", "POSIX", "posix", False, 1, 0, 4096,
                       {"POSIX_F_READ_START_TIMESTAMP": 0.01})
    return replace(d, files=[*d.files, read])


def _in_place(d: Derived, stamps: dict[str, float]) -> Derived:
    """``d`` whose main file the job read first (timestamps ``stamps``), then wrote."""
    main = d.matter[0]
    counters = {k: v for k, v in main.counters.items() if "_START_TIMESTAMP" not in k} | stamps
    changed = replace(main, counters=counters)
    return replace(d, matter=[changed], files=[changed if f.name == main.name else f for f in d.files])


def test_a_file_written_then_read_back_is_an_output_and_moves(derived: Derived) -> None:
    main = derived.matter[0]
    assert main.name == OUT and main.bytes_read and main.bytes_written and not read_first(main)
    moved = move_outputs(["ior", "-o", OUT], derived, "ior")
    assert moved.command == ["ior", "-o", "{data_dir}/test123.h5"] and not moved.in_place


@pytest.mark.parametrize("arg", [f"{FOLDER}/test.cfg", "test.cfg", "sd/ssnyder/test.cfg", f"--config={FOLDER}/test.cfg"])
def test_an_input_sharing_a_prefix_with_the_output_stays(derived: Derived, arg: str) -> None:
    """``test`` is a prefix of ``test123.h5`` (an application deriving output names from a stem), but the
    job read test.cfg: it is an input, so the trial must read it where it is."""
    d = _with_input(derived, f"{FOLDER}/test.cfg")
    moved = move_outputs(["ior", arg, "-o", OUT], d, "ior")
    assert moved.command == ["ior", arg, "-o", "{data_dir}/test123.h5"]
    assert [a for a, _ in moved.moved] == [OUT]
    before = move_outputs(["ior", arg, "-o", OUT], derived, "ior")   # not known as read: the stem rule moves it
    assert before.command[1] != arg


@pytest.mark.parametrize("stamps", [
    {"MPIIO_F_READ_START_TIMESTAMP": 0.01, "MPIIO_F_WRITE_START_TIMESTAMP": 0.2},
    {"MPIIO_F_READ_START_TIMESTAMP": 0.2, "MPIIO_F_WRITE_START_TIMESTAMP": 0.2},
    {},   # no timestamps: a file both read and written counts as read first
])
def test_a_file_read_then_written_is_never_moved_and_a_draft_stops(derived: Derived, stamps: dict[str, float]) -> None:
    d = _in_place(derived, stamps)
    assert read_first(d.matter[0])
    moved = move_outputs(["ior", "-o", OUT], d, "ior")
    assert moved.command == ["ior", "-o", OUT] and moved.in_place == [OUT] and not moved.unnamed
    with pytest.raises(ConfigError) as err:
        _outputs(["ior", "-o", OUT], d, "ior", "job.darshan", [], drafted=True, model=False)
    msg = str(err.value)
    assert "\n" not in msg and f"read {OUT} and then wrote it" in msg and "{data_dir}/test123.h5" in msg
    assert "--target model" in msg
    notes: list[str] = []   # the user's own command: said, not refused
    assert _outputs(["ior", "-o", "{data_dir}/test123.h5"], d, "ior", "job.darshan", notes, drafted=False,
                    model=False) == ["ior", "-o", "{data_dir}/test123.h5"]
    assert any(f"read {OUT} and then wrote it" in n for n in notes)
    assert _outputs(["ior", "-o", OUT], d, "ior", "job.darshan", [], drafted=True, model=True) == ["ior", "-o", OUT]
