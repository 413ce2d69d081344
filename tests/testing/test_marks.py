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
            pass
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

        def test_unmarked():
            ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
            try:
                assert ray.is_initialized()
            finally:
                pass  # left running until the check: the plugin looks after the test body

        def teardown_module():
            ray.shutdown()
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_unmarked initialised Ray but is not marked @pytest.mark.ray*"])
