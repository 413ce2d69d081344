"""The burst-buffer and today's-tier examples: DataWarp dry runs show access modes and the persistent
reservation's three kinds of job; a Rabbit and a node-local NVMe campaign run on the model and export."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autotune.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "experiments" / "campaigns"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_private_trials_ask_per_node_capacity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "tune", str(EXAMPLES / "cori-bb-private-fpp.yaml"), "--dry-run", "--trials", "6",
               "--workdir", str(tmp_path))
    blocks = out.split("# ---- trial ")[1:]
    modes = [re.search(r"bb\.access_mode=(\w+)", b).group(1) for b in blocks]  # type: ignore[union-attr]
    assert "private" in modes and "striped" in modes
    for block, mode in zip(blocks, modes, strict=True):
        if mode == "private":  # one 82 GiB grain per compute node, under $DW_JOB_PRIVATE
            assert "#DW jobdw type=scratch access_mode=private capacity=82GiB pool=wlm_pool" in block
            assert '"${DW_JOB_PRIVATE:?no DataWarp allocation}"' in block
        else:
            nodes = int(re.search(r"bb\.nodes=(\d+)", block).group(1))  # type: ignore[union-attr]
            assert f"access_mode=striped capacity={nodes * 82}GiB" in block


def test_persistent_example_prints_create_trials_destroy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "tune", str(EXAMPLES / "shaheen-bb-persistent.yaml"), "--dry-run", "--trials", "3",
               "--workdir", str(tmp_path))
    create = out.index("#BB create_persistent name=wrf_tuning capacity=794GiB access=striped type=scratch")
    assert create < out.index("#DW persistentdw name=wrf_tuning") < out.index("#BB destroy_persistent name=wrf_tuning")
    assert out.count("#DW persistentdw name=wrf_tuning") == out.count("# ---- trial ")
    assert (tmp_path / "dry-run" / "bb-create.sh").is_file() and (tmp_path / "dry-run" / "bb-destroy.sh").is_file()


@pytest.mark.parametrize(("example", "line"), [
    ("model-rabbit-fpp.yaml", r"#DW jobdw type=(xfs|lustre) capacity=(16|1024)GiB name=autotune"),
    ("model-theta-ssd.yaml", r"#SBATCH --tmp=8192M"),
    ("model-rabbit-pcc.yaml", r'lfs project -p 1000 -s "\$OUTPUT_DIR"'),
])
def test_tier_campaign_runs_on_the_model_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     example: str, line: str) -> None:
    _run(capsys, "tune", str(EXAMPLES / example), "--workdir", str(tmp_path))
    exported = _run(capsys, "export", str(EXAMPLES / example), "--workdir", str(tmp_path), "--format", "job")
    assert re.search(line, exported), exported
    if example == "model-rabbit-fpp.yaml":  # the capacity follows the type the campaign recommends
        kind, cap = re.search(line, exported).groups()  # type: ignore[union-attr]
        assert (kind, cap) in (("xfs", "16"), ("lustre", "1024"))
