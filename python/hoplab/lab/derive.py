"""The expressions of a design's ``[derive]`` table: a scenario field computed
from the levels of the cell's factors, e.g. ``"topology.nodes" = "hops + 1"``.

An expression is arithmetic and nothing else, checked on its syntax tree
(Python's `ast`) before anything is evaluated: numbers, names of the
design's factors (a dotted factor name such as ``tcp.max_cwnd`` is written
as it is), ``+ - * / // % **``, unary ``+ -``, parentheses and the calls
``min, max, round, int, float``. No attribute of a value, no subscripts, no
strings, no comparisons: a design file is data, and evaluating it must not
run code, nor take unbounded time or memory (``10 ** 10 ** 10``), so every
intermediate value is bounded (MAX_INT, finite floats).
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["DeriveError", "Expr", "parse", "evaluate", "FUNCTIONS", "MAX_CHARS", "MAX_INT"]

# An expression is a line of a design, not a program; the bound also keeps
# the syntax tree shallow (the evaluator recurses over it).
MAX_CHARS = 200
# Scenario integers are at most 64 bits wide (seeds: 0..2**64-1, hoplab
# config); a larger intermediate value is a mistake, and unbounded integers
# would let `9 ** 9 ** 9` run for hours.
MAX_INT = 2**64
MAX_POWER = 64  # the largest exponent of an integer power: (2**64) ** 64 is still quick

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
# name -> (function, fewest arguments, most arguments)
FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    "min": (min, 2, 64), "max": (max, 2, 64), "round": (round, 1, 2), "int": (int, 1, 1), "float": (float, 1, 1),
}
_OPS_TEXT = "numbers, factor names, + - * / // % **, parentheses and " + ", ".join(FUNCTIONS)


class DeriveError(ValueError):
    """An expression that is not allowed or cannot be evaluated; one line."""


@dataclass(frozen=True)
class Expr:
    text: str  # as written (a number given as a TOML number: its text)
    tree: ast.AST
    names: tuple[str, ...] = ()  # the factor names it reads, in order of first use


def parse(value: Any) -> Expr:
    """An expression (a string) or a constant (a TOML number), checked."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        kind = "a table (quote a dotted field name)" if isinstance(value, Mapping) else f"a {type(value).__name__}"
        raise DeriveError(f"expected an expression (a string such as \"hops + 1\") or a number, got {kind}")
    if not isinstance(value, str):
        return Expr(repr(value), ast.Constant(_number(value)), ())
    text = value.strip()
    if not text:
        raise DeriveError("an empty expression")
    if len(text) > MAX_CHARS:
        raise DeriveError(f"an expression longer than {MAX_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # ValueError: a NUL character; RecursionError/MemoryError: nesting the parser gives up on.
        raise DeriveError(f"{text!r}: not an arithmetic expression ({_OPS_TEXT})") from None
    names: dict[str, None] = {}
    _check(tree, text, names)
    return Expr(text, tree, tuple(names))


def _dotted(node: ast.AST) -> str | None:
    """`tcp.max_cwnd` (an attribute chain over a name) as one dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _check(node: ast.AST, text: str, names: dict[str, None]) -> None:
    """Refuse every node that is not arithmetic; collect the names read."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool) or not isinstance(n.value, (int, float)):
                raise DeriveError(f"{text!r}: {n.value!r} is not a number")
            _number(n.value)
        elif isinstance(n, (ast.Name, ast.Attribute)):
            name = _dotted(n)
            if name is None:
                raise DeriveError(f"{text!r}: only factor names, not attributes of values")
            names.setdefault(name, None)
        elif isinstance(n, ast.BinOp) and type(n.op) in _BINARY:
            stack += [n.right, n.left]
        elif isinstance(n, ast.UnaryOp) and type(n.op) in _UNARY:
            stack.append(n.operand)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in FUNCTIONS:
            _, lo, hi = FUNCTIONS[n.func.id]
            if n.keywords or any(isinstance(a, ast.Starred) for a in n.args) or not lo <= len(n.args) <= hi:
                want = f"{lo}" if lo == hi else f"{lo} to {hi}"
                raise DeriveError(f"{text!r}: {n.func.id}() takes {want} plain argument(s)")
            stack += reversed(n.args)
        else:
            what = ast.unparse(n) if not isinstance(n, ast.Call) else f"the call {ast.unparse(n.func)}()"
            raise DeriveError(f"{text!r}: {what} is not allowed (only {_OPS_TEXT})")


def _number(v: Any) -> int | float:
    """`v` if it is a number within the bounds, else DeriveError."""
    if isinstance(v, complex):
        raise DeriveError("the result is not a real number")
    if isinstance(v, float) and not math.isfinite(v):
        raise DeriveError("the result is not a finite number")
    if isinstance(v, int) and abs(v) > MAX_INT:
        raise DeriveError(f"a value beyond ±2**64 ({v:.3g})")
    return v


def evaluate(expr: Expr, values: Mapping[str, Any]) -> int | float:
    """The value of `expr` with each name read from `values` (a cell's
    factor levels); DeriveError saying what failed."""
    for name in expr.names:
        v = values.get(name)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DeriveError(f"{expr.text!r}: {name} is {v!r} here, not a number")
    try:
        return _eval(expr.tree, values)
    except ZeroDivisionError:
        raise DeriveError(f"{expr.text!r}: division by zero") from None
    except OverflowError:
        raise DeriveError(f"{expr.text!r}: a value beyond the range of a float") from None
    except DeriveError as e:
        raise DeriveError(f"{expr.text!r}: {e}") from None


def _eval(node: ast.AST, values: Mapping[str, Any]) -> int | float:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _number(values[_dotted(node)])  # type: ignore[index]
    if isinstance(node, ast.UnaryOp):
        return _number(_UNARY[type(node.op)](_eval(node.operand, values)))
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, values), _eval(node.right, values)
        if isinstance(node.op, ast.Pow) and isinstance(b, int) and abs(b) > MAX_POWER and abs(a) > 1:
            raise DeriveError(f"an exponent beyond {MAX_POWER} ({b})")
        return _number(_BINARY[type(node.op)](a, b))
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)  # _check allowed nothing else
    args = [_eval(a, values) for a in node.args]
    if node.func.id == "round" and len(args) == 2:
        if not isinstance(args[1], int) or abs(args[1]) > MAX_POWER:
            raise DeriveError(f"round()'s digits must be a whole number from -{MAX_POWER} to {MAX_POWER}")
    return _number(FUNCTIONS[node.func.id][0](*args))
