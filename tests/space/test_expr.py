import pytest

from autotune.errors import ConfigError
from autotune.space import Expr


def test_dotted_names_and_arithmetic() -> None:
    e = Expr("lustre.stripe_count <= fs.osts and derived.aggregators % bb.nodes == 0")
    assert e.names == {"lustre.stripe_count", "fs.osts", "derived.aggregators", "bb.nodes"}
    env = {"lustre.stripe_count": 48, "fs.osts": 56, "derived.aggregators": 128, "bb.nodes": 64}
    assert e.evaluate(env) is True
    assert e.evaluate({**env, "bb.nodes": 65}) is False


def test_violation_measures_the_distance() -> None:
    e = Expr("lustre.stripe_count <= fs.osts")
    assert e.violation({"lustre.stripe_count": 56, "fs.osts": 56}) == 0
    assert e.violation({"lustre.stripe_count": 60, "fs.osts": 56}) == 4
    assert Expr("a.b == 'x'").violation({"a.b": "y"}) == 1.0


@pytest.mark.parametrize("text", ["__import__('os')", "(lambda: 1)()", "a.b.__class__", "open('x')", "x if"])
def test_unsafe_or_invalid_expressions_are_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        Expr(text).evaluate({"a.b": 1, "x": 1})


def test_functions() -> None:
    assert Expr("min(app.ranks, max(1, ceil(app.data / fs.g)))").evaluate({"app.ranks": 8, "app.data": 10, "fs.g": 3}) == 4
    assert Expr("is_pow2(x.y)").evaluate({"x.y": 64})
