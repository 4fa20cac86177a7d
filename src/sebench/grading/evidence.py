"""Which library calls count as a task's library work: the calls of the task's own functions.

The rule "the answer depends on the library" (`Grader.confirm_dependence`) reruns a correct
answer with the library's results perturbed. Counting every function's results made any call
that hands data back a way to launder a plain-Python answer: `copyto`, `take` of every index,
`where`, `concatenate` of the answer's pieces, a cast of its text (red teams found some twenty
forms; each closed form had a neighbour), and it let a program that tells the runs apart with a
canary on any function it knows answer plainly. SE-Bench asks whether a model knows the task's
functions, so only their results are perturbed and counted: a program that launders or checks
through another function earns nothing by it, and one that does so through the task's own
function has shown that it knows it. Functions NumPy documents as the same function under
another name count alike (`amax` and `max`), as does a task's bare name for a `linalg`
function (`cross`: `cross` and `linalg.cross`). A task that names no function of the library
(generated or custom rows) counts every function's results, as before; a task about the
constructor or a conversion alone counts those, their results perturbed although they hand
their argument back. A task that names functions none of which the library has (a misspelled
`Trunc`, another library's tasks) counts nothing: falling back to every function there let a
canary on any function pass a plain answer (a red team's), so it fails closed, and the
summary counts and names such samples.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from sebench.grading.sandbox.perturbation import CONVERSIONS, SHAPE_ONLY
from sebench.library.table import NameTable

# NumPy's documented aliases that are separate objects (those that are the same object, `abs`
# and `absolute`, `pow` and `power`, resolve to one target anyway).
EQUIVALENT: tuple[frozenset[str], ...] = tuple(
    frozenset(group)
    for group in (
        ("amax", "max"),
        ("amin", "min"),
        ("around", "round", "round_"),
        ("prod", "product"),
        ("cumprod", "cumproduct"),
        ("any", "sometrue"),
        ("all", "alltrue"),
        ("vstack", "row_stack"),
        ("trapezoid", "trapz"),
        ("isin", "in1d"),
        ("concatenate", "concat"),
        ("transpose", "permute_dims"),
    )
)


# The constructor and the conversions hand their argument back, so elsewhere their calls are
# not the library's work (they carry a plain-Python answer through unchanged). They are a task's
# evidence only when it is about them alone; then their results are perturbed although they
# hand their argument back (the audit hook forces it), and nothing else counts. Counting every
# function there instead let a canary on any function (`add(2, 3) != 5`) decide the rerun of a
# plain answer: `correct` on the dev task about `copy` (a red team's).
HANDED_BACK = frozenset({"array", *CONVERSIONS})


# What a task that names only functions the library lacks sends as its evidence: no library
# name starts with an underscore, so it matches no function and nothing counts.
UNKNOWN = "_unknown_functions"


def evidence_names(functions: Iterable[str], table: NameTable) -> tuple[str, ...]:
    """The library names within the package (`kocito`, `rfx.quvohe`) of `functions` (NumPy
    names, as a task's `selected_functions` gives them), their documented aliases and, for a
    bare name, its `linalg` namesake; the constructor and the conversions (`HANDED_BACK`) only
    when the task names nothing else. () when it names nothing: then every function counts;
    (`UNKNOWN`,) when none it names is a function of the library: then none counts."""
    functions = list(functions)
    computing = [name for name in functions if name not in HANDED_BACK]
    functions = computing or functions
    library = table.numpy_to_library()
    prefix = f"{table.package}."
    found = {
        library[alias].removeprefix(prefix)
        for name in functions
        for alias in _aliases(name)
        if alias in library
    }
    if functions and not found:
        return (UNKNOWN,)
    return tuple(sorted(found))


def unknown_functions(functions: Iterable[str], library: Collection[str]) -> tuple[str, ...]:
    """The names of `functions` that are no function of the library (`library`: its NumPy
    names, `NameTable.numpy_to_library()`) under any of their aliases: what the summary
    reports, since such a name cannot be the evidence."""
    return tuple(
        name for name in functions if not any(alias in library for alias in _aliases(name))
    )


def _aliases(name: str) -> set[str]:
    """`name`, NumPy's other names for the same function, and each one's `linalg` namesake."""
    bare = name.removeprefix("linalg.")
    wanted: set[str] = set()
    for group in (*(g for g in EQUIVALENT if bare in g), frozenset((bare,))):
        for alias in group:
            wanted.update((alias, f"linalg.{alias}"))
    return wanted


def needs_rows(functions: Iterable[str], evidence: tuple[str, ...]) -> bool:
    """Whether the rows rerun is tried for a task about `functions` (with those `evidence`
    names): for a function of `SHAPE_ONLY`, or a task that names no function of the library.
    Elsewhere values carry the answer, and a grown result is recognisable knowing no function
    (a red team's program called every name on a 3-element probe and looked for a 4-row result
    whose last two rows were equal: `correct` on the `ones_like` and `vstack` dev tasks)."""
    return not evidence or any(name.removeprefix("linalg.") in SHAPE_ONLY for name in functions)
