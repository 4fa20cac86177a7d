"""Standard-library objects that read an attribute by a name they hold, made safe to hand out.

The static policy refuses every way of reading an attribute by a name computed at run time that
it can see. Some objects of the allowed modules do it themselves, with a name the program can
rewrite after the fact: a `dataclasses.Field`'s `name` (what `replace`, `asdict` and the methods
`dataclass` writes read, and what it pastes into the source it execs), a
`functools.cached_property`'s `attrname` (the key it reads from an instance's `__dict__`); and
`functools.update_wrapper` (behind `wraps`) copies a whole `__dict__`, a module's globals
included, onto any object. A red team chained them into `sys.modules` (issue 12, class 2).

Installed once in the fork server, before any fork: each name is fixed once set, and
`update_wrapper` copies from no module or class. Honest code never renames a field or a cached
property, and wraps functions.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from typing import Any

# What `update_wrapper` may not copy from: a module's `__dict__` is its globals, a class's its
# namespace (the library's classes included).
_NOT_WRAPPABLE = (types.ModuleType, type)


class _Field(dataclasses.Field):
    """A field whose name is set once (by `dataclass`, when it processes the class)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "name" and getattr(self, "name", None) is not None:
            raise AttributeError("a dataclass field's name cannot change")
        super().__setattr__(name, value)


class _CachedProperty(functools.cached_property):
    """A cached property whose attribute name is set once (by `__set_name__`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "attrname" and getattr(self, "attrname", None) is not None:
            raise AttributeError("a cached property's attribute name cannot change")
        super().__setattr__(name, value)


def install() -> None:
    """Replace the three in their modules (this process and the children it forks)."""
    update_wrapper = functools.update_wrapper

    def guarded_update_wrapper(wrapper: Any, wrapped: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(wrapped, _NOT_WRAPPABLE):
            raise TypeError(f"update_wrapper does not wrap a {type(wrapped).__name__}")
        return update_wrapper(wrapper, wrapped, *args, **kwargs)

    functools.update_wrapper = guarded_update_wrapper  # what `wraps` and `lru_cache` call
    dataclasses.Field = _Field  # what `field()` and `dataclass` make and look for
    functools.cached_property = _CachedProperty
