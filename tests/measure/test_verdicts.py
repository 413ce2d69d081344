"""A trial's verification as text: the setting, the verdict and the evidence together, problems first."""

from __future__ import annotations

from autotune.measure import PROBLEMS, verdict_brief, verdict_cell, verdict_lines

V = {"cb_nodes": {"state": "not in effect", "how": "1 of 4 ranks wrote (/proc/self/io wchar)", "requested": "2",
                  "observed": 1},
     "romio_cb_write": {"state": "in effect", "how": "ROMIO's own report", "requested": "enable"},
     "cb_buffer_size": {"state": "not passed", "how": "OMPIO never reads ROMIO_HINTS", "requested": "4194304"},
     "mca:io_ompio_bytes_per_agg": {"state": "not verifiable", "how": "only its speed", "requested": "8388608"}}


def test_every_line_names_setting_verdict_and_evidence() -> None:
    lines = verdict_lines(V)
    assert lines[0] == "  cb_nodes=2: not in effect (observed 1): 1 of 4 ranks wrote (/proc/self/io wchar)"
    assert lines[1] == "  cb_buffer_size=4194304: not passed: OMPIO never reads ROMIO_HINTS"
    assert lines[-1] == "  romio_cb_write=enable: in effect: ROMIO's own report"
    assert len(verdict_lines(V, PROBLEMS)) == 2


def test_the_table_cell_and_the_progress_line() -> None:
    assert verdict_cell(V) == ("NOT IN EFFECT cb_nodes; not passed cb_buffer_size; unverified "
                               "mca:io_ompio_bytes_per_agg; ok romio_cb_write")
    assert verdict_cell({}) == "-"
    brief = verdict_brief(V)
    assert brief.startswith("cb_nodes=2 not in effect (1 of 4 ranks wrote") and "cb_buffer_size=4194304 not passed" in brief
    assert verdict_brief({"x": {"state": "in effect"}}) == ""
