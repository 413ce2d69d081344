"""A Slurm repetition's result, read from the files its job script left (output, exit code, times, staging)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from autotune.launch import _slurmctl as ctl
from autotune.launch._base import RunRequest, RunResult
from autotune.launch._jobscript import TIMEOUT_RC, RepetitionFiles
from autotune.launch._process import clean_stderr, tail
from autotune.launch._slurmbook import SlurmBookkeeping
from autotune.measure import add_mpiio_stats


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _staging(files: RepetitionFiles) -> dict[str, Any]:
    """``stage_in_seconds``/``stage_out_seconds`` (and cp's exit code) the job script measured, if it staged."""
    out: dict[str, Any] = {}
    for which in ("stage_in", "stage_out"):
        parts = _read(files.path(which)).split()
        if len(parts) == 3 and re.fullmatch(r"-?\d+", parts[2]):
            try:
                out[f"{which}_seconds"] = round(float(parts[1]) - float(parts[0]), 3)
            except ValueError:
                continue
            out[f"{which}_rc"] = int(parts[2])
    return out


class SlurmCollecting(SlurmBookkeeping):
    """The Slurm launchers' ``_collect``: one repetition's ``RunResult`` from its files and its job's state."""

    def _collect(self, req: RunRequest, job: ctl.JobInfo, overrun: bool, job_dir: Path, limit: float,
                 step: bool = False) -> RunResult:
        files = RepetitionFiles(req.run_dir, req.repetition)
        out, err = _read(files.path("out")), clean_stderr(_read(files.path("err")))
        rc_text = _read(files.path("rc")).strip()
        rc = int(rc_text) if re.fullmatch(r"-?\d+", rc_text) else None
        times = _read(files.path("time")).split()
        wall = float(times[1]) - float(times[0]) if len(times) == 2 else 0.0
        info: dict[str, Any] = {**job.as_info(), "mode": "step" if step else "job",
                                "script": str(job_dir / ("steps.sh" if step else "job.sh"))}
        if files.path("getstripe").exists():
            info["getstripe"] = _read(files.path("getstripe"))[:4000]
        staged = _staging(files)
        info.update(staged)
        res = add_mpiio_stats(RunResult(returncode=rc, stdout=out, stderr=err, wall_seconds=wall, info=info))
        job_err = "" if step else clean_stderr(_read(job_dir / f"slurm-{job.job_id}.err"))
        job_failed = overrun or (not step and job.state not in ("COMPLETED", "FAILED"))
        if rc == 0 and any(staged.get(f"{w}_rc") for w in ("stage_in", "stage_out")):
            bad = next(w for w in ("stage_in", "stage_out") if staged.get(f"{w}_rc"))
            res.error = f"{bad} failed (cp exit code {staged[f'{bad}_rc']})"
            return res
        if rc == 0:
            return res
        if job_failed or rc is None:
            res.stderr = "\n".join(t for t in (err, job_err) if t.strip())
            res.timed_out = overrun or job.state in ("TIMEOUT", "DEADLINE")
            what = ("steps" if step else f"slurm job {job.job_id}")
            if overrun:
                reason = f"{what} ran past its time limit ({limit:.0f}s + {self.grace:.0f}s grace): cancelled by autotune"
            else:
                reason = f"{what} {job.state}" + (f" ({job.reason})" if job.reason else "")
                reason += f", exit {job.exit_code}" if job.exit_code and not step else ""
            res.error = reason + (f"; repetition exit code {rc}" if rc is not None else
                                  f" before repetition {req.repetition} finished")
        elif rc == TIMEOUT_RC:
            res.timed_out = True
            res.error = f"timed out after {req.timeout:.0f}s (stopped by timeout in the job)"
        else:
            last = tail(err, 1) or tail(out, 1)
            res.error = f"exit code {rc}" + (f": {last}" if last else "")
        return res
