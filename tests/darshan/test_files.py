"""What users bring as a Darshan log: compressed copies, folders, FIFOs, logs with the partial flag, damaged
region tables. A usable one gives its campaign (with a notice of what it lacks), any other one line, exit 2."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from autotune.cli import main

from .conftest import PACKAGE

VPIC = PACKAGE / "tests" / "input" / "sample.darshan"   # format 3.10, MPI-IO + POSIX + LUSTRE + STDIO
GOODOST = PACKAGE / "tests" / "input" / "sample-goodost.darshan"


def _init(log: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    rc = main(["init", "--from-darshan", str(log), "-o", str(out)])
    return rc, [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_a_compressed_copy_gives_the_logs_campaign(compress: Callable[[bytes], bytes], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a gzip/bzip2/xz copy of a log was 'not a Darshan log (no Darshan magic number)'."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    packed = tmp_path / "b" / "job.darshan.gz"
    packed.write_bytes(compress(VPIC.read_bytes()))
    assert _init(VPIC, tmp_path / "a" / "c.yaml", capsys) == (0, [])
    assert _init(packed, tmp_path / "b" / "c.yaml", capsys) == (0, [])
    plain, unpacked = ((tmp_path / d / "c.yaml").read_text() for d in ("a", "b"))
    assert plain.replace("sample.darshan", "LOG") == unpacked.replace("job.darshan.gz", "LOG")


def test_a_cut_compressed_copy_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    packed = tmp_path / "job.darshan.gz"
    whole = gzip.compress(VPIC.read_bytes())
    packed.write_bytes(whole[:len(whole) // 2])
    rc, err = _init(packed, tmp_path / "c.yaml", capsys)
    assert rc == 2 and len(err) == 1 and "a gzip file that cannot be decompressed" in err[0] and str(packed) in err[0]


@pytest.mark.parametrize(("make", "says"), [(lambda p: p.mkdir(), "is a directory"),
                                            (os.mkfifo, "is not a regular file"),
                                            (lambda p: p.symlink_to(p.parent / "gone"), "broken symbolic link")],
                         ids=["directory", "fifo", "dangling-link"])
def test_what_is_not_a_file_is_named(make: Callable[[Path], None], says: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a directory, a FIFO and a broken link were all 'no such file'."""
    where = tmp_path / "job.darshan"
    make(where)
    rc, err = _init(where, tmp_path / "c.yaml", capsys)
    assert rc == 2 and len(err) == 1 and says in err[0] and str(where) in err[0]


def test_the_partial_flag_gives_the_campaign_and_a_notice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a log whose POSIX and MPI-IO modules carry the partial flag (Darshan ran out of record memory)
    gave its campaign without a word about it."""
    data = bytearray(VPIC.read_bytes())
    data[20:24] = struct.pack("<I", 0b110)   # bit i: module i (1 POSIX, 2 MPI-IO; darshan-log-format.h)
    log = tmp_path / "job.darshan"
    log.write_bytes(bytes(data))
    rc, err = _init(log, tmp_path / "c.yaml", capsys)
    assert rc == 0 and len(err) == 1
    assert err[0].startswith(f"autotune: notice: darshan log {str(log)!r}: its POSIX, MPI-IO records are incomplete")
    assert "incomplete in the log (partial flag): POSIX, MPI-IO" in (tmp_path / "c.yaml").read_text()


def test_a_region_table_pointing_far_away_is_a_damaged_header(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a flipped high byte in the name region's offset read as 'truncated (11472 of
    18374686479671624947 bytes); copy the whole log again'."""
    data = bytearray(VPIC.read_bytes())
    data[24 + 7] ^= 0xFF
    log = tmp_path / "job.darshan"
    log.write_bytes(bytes(data))
    rc, err = _init(log, tmp_path / "c.yaml", capsys)
    assert rc == 2 and len(err) == 1 and "its header is damaged" in err[0] and "truncated" not in err[0]


def test_an_unreadable_darshan_partial_file_says_what_it_is(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A *.darshan_partial file is what a job killed while Darshan wrote its log leaves: the error says so."""
    log = tmp_path / "user_app_id42_1-2-3.darshan_partial"
    log.write_bytes(VPIC.read_bytes()[:5000])
    rc, err = _init(log, tmp_path / "c.yaml", capsys)
    assert rc == 2 and len(err) == 1 and "truncated" in err[0] and "the job stopped while Darshan wrote its log" in err[0]


def test_a_log_libdarshan_util_reads_only_in_part_gives_a_notice(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a byte flipped inside the POSIX region: libdarshan-util reads the records before it and
    says 'unable to inflate darshan log data'; the campaign came from what it read without a word."""
    data = bytearray(GOODOST.read_bytes())
    maps = [struct.unpack("<QQ", data[24 + 16 * i:40 + 16 * i]) for i in range(17)]   # format 3.10: 17 maps
    off, length = [m for m in maps if m[1]][1]
    data[off + length // 2] ^= 0xFF
    log = tmp_path / "job.darshan"
    log.write_bytes(bytes(data))
    rc, err = _init(log, tmp_path / "c.yaml", capsys)
    assert rc == 0 and len(err) == 1, err
    assert err[0].startswith(f"autotune: notice: darshan log {str(log)!r}: libdarshan-util could not read all of it "
                             "(unable to inflate darshan log data")
    assert "libdarshan-util could not read all of the log: unable to inflate" in (tmp_path / "c.yaml").read_text()
