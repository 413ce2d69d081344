"""Reading a Darshan log safely: compressed copies, and PyDarshan's C library in a child with a deadline."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from autotune.measure import ReadFailed, in_child, plain_copy


def test_a_compressed_file_that_inflates_without_end_is_refused(tmp_path: Path) -> None:
    """A gzip bomb named .darshan: decompression stops at 50 x the file's size, with one line."""
    bomb = tmp_path / "job.darshan"
    bomb.write_bytes(gzip.compress(bytes(64 << 20)))
    with pytest.raises(ValueError, match="the gzip file inflates past 50 times its size: not a compressed Darshan log"):
        with plain_copy(bomb):
            pytest.fail("the gzip bomb was decompressed whole")


def test_a_plain_file_is_read_where_it_is(tmp_path: Path) -> None:
    log = tmp_path / "job.darshan"
    log.write_bytes(b"3.21\0\0\0\0")
    with plain_copy(log) as plain:
        assert plain == log


def _raises(_p: Path) -> None:
    raise KeyError("no such module")


def test_the_childs_exception_comes_back_with_its_type(tmp_path: Path) -> None:
    value, exc, why = in_child(_raises, tmp_path)
    assert value is None and isinstance(exc, KeyError) and why == ""


def _crash(_p: Path) -> None:
    os.write(2, b"Error: unable to inflate darshan log data.\n")
    os.abort()


def test_a_crash_names_the_signal_and_the_librarys_words(tmp_path: Path) -> None:
    with pytest.raises(ReadFailed) as failed:
        in_child(_crash, tmp_path)
    assert failed.value.how == "killed by SIGABRT" and failed.value.library == "unable to inflate darshan log data"
