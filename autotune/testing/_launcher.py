"""The contract every launcher passes (run by tests/launch/* for each backend, optuna-style)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from autotune.hints import resolve
from autotune.launch import LAUNCHERS, AppSpec, BaseLauncher, RunRequest
from autotune.pattern import IOPattern
from autotune.systems import load_system


def command_request(tmp: Path, argv: list[str], *, timeout: float = 30.0, trial: int = 0, repetition: int = 0,
                    config: dict[str, object] | None = None, ranks: int = 1) -> RunRequest:
    """A request running ``argv`` (no mpiexec) on the local system's disk."""
    system = load_system("local")
    fs = system.filesystem("disk")
    pattern = IOPattern(ranks=ranks, bytes_per_rank=1 << 20)
    app = AppSpec(name="contract", pattern=pattern, command=tuple(argv), mpiexec=False)
    cfg = dict(config or {"mpiio.romio_cb_write": "disable"})
    return RunRequest(campaign="contract", trial=trial, repetition=repetition, app=app, system=system, fs=fs,
                      config=cfg, settings=resolve(cfg, system, fs, pattern), run_dir=tmp / f"run-{trial}-{repetition}",
                      data_dir=tmp / f"data-{trial}-{repetition}", timeout=timeout)


class RunContract:
    """What every launcher does, whether it runs a command or not (``model``, ``replay``).

    Subclass in a test module, provide the ``launcher`` fixture and implement ``ok_request`` (a
    repetition that succeeds) and ``failing_request`` (one that fails).
    """

    def ok_request(self, tmp: Path, repetition: int = 0) -> RunRequest:
        raise NotImplementedError

    def failing_request(self, tmp: Path) -> RunRequest:
        raise NotImplementedError

    def test_ok_run_has_output(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        res = launcher.run(self.ok_request(tmp_path))
        assert res.ok, res.error
        assert res.stdout.strip()

    def test_failure_is_a_one_line_result(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        res = launcher.run(self.failing_request(tmp_path))
        assert not res.ok
        assert res.error and "\n" not in res.error

    def test_describe_names_the_run_and_runs_nothing(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        req = self.ok_request(tmp_path)
        assert launcher.describe(req)
        assert not req.run_dir.exists() and not req.data_dir.exists()

    def test_run_many_gives_one_result_per_request(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        results = launcher.run_many([self.ok_request(tmp_path, repetition=i) for i in range(3)])
        assert len(results) == 3 and all(r.ok for r in results)

    def test_is_registered(self, launcher: BaseLauncher) -> None:
        assert LAUNCHERS.get(launcher.name) is type(launcher)

    def test_recover_finds_nothing_without_an_earlier_attempt(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        assert launcher.recover(self.ok_request(tmp_path)) is None

    def test_close_is_idempotent(self, launcher: BaseLauncher) -> None:
        launcher.close()
        launcher.close()


class LauncherContract(RunContract):
    """The contract of launchers that run a command. Subclass and provide the ``launcher`` fixture.

    The requests run ``sys.executable -c ...`` so the contract needs no MPI.
    """

    def make_request(self, tmp: Path, code: str, **kw: object) -> RunRequest:
        return command_request(tmp, [sys.executable, "-c", code], **kw)  # type: ignore[arg-type]

    def ok_request(self, tmp: Path, repetition: int = 0) -> RunRequest:
        return self.make_request(tmp, "print('{\"metrics\": {\"seconds\": 1.5}}')", repetition=repetition)

    def failing_request(self, tmp: Path) -> RunRequest:
        return self.make_request(tmp, "import sys; sys.exit(3)")

    def test_success_keeps_stdout(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        res = launcher.run(self.make_request(tmp_path, "print('{\"metrics\": {\"seconds\": 1.5}}')"))
        assert res.ok, res.error
        assert '"seconds": 1.5' in res.stdout

    def test_failure_is_a_result_with_stderr(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        res = launcher.run(self.make_request(tmp_path, "import sys; print('boom-marker', file=sys.stderr); sys.exit(3)"))
        assert not res.ok
        assert res.error and "\n" not in res.error
        assert "boom-marker" in res.stderr

    def test_timeout_is_enforced(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        start = time.monotonic()
        res = launcher.run(self.make_request(tmp_path, "import time; time.sleep(60)", timeout=2.0))
        assert not res.ok and res.timed_out
        assert time.monotonic() - start < 45

    def test_parameters_reach_the_app_as_environment(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        code = "import os; print(os.environ['AUTOTUNE_PARAM_MPIIO_ROMIO_CB_WRITE'], open(os.environ['ROMIO_HINTS']).read())"
        res = launcher.run(self.make_request(tmp_path, code))
        assert res.ok, res.error
        assert res.stdout.startswith("disable") and "romio_cb_write disable" in res.stdout

    def test_describe_runs_nothing(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        req = self.make_request(tmp_path, "open('should-not-exist', 'w')")
        text = launcher.describe(req)
        assert text
        assert not (req.run_dir / "should-not-exist").exists()

    def test_run_many_keeps_order(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        reqs = [self.make_request(tmp_path, f"print({i})", repetition=i) for i in range(3)]
        results = launcher.run_many(reqs)
        assert [r.stdout.strip() for r in results] == ["0", "1", "2"]

    def test_preflight_and_cancel_hooks(self, launcher: BaseLauncher, tmp_path: Path) -> None:
        note = launcher.preflight([self.make_request(tmp_path, "pass")])  # a request that can run passes
        assert note is None or (note and "\n" not in note)
        assert launcher.cancel_active() == []  # nothing queued or running: nothing to cancel

