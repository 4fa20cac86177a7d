import ast

from sebench.grading.statements import statements

CODE = """
import a
def f():
    import b
    try:
        import c
    except ValueError:
        import d
    else:
        import e
    finally:
        import g
    with open("x") as handle:
        import h
    match 1:
        case 1:
            import i
class K:
    import j
    while True:
        import k
    else:
        import l
g = lambda: __import__("m")
"""


def test_statements_reach_every_block_but_not_expressions():
    found = statements(ast.parse(CODE))
    imported = sorted(n.names[0].name for n in found if isinstance(n, ast.Import))
    assert imported == ["a", "b", "c", "d", "e", "g", "h", "i", "j", "k", "l"]
    assert not any(isinstance(n, ast.expr) for n in found)  # a lambda's body is no block
