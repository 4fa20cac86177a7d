"""Assembles the package at import time from the generated name table (`_table.py`)."""

import os
import random
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


# The secret that orders the making of the functions (the grader's sandbox sets it, one for all
# its servers; elsewhere the system's randomness). In catalog order, NumPy's alphabetical one,
# consecutive functions got consecutive addresses, and `id`, `hash` or `repr` of the functions,
# sorted, gave a program the whole name table with no call at all (a red team's: `correct` on
# 55 of the 64 dev tasks knowing no name). Made in a secret order, the functions' addresses,
# and the order of the package's attributes, say nothing of which NumPy function each is.
ORDER_VARIABLE = "SEBENCH_LIBRARY_ORDER"


def _secret_order(entries):
    secret = os.environ.get(ORDER_VARIABLE) or os.urandom(16).hex()
    shuffled = list(entries)
    random.Random(secret).shuffle(shuffled)
    return shuffled


def install(name):
    package = sys.modules[name]
    zwc_array, make_function = _array.build(
        numpy, name, _runtime.call, _runtime.official_failure, _runtime.official_trial_wanted
    )
    sub_name = f"{name}.{_table.SUBMODULE}"
    sub = _package.Package(sub_name, f"The linear algebra functions of `{name}`.")
    sub.__spec__ = ModuleSpec(sub_name, None)
    sub.__file__ = package.__file__
    sub.__package__ = name

    def add(module, module_name, numpy_name, lib_name):
        # a new string, made now: `setattr` interns it, so a program's literal of the name is
        # this one, at an address of the secret order (`_table` interns no name)
        lib_name = lib_name[:1] + lib_name[1:]
        doc = f"`{module_name}.{lib_name}`: see the `{name}` API documentation."
        function = make_function(
            _resolve(numpy_name), lib_name, module_name, numpy_name == _table.CONSTRUCTOR, doc
        )
        setattr(module, lib_name, function)

    entries = [(package, name, *entry) for entry in _table.TOP_LEVEL]
    entries += [(sub, sub_name, *entry) for entry in _table.LINALG]
    for module, module_name, numpy_name, lib_name in _secret_order(entries):
        add(module, module_name, numpy_name, lib_name)
    sub.__all__ = sorted(lib for _, lib in _table.LINALG)
    package.ZWCArray = zwc_array
    setattr(package, _table.SUBMODULE, sub)
    package.__all__ = sorted([lib for _, lib in _table.TOP_LEVEL] + [_table.SUBMODULE, "ZWCArray"])
    sys.modules[sub_name] = sub
    package.__class__ = _package.Package
