"""Search spaces: namespaced parameters, system rules as declarative constraints, binding to a target."""

from autotune.space._bound import BoundSpace, Config, aggregators, context_env
from autotune.space._catalogue import CATALOGUE, KnownParameter
from autotune.space._expr import Expr
from autotune.space._params import BoundParam, ParamSpec, resolve_alias
from autotune.space._relevance import (
    AGGREGATOR_SETTINGS,
    COMPONENT_RULES,
    OMPIO_ONLY_SETTINGS,
    PHASE_SETTINGS,
    ROMIO_ONLY_SETTINGS,
    acting,
    inert,
    measured_phases,
    not_applied,
    other_component,
)
from autotune.space._rule import Rule, default_rules
from autotune.space._space import SearchSpace, fixed_value, load_space
from autotune.space._thumb import Baseline, rules_of_thumb

__all__ = [
    "AGGREGATOR_SETTINGS", "CATALOGUE", "COMPONENT_RULES", "OMPIO_ONLY_SETTINGS", "PHASE_SETTINGS", "ROMIO_ONLY_SETTINGS",
    "Baseline", "BoundParam", "BoundSpace", "Config", "Expr", "KnownParameter", "ParamSpec", "Rule", "SearchSpace",
    "acting", "aggregators", "context_env", "default_rules", "fixed_value", "inert", "load_space", "measured_phases",
    "not_applied", "other_component", "resolve_alias", "rules_of_thumb",
]
