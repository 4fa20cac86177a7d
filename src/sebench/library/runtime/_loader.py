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


# The order in which the functions are made: the library's names, sorted (top level, then the
# submodule), which anyone can list. An object's address follows the order it was made in, so
# `id`, `hash` or `repr` of the functions, sorted, give a program this order and nothing else.
# Made in catalog order, NumPy's alphabetical one, they gave it the whole name table (a red
# team's: `correct` on 55 of the 64 dev tasks knowing no name). Then in an order drawn from a
# secret, one per grader: within an RL run, whose grader lives as long as the run, the
# function at a given rank was the same in every job, so a program that called "the 211th
# function by address" earned reward 1.0 every time once a group had found the rank, knowing
# no name (a red team's, through `sebench serve-reward` and TRL's reward). In the names' own
# order, a rank is a name: finding it is learning that name.
def _public_order(entries):
    return sorted(entries, key=lambda entry: (entry[1], entry[3]))  # (module, library name)


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

    entries = [(package, name, *entry) for entry in _table.TOP_LEVEL]
    entries += [(sub, sub_name, *entry) for entry in _table.LINALG]
    entries = _public_order(entries)
    # Everything that depends on the NumPy function first, for all of them: made in the loop
    # below, a stand-in for a function this NumPy lacks would shift the addresses after it.
    targets = [make_target(_resolve(numpy_name), lib) for _, _, numpy_name, lib in entries]
    for index, (module, module_name, numpy_name, lib_name) in enumerate(entries):
        # a new string, made now: `setattr` interns it, so a program's literal of the name is
        # this one, at an address of the public order (`_table` interns no name)
        lib_name = lib_name[:1] + lib_name[1:]
        doc = f"`{module_name}.{lib_name}`: see the `{name}` API documentation."
        constructor = numpy_name == _table.CONSTRUCTOR
        function = make_function(targets[index], lib_name, module_name, constructor, doc)
        setattr(module, lib_name, function)
    sub.__all__ = sorted(lib for _, lib in _table.LINALG)
    package.ZWCArray = zwc_array
    setattr(package, _table.SUBMODULE, sub)
    package.__all__ = sorted([lib for _, lib in _table.TOP_LEVEL] + [_table.SUBMODULE, "ZWCArray"])
    sys.modules[sub_name] = sub
    package.__class__ = _package.Package
