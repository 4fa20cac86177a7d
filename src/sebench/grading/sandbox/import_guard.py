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

Defence in depth only: code that can walk frames or reach `sys.modules` gets around it.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import sys

REFUSED = ("numpy",)


def install(trusted_packages: tuple[str, ...]) -> None:
    """Install the guard in this process (the fork server); NumPy itself is always trusted."""
    from importlib import _bootstrap

    real_import = builtins.__import__
    real_import_module = importlib.import_module
    real_importlib_import = importlib.__import__
    calc_package, resolve_name = _bootstrap._calc___package__, _bootstrap._resolve_name
    resolve_relative = importlib.util.resolve_name
    modules, getframe, dict_get, type_, str_ = sys.modules, sys._getframe, dict.get, type, str
    trusted = REFUSED + tuple(trusted_packages)

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

    def caller_is_trusted(depth: int) -> bool:
        scope = getframe(depth + 1).f_globals
        name = dict_get(scope, "__name__")
        if not within(name, trusted):
            return False
        module = modules.get(name)
        return module is not None and getattr(module, "__dict__", None) is scope

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        absolute = target(name, globals, level)
        if (absolute is not None and not within(absolute, REFUSED)) or caller_is_trusted(1):
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
        if (absolute is not None and not within(absolute, REFUSED)) or caller_is_trusted(1):
            return real_import_module(name, package)
        raise ImportError(f"No module named {absolute or name!r}", name=absolute or name)

    def guarded_importlib_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        absolute = target(name, globals, level)
        if (absolute is not None and not within(absolute, REFUSED)) or caller_is_trusted(1):
            return real_importlib_import(name, globals, locals, fromlist, level)
        raise ImportError(f"No module named {absolute or name!r}", name=absolute or name)

    builtins.__import__ = guarded_import
    importlib.import_module = guarded_import_module
    importlib.__import__ = guarded_importlib_import
