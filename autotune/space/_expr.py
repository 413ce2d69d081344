"""A tiny, safe expression language for rules and ranges: ``lustre.stripe_count <= fs.osts``.

Names are dotted paths into nested mappings (``lustre.stripe_count``, ``fs.osts``, ``app.ranks``);
only comparisons, boolean logic, arithmetic, constants, ``x in [..]`` and a few functions are allowed.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping
from typing import Any

from autotune.errors import ConfigError

_BIN = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Any] = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos}
_CMP = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def _is_pow2(x: Any) -> bool:
    return isinstance(x, int) and x > 0 and (x & (x - 1)) == 0


_FUNCS: dict[str, Any] = {
    "min": min, "max": max, "abs": abs, "ceil": math.ceil, "floor": math.floor,
    "log2": math.log2, "int": int, "is_pow2": _is_pow2,
}


MAX_INT = 2**63 - 1  # every integer a setting can take fits a signed 64-bit integer (Optuna, SQL, numpy)


def _check_power(base: Any, exponent: Any, text: str) -> None:
    """Refuse a power whose result would exceed ``MAX_INT`` before computing it (``9**9**9`` would take hours)."""
    if isinstance(base, (int, float)) and isinstance(exponent, (int, float)) and abs(base) > 1 and exponent > 0:
        if exponent * math.log2(abs(base)) > 63:
            raise ConfigError(f"{text!r}: {base}**{exponent} exceeds {MAX_INT} (2**63 - 1), the largest value allowed")


def _bounded(value: Any, text: str) -> Any:
    """``value`` if it is within +-``MAX_INT`` (floats: finite), else a ConfigError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if (isinstance(value, int) and abs(value) > MAX_INT) or (isinstance(value, float) and not math.isfinite(value)):
        shown = f"{value:.4g}" if isinstance(value, float) else f"an integer of {len(str(abs(value)))} digits"
        raise ConfigError(f"{text!r}: {shown} is out of range (at most {MAX_INT}, 2**63 - 1)")
    return value


class UnknownName(ConfigError):
    """An expression names something that is not defined."""

    def __init__(self, name: str, expr: str) -> None:
        super().__init__(f"{expr!r}: unknown name {name!r}")
        self.name = name


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class Expr:
    """A parsed expression; ``names`` are the dotted names it reads."""

    def __init__(self, text: str, where: str = "expression") -> None:
        self.text = str(text)
        try:
            self._tree = ast.parse(self.text, mode="eval").body
        except SyntaxError:
            raise ConfigError(f"{where}: {self.text!r} is not a valid expression") from None
        self.names: set[str] = set()
        self._check(self._tree, where)

    def _check(self, node: ast.AST, where: str) -> None:
        dotted = _dotted(node)
        if dotted is not None:
            if dotted not in ("True", "False") and dotted not in _FUNCS:
                self.names.add(dotted)
            return
        allowed = (ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant, ast.Call, ast.IfExp,
                   ast.List, ast.Tuple, ast.Subscript, ast.And, ast.Or, ast.Not, ast.USub, ast.Load)
        if not isinstance(node, allowed):
            raise ConfigError(f"{where}: {self.text!r} uses {type(node).__name__}, which rules may not use")
        op = getattr(node, "op", None)
        ops = [op] if op is not None else list(getattr(node, "ops", ()))
        bad = [o for o in ops if type(o) not in _BIN and type(o) not in _CMP and type(o) not in _UNARY
               and not isinstance(o, ast.boolop)]
        if bad:
            raise ConfigError(f"{where}: {self.text!r} uses the operator {type(bad[0]).__name__}, which rules may not "
                              "use (allowed: + - * / // % **, comparisons, in, and, or, not)")
        if isinstance(node, ast.Call):
            fname = _dotted(node.func)
            if fname not in _FUNCS or node.keywords:
                raise ConfigError(f"{where}: {self.text!r} calls {fname!r} (allowed: {', '.join(sorted(_FUNCS))})")
            for a in node.args:
                self._check(a, where)
            return
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.operator, ast.cmpop, ast.boolop, ast.unaryop, ast.expr_context)):
                self._check(child, where)

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """Evaluate with ``env`` mapping dotted names (flat, e.g. ``{"fs.osts": 56}``) to values."""
        try:
            return self._eval(self._tree, env)
        except (TypeError, IndexError, KeyError, AttributeError) as exc:  # e.g. 1 + 'a', [1][5], 3[0]
            raise ConfigError(f"{self.text!r}: cannot be evaluated ({type(exc).__name__}: {exc})") from None

    def _eval(self, node: ast.AST, env: Mapping[str, Any]) -> Any:
        dotted = _dotted(node)
        if dotted is not None:
            if dotted == "True":
                return True
            if dotted == "False":
                return False
            if dotted not in env:
                raise UnknownName(dotted, self.text)
            return env[dotted]
        if isinstance(node, ast.Constant):
            return _bounded(node.value, self.text)
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                return all(self._eval(v, env) for v in node.values)
            return any(self._eval(v, env) for v in node.values)
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self._eval(node.operand, env))
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, env), self._eval(node.right, env)
            if isinstance(node.op, ast.Pow):
                _check_power(left, right, self.text)
            try:
                return _bounded(_BIN[type(node.op)](left, right), self.text)
            except (OverflowError, ZeroDivisionError) as exc:
                raise ConfigError(f"{self.text!r}: {exc}") from None
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env)
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = self._eval(comp, env)
                if not _CMP[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Call):
            fname = _dotted(node.func)
            try:
                return _bounded(_FUNCS[str(fname)](*(self._eval(a, env) for a in node.args)), self.text)
            except (OverflowError, ValueError, TypeError) as exc:
                raise ConfigError(f"{self.text!r}: {fname}(): {exc}") from None
        if isinstance(node, ast.IfExp):
            return self._eval(node.body, env) if self._eval(node.test, env) else self._eval(node.orelse, env)
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self._eval(e, env) for e in node.elts]
        if isinstance(node, ast.Subscript):
            return self._eval(node.value, env)[self._eval(node.slice, env)]
        raise ConfigError(f"{self.text!r}: cannot evaluate {type(node).__name__}")

    def violation(self, env: Mapping[str, Any]) -> float:
        """0.0 when the rule holds; otherwise how far it is violated (>0), for Optuna's constraints."""
        node = self._tree
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = self._eval(node.left, env), self._eval(node.comparators[0], env)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
                op = type(node.ops[0])
                gap = {ast.LtE: a - b, ast.Lt: a - b, ast.GtE: b - a, ast.Gt: b - a}.get(op)
                if gap is not None and not _CMP[op](a, b):
                    return float(max(gap, 1e-9) if op in (ast.LtE, ast.GtE) else max(gap, 0) + 1.0)
        return 0.0 if self.evaluate(env) else 1.0

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"
