"""Every registered executor through autotune.testing.ExecutorContract."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from autotune.execute import EXECUTORS, BaseExecutor, get_executor
from autotune.testing import ExecutorContract


def test_every_registered_executor_has_a_contract_here() -> None:
    assert set(EXECUTORS.names()) == {"serial", "ray"}


class TestSerialContract(ExecutorContract):
    @pytest.fixture
    def executor(self) -> Iterator[BaseExecutor]:
        with get_executor("serial") as ex:
            yield ex


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[BaseExecutor]:
    """One local Ray instance for the whole class (ray.init takes seconds)."""
    with get_executor("ray", {"num_cpus": 2, "parallel": 2}) as ex:
        yield ex


@pytest.mark.ray
@pytest.mark.slow
class TestRayContract(ExecutorContract):
    @pytest.fixture
    def executor(self, ray_executor: BaseExecutor) -> BaseExecutor:
        return ray_executor
