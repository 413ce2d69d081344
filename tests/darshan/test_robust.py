"""No internal error on any log: truncated, corrupted, short or crashing ones give a campaign or one line
naming what is missing (property-based, on the real logs PyDarshan ships)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune.cli import main
from autotune.darshan import campaign_from_log, read_log
from autotune.errors import ConfigError

from .conftest import PACKAGE, shipped_logs

LOGS = shipped_logs()
PQ_READ = next((PACKAGE / "examples" / "darshan-graph").glob("pq_app_read_id71317*.darshan"))   # format 3.21
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _outcome(data: bytes, where: Path) -> str:
    """'campaign' or the one-line error; anything else (a traceback) fails the test."""
    log = where / "damaged.darshan"
    log.write_bytes(data)
    try:
        campaign_from_log(log)
    except ConfigError as exc:
        text = str(exc)
        assert text and "\n" not in text and "Traceback" not in text
        assert "darshan log" in text or "PyDarshan" in text
        return text
    return "campaign"


@pytest.mark.parametrize("cut", [24, 40, 300, 1000])
def test_a_log_cut_inside_its_header_is_truncated_not_an_internal_error(
        cut: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a file shorter than the header's region table raised struct.error ('unpack requires a buffer
    of 16 bytes') from the header check."""
    log = tmp_path / "cut.darshan"
    log.write_bytes(PQ_READ.read_bytes()[:cut])
    assert main(["init", "--from-darshan", str(log)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "truncated" in err and "internal error" not in err


@pytest.mark.slow
@SETTINGS
@given(which=st.integers(0, len(LOGS) - 1), fraction=st.floats(0.0, 1.0, exclude_max=True))
def test_truncated_logs(which: int, fraction: float, tmp_path: Path) -> None:
    data = LOGS[which].read_bytes()
    out = _outcome(data[:int(len(data) * fraction)], tmp_path)
    assert "truncated" in out or "is not a Darshan log" in out


@pytest.mark.slow
@SETTINGS
@given(which=st.integers(0, len(LOGS) - 1),
       edits=st.lists(st.tuples(st.floats(0.0, 1.0, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=8))
def test_corrupted_logs(which: int, edits: list[tuple[float, int]], tmp_path: Path) -> None:
    data = bytearray(LOGS[which].read_bytes())
    for where, byte in edits:
        data[int(len(data) * where)] = byte
    _outcome(bytes(data), tmp_path)


def test_a_crash_of_the_reader_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """libdarshan-util aborts the process on some damaged logs ('double free or corruption'): the read runs in a
    child, so the abort is reported, not suffered."""
    import autotune.darshan._log as log_module

    def abort(_path: Path) -> None:
        os.abort()

    monkeypatch.setattr(log_module, "_read", abort)
    with pytest.raises(ConfigError, match=r"failed reading it \(killed by SIGABRT\): the log is damaged") as err:
        campaign_from_log(PQ_READ)
    assert "\n" not in str(err.value)


def test_libdarshan_util_reason_is_named(tmp_path: Path) -> None:
    """A damaged job record: libdarshan-util's own words say what could not be read."""
    data = bytearray(PQ_READ.read_bytes())
    start = 24 + 16 * 17 + 4 * 16          # the compressed job record follows the 3.21 header
    data[start:start + 16] = bytes(16)
    out = _outcome(bytes(data), tmp_path)
    assert "libdarshan-util:" in out and "job" in out


@pytest.mark.slow
def test_every_shipped_log_gives_a_campaign_or_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The corpus: every log PyDarshan ships, without --system; the share that gives a campaign `space` accepts."""
    campaigns, refused = 0, []
    for i, log in enumerate(LOGS):
        (tmp_path / str(i)).mkdir()   # the same log ships twice: each campaign and draft in its own folder
        out = tmp_path / str(i) / "c.yaml"
        rc = main(["init", "--from-darshan", str(log), "-o", str(out)])
        err = capsys.readouterr().err
        if rc == 0:
            assert main(["space", str(out)]) == 0
            campaigns += 1
        else:
            assert rc == 2 and len(err.strip().splitlines()) == 1, err
            refused.append(err)
    output = [e for e in refused if "names it, so every trial would write over it" in e]   # a hard-coded output
    assert all("no POSIX or MPI-IO records" in e or "read and wrote no bytes" in e for e in refused if e not in output)
    assert campaigns / (len(LOGS) - len(output)) >= 0.8, (campaigns, len(LOGS), len(output))
    on_model = sum(main(["init", "--from-darshan", str(log), "-o", str(tmp_path / f"m{i}.yaml"), "--target", "model",
                         "--force"]) == 0 for i, log in enumerate(LOGS))   # the model runs no command
    capsys.readouterr()
    assert on_model / len(LOGS) >= 0.8, (on_model, len(LOGS))


_READ: dict[Path, Any] = {}
ODD = [float("nan"), -1.0, 0.0, 3.0, 1e-9, 2.0**62, 2.0**63, 1e300]
WITH_IO = [p for p in LOGS if "noposix" not in p.name]


@pytest.mark.slow
@settings(SETTINGS, max_examples=40)
@given(which=st.integers(0, len(WITH_IO) - 1), picks=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6),
                                                                         st.sampled_from(ODD)), min_size=1, max_size=4),
       nprocs=st.sampled_from([None, 1, 3, 100_000]), mounts=st.sampled_from([None, "gpfs", "overlay", "weird fs"]))
def test_odd_counter_values_and_headers(which: int, picks: list[tuple[int, int, float]], nprocs: int | None,
                                        mounts: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a damaged or odd log may say once read (negative, NaN, huge counters; any rank count; unknown mount
    types): a campaign or one line."""
    import autotune.darshan._campaign as campaign

    path = WITH_IO[which]
    real = _READ.setdefault(path, read_log(path))
    frames = {k: v.copy() for k, v in real.frames.items()}
    for mod_pick, col_pick, value in picks:
        df = frames[sorted(frames)[mod_pick % len(frames)]]
        cols = [c for c in df.columns if c not in ("id", "rank", "name") and df[c].dtype.kind in "if"]
        col = cols[col_pick % len(cols)]
        df[col] = df[col].astype(float)   # a float column holds every odd value
        df.loc[df.index[mod_pick % len(df)], col] = value
    odd = replace(real, frames=frames, nprocs=nprocs or real.nprocs,
                  mounts=[(m, mounts) for m, _ in real.mounts] if mounts else real.mounts)
    monkeypatch.setattr(campaign, "read_log", lambda _p, require_data=True: odd)
    try:
        campaign_from_log(path)
    except ConfigError as exc:
        assert "\n" not in str(exc)
