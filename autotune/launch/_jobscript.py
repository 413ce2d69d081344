"""Rendering Slurm job scripts (and step scripts) from the templates in ``launchers/`` (package data: ``autotune._paths``).

Every value that reaches the script is shell-quoted (``shlex.quote``) or checked against a strict
pattern; ``#SBATCH``/``#DW`` lines only ever hold validated values, so nothing can add a line.
"""

from __future__ import annotations

import math
import re
import shlex
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autotune._paths import data_dirs
from autotune.errors import ConfigError
from autotune.hints import dw_lines, lfs_setstripe, pcc_lines, shell_value
from autotune.launch._base import RunRequest
from autotune.launch._command import app_command, hint_env

DATA = "\x1eAUTOTUNE_DATA_DIR\x1e"  # stands for "$DATA_DIR" in argv/env until quoting
CRAY_DIAGNOSTICS = {"MPICH_MPIIO_HINTS_DISPLAY": "1", "MPICH_MPIIO_STATS": "1", "MPICH_MPIIO_TIMERS": "1"}
_SAFE_WORD = re.compile(r"^[A-Za-z0-9_.,:+@%&|!=\[\]*/-]+$")
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_./+@%:,=-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
TIMEOUT_RC = 124  # what coreutils `timeout` returns when it had to stop a repetition


class JobTemplate(string.Template):
    """``@{name}`` placeholders (``$`` is the shell's); ``@@`` is a literal ``@``."""

    delimiter = "@"
    idpattern = r"(?!)"
    braceidpattern = r"[a-z_]+"


def safe_word(value: Any, what: str, pattern: re.Pattern[str] = _SAFE_WORD) -> str:
    """``value`` as text if it matches ``pattern`` (no spaces, quotes, ``$``, newlines), else ConfigError."""
    text = str(value)
    if not pattern.match(text):
        raise ConfigError(f"launcher.{what}: {text!r} has characters not allowed in a job script line")
    return text


def shell_word(value: str) -> str:
    """Shell-quote ``value``; the data-dir stand-in becomes ``"$DATA_DIR"``."""
    return '"$DATA_DIR"'.join(shlex.quote(part) if part else "" for part in value.split(DATA)) or "''"


def hints_word(value: str) -> str:
    """``MPICH_MPIIO_HINTS`` as ``shell_word`` quotes it, except that a file pattern starting with a variable
    (``$DW_JOB_STRIPED/wrfout*`` in ``app.hint_files``) is expanded by the job's shell (``hints.shell_value``)."""
    return '"$DATA_DIR"'.join(shell_value(part) if part else "" for part in value.split(DATA)) or "''"


def find_template(name: str) -> Path:
    """A template by path or by file name in the ``launchers`` data directories."""
    p = Path(name)
    if p.is_file():
        return p
    for d in data_dirs("launchers"):
        if (d / name).is_file():
            return d / name
    shipped = sorted({f.name for d in data_dirs("launchers") if d.is_dir() for f in d.glob("*.tmpl")})
    raise ConfigError(f"launcher.template: {name!r} not found (a path, or one of the shipped templates: {', '.join(shipped)})")


def render_template(path: Path, values: Mapping[str, str]) -> str:
    text = JobTemplate(path.read_text()).safe_substitute(values)
    return text if text.endswith("\n") else text + "\n"


def slurm_time(seconds: float) -> str:
    """Slurm's ``--time`` as ``D-HH:MM:SS``/``HH:MM:SS``, rounded up to whole minutes (Slurm's unit)."""
    minutes = max(1, math.ceil(seconds / 60))
    days, rest = divmod(minutes, 24 * 60)
    text = f"{rest // 60:02d}:{rest % 60:02d}:00"
    return f"{days}-{text}" if days else text


@dataclass(frozen=True)
class RepetitionFiles:
    """Where one repetition leaves its output: ``rep<N>.out/.err/.rc/.time/.getstripe`` in its run dir."""

    run_dir: Path
    repetition: int

    def path(self, suffix: str) -> Path:
        return self.run_dir / f"rep{self.repetition}.{suffix}"


def job_name(first: RunRequest) -> str:
    """The Slurm job name of ``first``'s trial: ``job_name_of(campaign, trial)``."""
    return job_name_of(first.campaign, first.trial)


