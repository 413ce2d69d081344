"""A test that uses a machine-wide service without its mark fails every time (``autotune.testing.marks``)."""

from __future__ import annotations

import pytest

PLUGIN = 'pytest_plugins = ["autotune.testing.marks"]\n'


def test_an_unmarked_test_cannot_start_the_local_slurm(pytester: pytest.Pytester) -> None:
    """The check comes before up.sh: nothing is started, and the message names the test and the mark."""
    pytester.makeconftest(PLUGIN)
    pytester.makepyfile(test_inner="""
        import pytest
        from autotune.testing import ensure_local_slurm

        @pytest.fixture(scope="module")
        def slurm():
            return ensure_local_slurm()

        def test_unmarked(slurm):
            assert slurm
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_unmarked uses the local Slurm but is not marked @pytest.mark.slurm*"])


def test_a_marked_test_passes_the_check_and_the_mark_is_per_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PLUGIN)
    pytester.makepyfile(test_inner="""
        import pytest
        from autotune.testing.marks import current_marks, require_mark

        @pytest.mark.slurm
        def test_marked():
            require_mark("slurm", "the local Slurm")
            assert current_marks() == {"slurm"}

        def test_next_one_is_not():
            assert current_marks() == set()
            with pytest.raises(RuntimeError, match="not marked @pytest.mark.slurm"):
                require_mark("slurm", "the local Slurm")
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_outside_the_plugin_nothing_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    from autotune.testing.marks import MARKS_ENV, require_mark

    monkeypatch.delenv(MARKS_ENV, raising=False)
    require_mark("slurm", "the local Slurm")  # a site's own tests of autotune.testing helpers are not policed


@pytest.mark.ray
@pytest.mark.slow
def test_an_unmarked_test_that_initialises_ray_fails(pytester: pytest.Pytester) -> None:
    """A real local Ray, started in the inner run's process (a subprocess of this test) by an unmarked test."""
    pytester.makeconftest(PLUGIN)
    pytester.makepyfile(test_inner="""
        import ray

        def test_unmarked():  # Ray is left running: the plugin looks after the test body
            ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
            assert ray.is_initialized()

        def teardown_module():
            ray.shutdown()
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_unmarked initialised Ray but is not marked @pytest.mark.ray*"])


@pytest.mark.slow
def test_under_xdist_a_files_tests_share_a_worker_and_machine_wide_tests_one_worker(pytester: pytest.Pytester) -> None:
    """The groups take effect (``--dist loadgroup``): pytest 9.2 with pytest-xdist 3.8 silently dropped them
    (github.com/pytest-dev/pytest-xdist/issues/1386), so Slurm and Ray tests ran side by side; pyproject.toml pins
    pytest below 9.2."""
    pytester.makeconftest(PLUGIN)
    body = """
        import os
        import pytest

        def _note(name):
            with open({log!r}, "a") as f:
                f.write(f"{{name}} {{os.environ['PYTEST_XDIST_WORKER']}}\\n")

        @pytest.mark.parametrize("i", range(6))
        def test_plain(i):
            _note(f"{file}:plain")

        @pytest.mark.slurm
        @pytest.mark.parametrize("i", range(3))
        def test_shared(i):
            _note("shared")
    """
    log = pytester.path / "workers.txt"
    for name in ("test_one", "test_two", "test_three"):
        pytester.makepyfile(**{name: body.format(log=str(log), file=name)})
    pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider").assert_outcomes(passed=27)
    workers: dict[str, set[str]] = {}
    for line in log.read_text().splitlines():
        group, worker = line.split()
        workers.setdefault(group, set()).add(worker)
    assert len(workers) == 4 and all(len(w) == 1 for w in workers.values()), workers
