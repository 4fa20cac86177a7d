"""Assembles the package at import time from the generated name table (`_table.py`)."""

import sys
from importlib.machinery import ModuleSpec

import numpy

from . import _array, _package, _runtime, _table

# Functions renamed or removed in some NumPy versions: the first name that exists is used, so the
# same built package works from NumPy 1.26 to 2.4+ (e.g. `trapz` is `trapezoid` since 2.0 and
# gone in 2.4; the `acos`-style aliases only exist since 2.0).
ALIASES = {
    "trapz": ("trapezoid", "trapz"),
    "acos": ("acos", "arccos"),
    "acosh": ("acosh", "arccosh"),
    "asin": ("asin", "arcsin"),
    "asinh": ("asinh", "arcsinh"),
    "atan": ("atan", "arctan"),
    "atan2": ("atan2", "arctan2"),
    "atanh": ("atanh", "arctanh"),
    "bitwise_invert": ("bitwise_invert", "invert"),
    "bitwise_left_shift": ("bitwise_left_shift", "left_shift"),
    "bitwise_right_shift": ("bitwise_right_shift", "right_shift"),
    "permute_dims": ("permute_dims", "transpose"),
    "pow": ("pow", "power"),
}


def _resolve(numpy_name):
    if numpy_name.startswith("linalg."):
        namespace, name = numpy.linalg, numpy_name[len("linalg.") :]
    else:
        namespace, name = numpy, numpy_name
    for candidate in ALIASES.get(name, (name,)):
        target = getattr(namespace, candidate, None)
        if target is not None:
            return target
    return None


# The layout: everything that depends on which NumPy function a name calls is done in NumPy's
# order (the same for every library of these functions), and what is made in the names' order
# is alike for every name. An object's address follows the order it was made in, and the
# servers run with a fixed layout, so `id`, `hash` or `repr` of anything, sorted, give a
# program the names' own order and nothing else. Made in catalog order, NumPy's alphabetical
# one, the functions gave it the whole name table (a red team's: `correct` on 55 of the 64 dev
# tasks knowing no name); then in an order drawn from a secret per grader, fixed for a whole RL
# run, where "the function at rank 211 by address" earned reward 1.0 every time (a red team's,
# through `sebench serve-reward` and TRL's reward); then in the names' order, but from pairs a
# sort had keyed in NumPy's order, whose freed keys the program's first 2-tuples reused (a red
# team's, `correct` on 12 dev tasks with one call). `_table.py` is laid out for this too
# (`sebench.library.build.table_module`).
def install(name):
    package = sys.modules[name]
    zwc_array, make_target, make_function = _array.build(
        numpy, name, _runtime.call, _runtime.official_failure, _runtime.official_trial_wanted
    )
    sub_name = f"{name}.{_table.SUBMODULE}"
    sub = _package.Package(sub_name, f"The linear algebra functions of `{name}`.")
    sub.__spec__ = ModuleSpec(sub_name, None)
    sub.__file__ = package.__file__
    sub.__package__ = name

    parts = (
        (package, name, _table.TOP_NUMPY, _table.TOP_NAMES, _table.TOP_PLACES),
        (sub, sub_name, _table.SUB_NUMPY, _table.SUB_NAMES, _table.SUB_PLACES),
    )
    # NumPy's functions, resolved in NumPy's (sorted) order; one this NumPy lacks gets the one
    # stand-in all such functions share
    targets = [
        [make_target(_resolve(numpy_name)) for numpy_name in numpy_names]
        for _, _, numpy_names, _, _ in parts
    ]
    for number, (module, module_name, numpy_names, names, places) in enumerate(parts):
        made = targets[number]
        for index, lib_name in enumerate(names):
            place = places[index]  # a byte: a small int, which Python never makes anew
            constructor = numpy_names[place] == _table.CONSTRUCTOR
            doc = f"`{module_name}.{lib_name}`: see the `{name}` API documentation."
            function = make_function(made[place], lib_name, module_name, constructor, doc)
            # `setattr` interns the name (this string, split in the names' order): a program's
            # literal of it is this string
            setattr(module, lib_name, function)
    sub.__all__ = list(_table.SUB_NAMES)
    package.ZWCArray = zwc_array
    setattr(package, _table.SUBMODULE, sub)
    package.__all__ = sorted(_table.TOP_NAMES + [_table.SUBMODULE, "ZWCArray"])
    sys.modules[sub_name] = sub
    package.__class__ = _package.Package