def job_name_of(campaign: str, trial: int) -> str:
    """``autotune-<campaign>-t<trial>``, only letters, digits, ``_.-``, at most 64 characters."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"autotune-{campaign}-t{trial}")[:64]


def sbatch_lines(first: RunRequest, options: Mapping[str, Any], time_limit: float, log_dir: Path) -> list[str]:
    """The ``#SBATCH`` lines: name, nodes, tasks, time, account/partition/qos/constraint, logs."""
    sched = {**first.system.scheduler, **{k: v for k, v in options.items() if v is not None}}
    name = job_name(first)
    nodes = int(options.get("nodes") or first.app.nodes)
    lines = [f"#SBATCH --job-name={name}", f"#SBATCH --nodes={nodes}", f"#SBATCH --ntasks={first.app.ranks}"]
    if options.get("ntasks_per_node"):
        lines.append(f"#SBATCH --ntasks-per-node={int(options['ntasks_per_node'])}")
    lines.append(f"#SBATCH --time={slurm_time(time_limit)}")
    for key in ("account", "partition", "qos", "constraint"):
        if sched.get(key):
            lines.append(f"#SBATCH --{key}={safe_word(sched[key], key)}")
    if options.get("overcommit"):
        lines.append("#SBATCH --overcommit")
    near = first.settings.near
    if near is not None and near.tier.tmp_request:  # Slurm's per-node temporary disk: the node-local flash
        lines.append(f"#SBATCH --tmp={math.ceil(near.capacity_bytes / 2**20)}M")
    if _SAFE_PATH.match(str(log_dir)):  # else only on sbatch's command line (argv, no shell)
        lines += [f"#SBATCH --output={log_dir}/slurm-%j.out", f"#SBATCH --error={log_dir}/slurm-%j.err"]
    return lines


def job_dw_lines(first: RunRequest, options: Mapping[str, Any]) -> list[str]:
    """``#DW jobdw`` (+ stage_in/stage_out, validated paths) for a DataWarp or Rabbit target."""
    stage_in, stage_out = options.get("stage_in"), options.get("stage_out")
    return dw_lines(first.settings,
                    safe_word(stage_in, "stage_in", _SAFE_PATH) if stage_in else None,
                    safe_word(stage_out, "stage_out", _SAFE_PATH) if stage_out else None)


def _launch_prefix(req: RunRequest, options: Mapping[str, Any], jobid: str | None) -> list[str]:
    if not (req.app.mpiexec or req.app.kernel is not None):
        return []
    extra = options.get("srun_args") or []
    if not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
        raise ConfigError(f"launcher.srun_args: {extra!r} is not a list of strings")
    argv = ["srun"] + ([f"--jobid={jobid}"] if jobid else [])
    argv += [f"--mpi={safe_word(options.get('mpi', 'pmi2'), 'mpi')}", "-N", str(int(options.get("nodes") or req.app.nodes)),
             "-n", str(req.app.ranks)]
    if options.get("overcommit"):
        argv.append("--overcommit")
    return argv + list(extra)


def script_stages(req: RunRequest, options: Mapping[str, Any]) -> bool:
    """Whether the job script copies stage_in/stage_out itself: node-local flash (no workload manager does
    it), or a local stand-in for a DataWarp/Rabbit allocation (standing in for the WLM's staging too)."""
    near = req.settings.near
    if near is not None and near.tier.tmp_request:
        return True
    allocation = req.settings.bb is not None or (near is not None and near.tier.dw_allocation)
    return allocation and bool(options.get("dw_job_striped"))


def staging(req: RunRequest, options: Mapping[str, Any], which: str) -> list[str]:
    """The timed copy of ``stage_in`` into ``$DATA_DIR`` (before the timed run) or of ``$DATA_DIR`` to
    ``stage_out``/rep<N> (after it); start, end and cp's exit code go to ``rep<N>.<which>``, reported apart
    from the I/O being tuned. Node-local copies run once per node (``srun --ntasks-per-node=1``)."""
    path = options.get(which)
    if not path or not script_stages(req, options):
        return []
    where = safe_word(path, which, _SAFE_PATH)
    out = shlex.quote(str(RepetitionFiles(req.run_dir, req.repetition).path(which)))
    per_node = f"srun -N {int(options.get('nodes') or req.app.nodes)} --ntasks-per-node=1 " if req.app.nodes > 1 else ""
    if which == "stage_in":
        copy = f'{per_node}cp -r -- {shlex.quote(where)}/. "$DATA_DIR"/'
    else:
        dest = shlex.quote(f"{where}/rep{req.repetition}")
        copy = f'mkdir -p -- {dest} && {per_node}cp -r -- "$DATA_DIR"/. {dest}/'
    return [f"s0=$(date +%s.%N)  # {which}: timed apart from the run", copy, "src=$?",
            f'echo "$s0 $(date +%s.%N) $src" >{out}']


