"""Launchers: how a repetition runs (local mpiexec, Slurm jobs and steps, the performance model)."""

from autotune.launch._base import (
    LAUNCHERS,
    AppSpec,
    BaseLauncher,
    RunRequest,
    RunResult,
    get_launcher,
    launcher_names,
)
from autotune.launch._command import AppCommand, app_command, hint_env, param_env
from autotune.launch._jobscript import job_name_of, repetition_block
from autotune.launch._local import LocalLauncher
from autotune.launch._persistent import Persistent, fixed_parameters, parse_persistent, script, set_up, tear_down
from autotune.launch._process import KILL_GRACE_S, clean_stderr, run_process, tail
from autotune.launch._replay import Recording, ReplayLauncher, config_key, parse_key
from autotune.launch._slurmqueue import describe_pending
from autotune.launch._tree import kill_leftovers, proc_stat, write_record

__all__ = [
    "KILL_GRACE_S",
    "LAUNCHERS",
    "AppCommand",
    "AppSpec",
    "BaseLauncher",
    "LocalLauncher",
    "Persistent",
    "Recording",
    "ReplayLauncher",
    "RunRequest",
    "RunResult",
    "app_command",
    "clean_stderr",
    "config_key",
    "describe_pending",
    "fixed_parameters",
    "get_launcher",
    "hint_env",
    "job_name_of",
    "kill_leftovers",
    "launcher_names",
    "param_env",
    "parse_key",
    "parse_persistent",
    "proc_stat",
    "repetition_block",
    "run_process",
    "script",
    "set_up",
    "tail",
    "tear_down",
    "write_record",
]
