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
from autotune.launch._jobscript import job_name_of
from autotune.launch._process import clean_stderr, run_process
from autotune.launch._slurmqueue import describe_pending

__all__ = [
    "LAUNCHERS", "AppCommand", "AppSpec", "BaseLauncher", "RunRequest", "RunResult", "app_command", "clean_stderr",
    "describe_pending", "get_launcher", "hint_env", "job_name_of", "launcher_names", "param_env",
    "run_process",
]