def repetition_block(req: RunRequest, options: Mapping[str, Any], jobid: str | None = None) -> list[str]:
    """Shell lines for one repetition: data dir, striping, env, the timed launch, exit code and timings."""
    files = RepetitionFiles(req.run_dir, req.repetition)
    bb = req.settings.bb
    cmd = app_command(req, python=options.get("python"), data_dir=DATA)
    lines = [f"# repetition {req.repetition}"]
    near = req.settings.near
    if bb is not None:  # the allocation's mount point: $DW_JOB_STRIPED, $DW_JOB_PRIVATE, $DW_PERSISTENT_STRIPED_<name>
        where = f"rep{req.repetition}" if bb.persistent is None else f"{req.campaign}-t{req.trial}-rep{req.repetition}"
        lines.append(f'DATA_DIR="${{{bb.variable}:?no DataWarp allocation}}"/{shlex.quote(where)}')
    elif near is not None and near.variable:  # a Rabbit allocation: $DW_JOB_<name>
        lines.append(f'DATA_DIR="${{{near.variable}:?no Rabbit allocation}}"/{shlex.quote(f"rep{req.repetition}")}')
    else:
        lines.append(f"DATA_DIR={shlex.quote(str(req.data_dir))}")
    lines.append('mkdir -p "$DATA_DIR"')
    for pcc in pcc_lines(req.settings, "$DATA_DIR"):  # RW-PCC: new files match the site's auto-cache rule
        lines.append(f"if command -v lfs >/dev/null; then {pcc.split('  #')[0]}; "
                     "else echo 'autotune: lfs not found: PCC project not set' >&2; fi")
    stripe = lfs_setstripe(req.settings, "$DATA_DIR")  # a lone $VAR comes back double-quoted
    if stripe:
        lines.append(("# skip_lfs: " if options.get("skip_lfs") else "") + stripe)
    env = dict(cmd.env)
    if req.system.is_cray:  # kernels also get the hints as Cray MPI takes them, plus its diagnostics
        env.update({**hint_env(req, cmd.files, DATA), **CRAY_DIAGNOSTICS})
    body = ['cd "$DATA_DIR" || exit 97']
    for key, value in sorted(env.items()):
        if not _ENV_NAME.match(key):
            raise ConfigError(f"app.env: {key!r} is not a valid environment variable name")
        body.append(f"export {key}={hints_word(value) if key == 'MPICH_MPIIO_HINTS' else shell_word(value)}")
    argv = _launch_prefix(req, options, jobid) + cmd.argv
    body.append(f"exec timeout --kill-after=10 {max(1, math.ceil(req.timeout))} " + " ".join(shell_word(a) for a in argv))
    lines += staging(req, options, "stage_in")
    lines += ["t0=$(date +%s.%N)", "(", *("  " + b for b in body),
              f") >{shlex.quote(str(files.path('out')))} 2>{shlex.quote(str(files.path('err')))}",
              "rc=$?", f"echo $rc >{shlex.quote(str(files.path('rc')))}",
              '[ "$rc" -ne 0 ] && [ "$AUTOTUNE_STATUS" -eq 0 ] && AUTOTUNE_STATUS=$rc',
              f'echo "$t0 $(date +%s.%N)" >{shlex.quote(str(files.path("time")))}']
    lines += staging(req, options, "stage_out")
    if near is not None and near.tier.cache_state:  # which files the cache holds (empty without lfs)
        state = shlex.quote(str(files.path(near.tier.name)))  # rep<N>.pcc
        lines.append(f'command -v lfs >/dev/null && lfs pcc state "$DATA_DIR"/* >{state} 2>&1')
    if bb is not None and bb.persistent:  # a reservation outlives the job: leave no trial data on it
        lines.append('rm -rf -- "$DATA_DIR"')
    if stripe:
        getstripe = f'lfs getstripe "$DATA_DIR" >{shlex.quote(str(files.path("getstripe")))} 2>&1'
        lines.append(("# skip_lfs: " if options.get("skip_lfs") else "") + getstripe)
    return lines


def script_setup(requests: Sequence[RunRequest], options: Mapping[str, Any]) -> str:
    """Lines before the repetitions: exit status bookkeeping, a stand-in for the DataWarp mount point
    (``$DW_JOB_STRIPED``, ``$DW_JOB_PRIVATE`` or ``$DW_PERSISTENT_STRIPED_<name>``)."""
    lines = ["AUTOTUNE_STATUS=0  # the first failing repetition's exit code becomes the job's"]
    bb = requests[0].settings.bb if requests else None
    near = requests[0].settings.near if requests else None
    var = bb.variable if bb is not None else near.variable if near is not None else None
    if var and options.get("dw_job_striped"):
        local = safe_word(options["dw_job_striped"], "dw_job_striped", _SAFE_PATH)
        lines += ["# no DataWarp here: a local directory stands in for the allocation",
                  f'export {var}="${{{var}:-{local}}}"', f'mkdir -p "${var}"']
    return "\n".join(lines)


def script_body(requests: Sequence[RunRequest], options: Mapping[str, Any], jobid: str | None = None) -> str:
    """All repetitions of a trial, one after another (each with its own output files)."""
    lines: list[str] = []
    for req in requests:
        lines += repetition_block(req, options, jobid)
    return "\n".join(lines)
