"""An import guard for the children: untrusted code cannot import NumPy at run time.

Installed in the fork server once its own imports are done, so every child inherits it.

The static policy refuses NumPy imports it can see; this catches the ones it cannot (an `eval`
or `__import__("numpy")` reached through some stdlib back door). NumPy and the library stay in
`sys.modules` and keep working: removing them would make NumPy's own function-level imports load
a second NumPy from disk. Instead `builtins.__import__`, `importlib.import_module` and
`importlib.__import__` refuse a NumPy module unless the importing frame is a real module of NumPy
or of the library (its globals are the `__dict__` of the `sys.modules` entry it names).

One exception keeps NumPy's C code working: C calls `PyImport_Import`, which goes through
`builtins.__import__` with (name, globals, globals, [], 0) and the globals of the nearest Python
frame, which may be the untrusted code's, then takes the module from `sys.modules` itself and
ignores the value returned. For that call shape the guard does the import and returns None, so a
caller imitating it gets nothing usable.

Code that is not a module's (the graded program, run by `exec`) is also refused the modules that
find live objects or frames (`INTROSPECTION`: `gc`, `inspect`, `ctypes`, `importlib`, `signal`,
whose handlers receive the running frame, ...), and `import sys` hands it a stand-in holding
only the constants and limits that honest programs read (`SYS_ATTRIBUTES`): no `sys.modules`,
no `_getframe`, no `settrace`. Imports made by a module's code keep working (a standard module
importing `inspect` lazily, NumPy's function-level imports).

Defence in depth only: code that can reach `sys.modules` through attributes gets around it; the
capabilities themselves are refused at run time by the audit hook (audit.py).
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import io
import sys
from types import CodeType, ModuleType

REFUSED = ("numpy",)
INTROSPECTION = (
    "gc",
    "inspect",
    "ctypes",
    "_ctypes",
    "importlib",
    "_imp",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "marshal",
    "signal",
    "_signal",
    "faulthandler",
    "tracemalloc",
    "_tracemalloc",
    "_testcapi",
    "_testinternalcapi",
    "_xxsubinterpreters",
    "pdb",
    "bdb",
    "trace",
    "sebench",
)
# What `import sys` gives the graded program (the static policy's `sys` allow-list, policy.py).
SYS_ATTRIBUTES = [
    "maxsize",
    "maxunicode",
    "float_info",
    "int_info",
    "float_repr_style",
    "byteorder",
    "version",
    "version_info",
    "hexversion",
    "setrecursionlimit",
    "getrecursionlimit",
    "set_int_max_str_digits",
    "get_int_max_str_digits",
    "getsizeof",
    "exit",
    "stdin",
    "stdout",
    "stderr",
]


def install(
    trusted_packages: tuple[str, ...],
    guard_introspection: bool,
    refused: tuple[str, ...] = REFUSED,
) -> frozenset[CodeType]:
    """Install the guard in this process (the fork server); NumPy itself is always trusted.
    `guard_introspection`: also refuse `INTROSPECTION` and hand out the stand-in for `sys` (the
    `introspection` layer). `refused`: the packages the graded program may not import (none for
    NumPy-form tasks).

    Returns the code objects of its functions that call `sys._getframe` (the audit hook lets
    those calls through)."""
    from importlib import _bootstrap

    real_import = builtins.__import__
    real_import_module = importlib.import_module
    real_importlib_import = importlib.__import__
    calc_package, resolve_name = _bootstrap._calc___package__, _bootstrap._resolve_name
    resolve_relative = importlib.util.resolve_name
    modules, getframe, dict_get, type_, str_ = sys.modules, sys._getframe, dict.get, type, str
    trusted = REFUSED + tuple(trusted_packages)
    introspection = INTROSPECTION if guard_introspection else ()
    stand_in_sys = "sys" if guard_introspection else "\0"  # never a module name
    module_type = ModuleType
    sys_stand_in = ModuleType("sys", "The constants and limits of `sys` a program may read.")
    for attribute in SYS_ATTRIBUTES:
        if hasattr(sys, attribute):
            setattr(sys_stand_in, attribute, getattr(sys, attribute))
    # Streams that hold no file descriptor (what a program writes there goes nowhere, as the
    # real ones go to /dev/null): the real ones lead to a file object's type, which opens any
    # descriptor by number (`type(sys.stdout.buffer.raw)(3)`: the result pipe, a red team's).
    for attribute in ("stdin", "stdout", "stderr"):
        setattr(sys_stand_in, attribute, io.StringIO())

    def within(name: object, packages: tuple[str, ...]) -> bool:
        return type_(name) is str_ and any(name == p or name.startswith(p + ".") for p in packages)

    def target(name: str, scope: object, level: int) -> str | None:
        """The absolute module name an import asks for; None when it cannot be told."""
        if level <= 0:
            return name
        try:  # only a plain dict: a subclass could answer differently the second time
            return resolve_name(name, calc_package(scope), level) if type_(scope) is dict else None
        except Exception:
            return None

    def caller_module(depth: int) -> str | None:
        """The module whose code makes the import; None for the graded program's code: code
        that no module holds, and `__main__`, the program's own module in a child (child.py),
        whose globals the standard library also gives to code it makes for the program
        (`dataclasses` execs the methods it writes in the module of the class)."""
        scope = getframe(depth + 1).f_globals
        name = dict_get(scope, "__name__")
        if name == "__main__":
            return None
        module = modules.get(name) if type_(name) is str_ else None
        if type_(module) is not module_type and not isinstance(module, module_type):
            return None
        return name if getattr(module, "__dict__", None) is scope else None

    def caller_is_trusted(depth: int) -> bool:
        return within(caller_module(depth + 1), trusted)

    def for_program(absolute: str | None) -> object:
        """What an import by the graded program gets instead: the stand-in for `sys`, an
        ImportError for the modules that find live objects, None when it may import."""
        if absolute == stand_in_sys:
            return sys_stand_in
        if within(absolute, introspection):
            return ImportError(f"No module named {absolute!r}", name=absolute)
        return None

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        absolute = target(name, globals, level)
        if within(absolute, introspection) or absolute == stand_in_sys:
            if caller_module(1) is None:
                if type_(fromlist) is list and not fromlist and level == 0 and globals is locals:
                    real_import(name, globals, locals, fromlist, level)  # PyImport_Import from C
                    return None
                instead = for_program(absolute)
                if type_(instead) is ImportError:
                    raise instead
                return instead
            return real_import(name, globals, locals, fromlist, level)
        if (absolute is not None and not within(absolute, refused)) or caller_is_trusted(1):
            return real_import(name, globals, locals, fromlist, level)
        if type_(fromlist) is list and not fromlist and level == 0 and globals is locals:
            real_import(name, globals, locals, fromlist, level)  # PyImport_Import from C
            return None
        raise ImportError(f"No module named {absolute or name!r}", name=absolute or name)

    def guarded_import_module(name, package=None):
        try:
            absolute = resolve_relative(name, package)
        except Exception:
            absolute = None
        if (within(absolute, introspection) or absolute == stand_in_sys) and caller_module(
            1
        ) is None:
            raise ImportError(f"No module named {absolute!r}", name=absolute)
        if (absolute is not None and not within(absolute, refused)) or caller_is_trusted(1):
            return real_import_module(name, package)
        raise ImportError(f"No module named {absolute or name!r}", name=absolute or name)

    def guarded_importlib_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        absolute = target(name, globals, level)
        if (within(absolute, introspection) or absolute == stand_in_sys) and caller_module(
            1
        ) is None:
            raise ImportError(f"No module named {absolute!r}", name=absolute)
        if (absolute is not None and not within(absolute, refused)) or caller_is_trusted(1):
            return real_importlib_import(name, globals, locals, fromlist, level)
        raise ImportError(f"No module named {absolute or name!r}", name=absolute or name)

    builtins.__import__ = guarded_import
    importlib.import_module = guarded_import_module
    importlib.__import__ = guarded_importlib_import
    return frozenset((caller_module.__code__,))
