"""The local launcher: ``mpiexec -n R`` on this machine (or any command, with the hints in its environment)."""

from __future__ import annotations

import os
import shlex
import shutil
from typing import ClassVar

from autotune._registry import Option
from autotune._safefile import make_dirs, write_file
from autotune.errors import ConfigError
from autotune.launch._base import BaseLauncher, RunRequest, RunResult
from autotune.launch._command import app_command
from autotune.launch._process import run_process
from autotune.launch._tree import RECORD_NAME


class LocalLauncher(BaseLauncher):
    """Runs each repetition as ``mpiexec -n <ranks> [mpiexec_args] <app>`` in a fresh data directory.

    Options: ``mpiexec`` (default ``mpiexec``), ``mpiexec_args`` (list), ``python`` (the interpreter
    for built-in kernels; default: this one).
    """

    name: ClassVar[str] = "local"
    schema = (Option.text("mpiexec", "the MPI launcher command"), Option.words("mpiexec_args", "its extra arguments"),
              Option.text("python", "the Python that runs a kernel"))

    def _argv(self, request: RunRequest) -> tuple[list[str], dict[str, str], object]:
        cmd = app_command(request, python=self.options.get("python"))
        argv = list(cmd.argv)
        if request.app.mpiexec or request.app.kernel is not None:
            mpiexec = str(self.options.get("mpiexec", "mpiexec"))
            extra = self.options.get("mpiexec_args", [])
            if not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
                raise ConfigError(f"launcher.mpiexec_args: {extra!r} is not a list of strings")
            argv = [mpiexec, "-n", str(request.app.ranks), *extra, *argv]
        return argv, cmd.env, cmd

    def describe(self, request: RunRequest) -> str:
        argv, env, _ = self._argv(request)
        hints = {k: v for k, v in env.items() if k in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS") or k.startswith("OMPI_MCA_")}
        return " ".join(f"{k}={shlex.quote(v)}" for k, v in hints.items()) + (" " if hints else "") + shlex.join(argv)

    def run(self, request: RunRequest) -> RunResult:
        argv, env, cmd = self._argv(request)
        if shutil.which(argv[0]) is None and not os.path.isfile(argv[0]):
            return RunResult(returncode=None, error=f"command not found: {argv[0]!r}")
        make_dirs(request.run_dir, under=request.run_dir.parent.parent)  # trial-NNNN/rep-R: never links
        request.data_dir.mkdir(parents=True, exist_ok=True)
        cmd.write_files()  # type: ignore[attr-defined]
        write_file(request.run_dir / "command.txt",  # what ran: the variables autotune adds, then the argv
            "".join(f"{k}={shlex.quote(v)} \\\n" for k, v in sorted(env.items())) + shlex.join(argv) + "\n")
        full_env = {**os.environ, **env}
        log = request.run_dir / f"rep{request.repetition}"
        cwd = request.app.cwd if request.app.cwd is not None and request.app.kernel is None else request.run_dir
        result = run_process(argv, full_env, cwd, request.timeout, log_prefix=log,
                             record=request.run_dir / RECORD_NAME)
        result.info["command"] = shlex.join(argv)
        return result
