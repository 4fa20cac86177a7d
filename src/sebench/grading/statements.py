"""Walking a parsed response by statements, for checks that need no expression.

An import is always a statement, so finding imports (or anything else that only statements
hold) by following blocks visits a few dozen nodes where `ast.walk` visits every expression.
"""

from __future__ import annotations

import ast

# The fields that hold blocks: statements, `except` handlers and `match` cases, which hold more.
BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(tree: ast.AST) -> list[ast.AST]:
    """`tree` and every statement, handler and case under it, at any depth."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        for name in BLOCK_FIELDS:
            block = getattr(node, name, None)
            if isinstance(block, list):  # a lambda's or conditional expression's body is not
                todo.extend(block)
    return found
