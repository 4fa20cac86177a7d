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

Three more places turn data into attribute names, and a third red team chained them (an Enum
class of the program's called with members named `__reduce_ex__`, whose `copy` then set
`__dataclass_fields__` on a class, whose fake field's name `dataclass` pasted into the source it
execs): so the names are checked where they are used, whatever object carries them.
- the Enum functional API (`Color("Made", [(name, value), ...])`) makes a class whose members
  are named by data: no special name (`_x_`, `__x__`) among them;
- `copy` (and `deepcopy`) set the state a `__reduce_ex__` returns on the object it rebuilt, by
  its keys: no special name among them; and `deepcopy` takes no memo from the program (a memo
  substitutes objects anywhere in what the copy rebuilds, a reduce tuple's attribute name
  included);
- `dataclass` pastes field names into source: every field it reads, its bases' included, is a
  real field of the module's kinds with an identifier for a name, and every annotation's name
  is an identifier; neither is a special name (`__deepcopy__` put a hook in each instance).

Three more keep `type` and NumPy's classes from the program: every Python method of a
standard-library class takes its own class's instances only (`own_instances_only`: many build
`self.__class__(...)`), `statistics` converts to no metaclass, and ABCs answer for NumPy's and
the library's classes from a table made before any program (`pin_abc_answers`).

Two C routines of CPython 3.11 with known use-after-frees that the program's code can reach
are kept from it. Both compare items they hold by borrowed pointers, and a comparison can run
the program's code without any special method of its own (a dataclass's generated `__eq__`
reads a field that is a property, a `cmp_to_key` object calls its function), which empties the
container and frees what the routine then reads; red teams refilled the freed memory to forge
objects, read all memory and the name mapping (`correct` knowing no name):
- `OrderedDict` equality walks the two dicts' nodes (gh-119004, fixed in 3.12 only; OH);
- `deque.index` compares each item without holding it (gh-115243, idem; OJ).
Three `itertools` objects hold a borrowed pointer across a step that runs the program's code
(an addition, a key comparison), and a `next()` of the same object from inside that code frees
what the outer step then uses: `count` handed out a freed number, `accumulate` had the reflected
addition receive a freed object, `groupby` compared a freed key (red team OK). The program's
`itertools.count`, `accumulate` and `groupby` are Python translations of the C ones
(`safe_itertools`): Python code frees nothing under a borrowed pointer, and a generator
re-entered raises.
A holder of a callable or an iterator that drops it while calling it frees a callee whose C
code is still running (red team OL: `iter(callable, sentinel)` once the sentinel comes back from
a re-entered `next`, a `defaultdict` whose `default_factory` is set to None by the factory's
own work, and `chain`, `islice`, `cycle`, `zip_longest`, `pairwise` once a re-entered `next`
exhausts the inner iterator; the callees `partial`, `lru_cache`'s wrapper, `filter`, `map` and
a generator's `close` then read their freed selves: segmentation faults). Those holders are
Python code for the program (`safe_holders`): a frame holds what it calls, and a re-entered
generator raises.
The `OrderedDict` and `deque` the program can name (`collections`, `typing`; no allowed module
makes another) are subclasses that do those two in Python on copies (`safe_containers`): the
dicts compared as dicts (`dict.__eq__` holds what it compares), then their key orders as two
lists; the index searched in a list. Their C bases cannot be named (`__bases__`, `mro` and
`super(...).method` are refused).

Last, what the program may not change however it holds it (installed after everything else):
every module the server imported is sealed (`seal_modules`: a write raises an audit event the
hook refuses once the program runs), and every class that exists then is made immutable
(`freeze_classes`: CPython's own flag for builtin types).
"""

from __future__ import annotations

import abc
import builtins
import collections
import copy
import copyreg
import dataclasses
import enum
import functools
import itertools
import operator
import re
import statistics
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from sebench.grading.sandbox.audit import MODULE_WRITE

# What `update_wrapper` may not copy from: a module's `__dict__` is its globals, a class's its
# namespace (the library's classes included).
_NOT_WRAPPABLE = (types.ModuleType, type)


def _namespace(value: Any) -> bool:
    """`value` is, or hands on the attributes of, a module or a class: its `__dict__` is their
    globals or namespace (a class's is a read-only proxy)."""
    if isinstance(value, _NOT_WRAPPABLE):
        return True
    try:
        held = getattr(value, "__dict__", None)
    except Exception:
        return True
    return type(held) is types.MappingProxyType


_ATOMIC = frozenset({str, bytes, int, float, complex, bool, type(None)})

# What `update_wrapper` writes onto: functions and what `lru_cache` makes; and what it copies
# from: functions of every kind, or, for `lru_cache` (which the standard library also applies
# to its own callables: sqlite3's statement cache), any callable with a plain name or none.
# Other objects carry names and `__dict__`s the program could pass on: a `TypeVar` named by
# data gave a function that name (a bound method's copy then read the attribute so named),
# and a typing alias (`Generic[T]`, cached and shared) took another's `__origin__` (a fifth
# red team's, both).
_LRU_WRAPPER = functools._lru_cache_wrapper
_WRAPPERS = (types.FunctionType, _LRU_WRAPPER)
_WRAPPED = _WRAPPERS + (
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    functools.partial,
)

# What `copy` may rebuild an object through, besides a class that is not a metaclass: what
# `object.__reduce_ex__` names, and `iter` (an iterator's). Not `getattr`, which a bound
# method's reduce names with the method's name (a fifth red team read any attribute so).
_REBUILDERS = (copyreg.__newobj__, copyreg.__newobj_ex__, copyreg._reconstructor, iter)


def _rebuilder(func: Any) -> bool:
    # `_iter`: the `iter` an iterator's reduce names once `safe_holders` has replaced it
    if func is _iter or any(func is allowed for allowed in _REBUILDERS):
        return True
    return issubclass(type(func), type) and not issubclass(func, type)


def _wraps_from(wrapper: Any, wrapped: Any, kinds: tuple[type, ...]) -> bool:
    """`update_wrapper` may copy onto `wrapper` (one of `_WRAPPERS`) from `wrapped`: one of
    `kinds` (exactly: a subclass could carry any `__dict__`) named by an identifier (a lambda's
    too), or, into an `lru_cache` wrapper, a callable with a plain name or none."""
    name = getattr(wrapped, "__name__", None)
    if any(type(wrapped) is kind for kind in kinds):
        return name is None or (type(name) is str and (name.isidentifier() or name == "<lambda>"))
    return (
        type(wrapper) is _LRU_WRAPPER and callable(wrapped) and (name is None or _plain_name(name))
    )


class _Field(dataclasses.Field):
    """A field whose name is set once (by `dataclass`, when it processes the class), to a plain
    name, and never deleted (`del fld.name` made it unset again, and a red team then set it
    anew)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "name":
            _check_held_name(getattr(self, "name", None), value, "a dataclass field's name")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name == "name":
            raise AttributeError("a dataclass field's name cannot change")
        super().__delattr__(name)


class _CachedProperty(functools.cached_property):
    """A cached property whose attribute name is set once (by `__set_name__`), to a plain name,
    and never deleted: a red team set it once, by hand, to `__deepcopy__`, and reading the
    property then wrote the program's hook into an instance's `__dict__`."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "attrname":
            _check_held_name(getattr(self, "attrname", None), value, "a cached property's name")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name == "attrname":
            raise AttributeError("a cached property's attribute name cannot change")
        super().__delattr__(name)


# A name the interpreter or the standard library calls or reads by itself (`__reduce_ex__`,
# `__dataclass_fields__`, `_missing_`): never one that data may give.
_SPECIAL_NAME = re.compile(r"_\w*_")


def _plain_name(name: Any) -> bool:
    return type(name) is str and name.isidentifier() and not _SPECIAL_NAME.fullmatch(name)


def _check_held_name(old: Any, new: Any, what: str) -> None:
    """An attribute name an object holds and reads by: set once (None until then), plain."""
    if old is not None:
        raise AttributeError(f"{what} cannot change")
    if new is not None and not _plain_name(new):
        raise ValueError(f"{what} cannot be {new!r}")


def _enum_members(names: Any) -> Any:
    """The members the Enum functional API was given, checked, in a form it takes: a string of
    names, a list of names, or a list of (name, value) pairs."""
    if type(names) is str:
        listed = names.replace(",", " ").split()
        checked: Any = names
    elif names is None:
        return names
    else:
        items = [(key, names[key]) for key in list(names)] if hasattr(names, "keys") else None
        items = items if items is not None else list(names)
        if all(type(item) is str for item in items):
            listed, checked = items, items
        else:
            checked = [(name, value) for name, value in items]
            listed = [name for name, _ in checked]
            # a function (any descriptor) given as a value becomes a method named by data (a
            # red team's `format`, `isidentifier` on a `str` mixin), not a member
            for name, value in checked:
                if any("__get__" in vars(kind) for kind in type(value).__mro__):
                    raise ValueError(f"an Enum member's value cannot be a method ({name!r})")
    for name in listed:
        if not _plain_name(name):
            raise ValueError(f"an Enum member cannot be named {name!r}")
    return checked


def _owns_dict(made: Any) -> bool:
    """`made.__dict__`, where `copy` writes a state, is the object's own (or it has none)."""
    try:
        own = object.__getattribute__(made, "__dict__")
    except AttributeError:
        own = None
    return getattr(made, "__dict__", None) is own


def _set_state(made: Any, state: Any) -> None:
    """What `copy` does with the state of an object without `__setstate__`: set attributes by
    its keys. Only from a plain dict (or a pair of them: the `__dict__`'s, the slots'), of plain
    names: any other mapping or pairs (a red team's list of pairs went into `__dict__.update`
    unchecked), or a special name, is refused; and only through the object's own `__dict__`
    (a generic alias hands on the `__dict__` of what it wraps: a red team rebuilt one over a
    module and wrote into its globals past the seal)."""
    attributes, slots = state if type(state) is tuple and len(state) == 2 else (state, None)
    if any(part is not None and type(part) is not dict for part in (attributes, slots)):
        raise TypeError("copy takes an object's attributes as a plain dict only")
    # copies (no code of the program's runs in `dict()` of a dict): what is checked is what
    # is set, whatever runs between the two
    attributes, slots = (None if part is None else dict(part) for part in (attributes, slots))
    for key in (*(attributes or ()), *(slots or ())):
        if not _plain_name(key):
            raise ValueError(f"copy does not set an attribute named {key!r}")
    if attributes is not None:
        if not _owns_dict(made):
            raise TypeError("copy sets no state through another object's attributes")
        made.__dict__.update(attributes)
    for key, value in (slots or {}).items():
        setattr(made, key, value)


def _check_fields(cls: Any, field_types: tuple, kinds: tuple) -> None:
    """The fields a class holds (if any) are real fields with identifiers for names."""
    fields = getattr(cls, "__dataclass_fields__", None)
    if fields is None:
        return
    if type(fields) is not dict:
        raise TypeError(f"{cls.__name__} holds dataclass fields that are not a dict")
    for field in fields.values():
        if type(field) not in field_types or not any(field._field_type is k for k in kinds):
            raise TypeError(f"{cls.__name__} holds something else than a dataclass field")
        if not _plain_name(field.name):
            raise TypeError(f"a dataclass field cannot be named {field.name!r}")


def _check_dataclass(cls: Any, field_types: tuple, kinds: tuple) -> None:
    """Every field `dataclass` will read for `cls` (its bases' too) and every annotation of it
    carries an identifier for a name, on a real field."""
    for base in cls.__mro__[-1:0:-1]:
        _check_fields(base, field_types, kinds)
    annotations = cls.__dict__.get("__annotations__", {})
    if type(annotations) is not dict:
        raise TypeError("a dataclass's annotations must be a dict")
    # no special name either: a field named `__deepcopy__` put the program's function in each
    # instance's dict, where `deepcopy` looks for its hook (a red team's, from a TypedDict's
    # annotations copied onto a class by `wraps`)
    for name in annotations:
        if not _plain_name(name):
            raise TypeError(f"a dataclass field cannot be named {name!r}")


def _name_checked(
    attrgetter: Callable[..., Any],
    methodcaller: Callable[..., Any],
    refusal: Callable[[str], tuple[str, str] | None],
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """`operator.attrgetter` and `methodcaller` that check each name they are given, every
    part of a dotted one, by the policy's one rule for names to read (`refusal`), and hand
    out a plain function. The policy lets the code call them only with a literal name it
    checks; at run time the name is checked again, whatever reached them: each of the day's
    red teams that got `type` into the code went on with `type(attrgetter("real"))`, the C
    class, which then read any attribute by a name built at run time. Now `type` of what they
    hand out is a plain function's."""

    def checked(names: tuple[Any, ...]) -> None:
        for name in names:
            if type(name) is not str:
                raise TypeError("attribute name must be a string")
            for part in name.split("."):
                refused = refusal(part)
                if refused is not None:
                    raise AttributeError(f"reading .{part} by a name held as data: {refused[1]}")

    def guarded_attrgetter(attr: Any, /, *attrs: Any) -> Callable[[Any], Any]:
        names = (attr, *attrs)
        checked(names)
        get = attrgetter(*names)

        def getter(obj: Any, /) -> Any:
            return get(obj)

        return getter

    def guarded_methodcaller(name: Any, /, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        checked((name,))
        call = methodcaller(name, *args, **kwargs)

        def caller(obj: Any, /) -> Any:
            return call(obj)

        return caller

    return guarded_attrgetter, guarded_methodcaller


def install(
    functions: tuple[type, ...] = (),
    attribute_refusal: Callable[[str], tuple[str, str] | None] | None = None,
) -> None:
    """Replace them in their modules (this process and the children it forks). `functions`:
    more kinds of function `update_wrapper` may copy from (NumPy's: `numpy.ma`, which NumPy
    imports on first use, wraps NumPy's functions as it loads). `attribute_refusal`: the
    policy's rule for names to read (`policy.attribute_refusal`), which `attrgetter` and
    `methodcaller` then apply at run time too."""
    if attribute_refusal is not None:
        operator.attrgetter, operator.methodcaller = _name_checked(
            operator.attrgetter, operator.methodcaller, attribute_refusal
        )
    update_wrapper = functools.update_wrapper
    wrapped_kinds = _WRAPPED + tuple(functions)
    assignments, updates = functools.WRAPPER_ASSIGNMENTS, functools.WRAPPER_UPDATES

    def guarded_update_wrapper(wrapper: Any, wrapped: Any, *args: Any, **kwargs: Any) -> Any:
        # Onto functions only (a class as the wrapper had its `__annotations__` rewritten, a
        # typing alias its `__origin__`); from the kinds `_wraps_from` takes, never from what
        # hands on a module's or a class's namespace (`dict[int]`, a generic alias, hands on
        # its class's `__dict__`: a red team's).
        if not any(type(wrapper) is kind for kind in _WRAPPERS):
            raise TypeError(f"update_wrapper does not update a {type(wrapper).__name__}")
        if _namespace(wrapped) or not _wraps_from(wrapper, wrapped, wrapped_kinds):
            raise TypeError(f"update_wrapper does not wrap a {type(wrapped).__name__}")
        # only the attributes it copies by default (or some of them): names given as data
        # (`wraps(f, (), ("__globals__",))`) would be a getattr by a computed name. Each list
        # is read once, here, and only what was checked goes on: an iterable of the
        # program's answered the check with `__dict__` and `update_wrapper` with `__globals__`
        # (a red team's)
        if len(args) > 2 or set(kwargs) - {"assigned", "updated"}:
            raise TypeError("update_wrapper takes a wrapper, a function and two name lists")
        named = dict(zip(("assigned", "updated"), args, strict=False)) | kwargs
        checked = {}
        for key, allowed in (("assigned", assignments), ("updated", updates)):
            if key in named:
                names = tuple(named[key])
                if not all(type(n) is str and n in allowed for n in names):
                    raise TypeError(f"update_wrapper copies only its own default {key} attributes")
                checked[key] = names
        return update_wrapper(wrapper, wrapped, **checked)

    functools.update_wrapper = guarded_update_wrapper  # what `wraps` and `lru_cache` call
    field_types = (dataclasses.Field, _Field)  # the stdlib's own fields are made before this
    dataclasses.Field = _Field  # what `field()` and `dataclass` make and look for
    functools.cached_property = _CachedProperty

    create = enum.EnumType._create_

    def guarded_create(cls: Any, class_name: Any, names: Any, *args: Any, **kwargs: Any) -> Any:
        # `type=` makes any class the new class's base (`str`, `BaseException`), which no
        # class statement of the program may name (a red team's, through a name the policy
        # could not resolve); no other argument is positional
        if args or kwargs.get("type") is not None:
            raise TypeError("the Enum functional API takes no type= base here")
        return create(cls, class_name, _enum_members(names), **kwargs)

    enum.EnumType._create_ = guarded_create

    def guarded_reconstruct(
        x: Any,
        memo: Any,
        func: Any,
        args: Any,
        state: Any = None,
        listiter: Any = None,
        dictiter: Any = None,
        **_: Any,
    ) -> Any:
        # `copy._reconstruct` (Python 3.11's, step for step), each step checked on what it is
        # given last: a deep copy copies the reduce tuple's arguments and state with the memo,
        # where a hook of the program's could swap any part of them after an earlier check (a
        # red team's, for an attribute name in a state).
        if not _rebuilder(func):
            raise TypeError(f"copy does not rebuild an object through {type(func).__name__}")
        deep = memo is not None
        copier = copy.deepcopy  # the guarded one
        args = tuple(args)
        values = tuple(copier(arg, memo) for arg in args) if deep else args
        # a deep copy keeps text and numbers as they are: one that came back as another
        # object was swapped through the memo (an attribute name in an `attrgetter`'s
        # reduce tuple, by a hook that got the memo: a red team's)
        if any(
            type(old) in _ATOMIC and new is not old for old, new in zip(args, values, strict=True)
        ):
            raise TypeError("copy does not rebuild from arguments other than its own")
        made = func(*values)
        # a copy is a new object: a module's or a class's attributes are its globals and
        # namespace, which a reduce state could otherwise rewrite (`dataclasses._FIELDS`)
        if isinstance(made, _NOT_WRAPPABLE):
            raise TypeError(f"copy does not rebuild onto a {type(made).__name__}")
        if deep:
            memo[id(x)] = made
        if state is not None:
            if deep:
                state = copier(state, memo)
            if hasattr(made, "__setstate__"):
                made.__setstate__(state)
            else:
                _set_state(made, state)
        if listiter is not None:
            for item in listiter:
                made.append(copier(item, memo) if deep else item)
        if dictiter is not None:
            for key, value in dictiter:
                if deep:
                    key, value = copier(key, memo), copier(value, memo)
                made[key] = value
        return made

    copy._reconstruct = guarded_reconstruct  # what `copy` and `deepcopy` call, by its name

    deepcopy = copy.deepcopy
    memos: list[dict] = []  # the memo of each deep copy in progress, innermost last

    def guarded_deepcopy(x: Any, memo: Any = None, _nil: Any = None) -> Any:
        # A memo maps an object's id to what a deep copy puts in its place, anywhere in what
        # it rebuilds, a reduce tuple's arguments included: a program's own memo made
        # `deepcopy(attrgetter("real"), {id("real"): name})` a getattr by a computed name (a
        # fourth red team's). So a deep copy always starts with a fresh memo, and a call
        # within one may pass only that copy's own (as `copy` and `__deepcopy__` methods do).
        if memo is None or not memos:
            if memo is not None and (type(memo) is not dict or memo):
                raise TypeError("deepcopy takes no memo but the one of the copy in progress")
            memos.append({})
            try:
                return deepcopy(x, memos[-1])
            finally:
                memos.pop()
        if memo is not memos[-1]:
            raise TypeError("deepcopy takes no memo but the one of the copy in progress")
        return deepcopy(x, memo)

    copy.deepcopy = guarded_deepcopy  # also what `copy` itself and `__deepcopy__` methods call

    process_class = dataclasses._process_class
    kinds = (dataclasses._FIELD, dataclasses._FIELD_CLASSVAR, dataclasses._FIELD_INITVAR)

    def guarded_process_class(cls: Any, *args: Any, **kwargs: Any) -> Any:
        _check_dataclass(cls, field_types, kinds)
        return process_class(cls, *args, **kwargs)

    dataclasses._process_class = guarded_process_class  # what `dataclass` calls, by its name

    # `replace`, `asdict` and `astuple` read each field's attribute by its name from an object
    # whose class merely has `__dataclass_fields__`: a red team gave a class of a metaclass of
    # its own fake fields named `__getattribute__` (`correct` on 54 of 64 dev tasks, with `type`
    # from a policy hole). They take instances of real dataclasses only, and so does what
    # `asdict` and `astuple` recurse into, by name (a real dataclass's field may hold an object
    # whose class claims fake fields).
    metaclasses = (type, abc.ABCMeta)  # a class of the program's own metaclass is refused

    def check_instance(obj: Any, what: str) -> None:
        if isinstance(obj, type) or not any(type(type(obj)) is m for m in metaclasses):
            raise TypeError(f"{what} takes an instance of a dataclass")
        for cls in type(obj).__mro__:
            _check_fields(cls, field_types, kinds)

    def instance_checked(function: Callable[..., Any]) -> Callable[..., Any]:
        def checked(obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            check_instance(obj, f"{function.__name__}()")
            return function(obj, *args, **kwargs)

        checked.__name__ = function.__name__
        return checked

    def inner_checked(inner: Callable[..., Any]) -> Callable[..., Any]:
        def checked(obj: Any, factory: Any) -> Any:
            if dataclasses._is_dataclass_instance(obj):
                check_instance(obj, "asdict() and astuple()")
            return inner(obj, factory)

        return checked

    for name in ("replace", "asdict", "astuple"):
        setattr(dataclasses, name, instance_checked(getattr(dataclasses, name)))
    for name in ("_asdict_inner", "_astuple_inner"):
        setattr(dataclasses, name, inner_checked(getattr(dataclasses, name)))

    # `statistics` converts its result to the common type of the data, `T(value)`, with `T`
    # derived from `type(item)` and `value` from the program's own arithmetic: with a class
    # among the data, `T` is a metaclass and the result `type(value)`, a class factory
    # (`abc.ABCMeta` from an ABC class; a red team's, NQ: `mean`, `harmonic_mean`, `variance`
    # then gave what `type` gives). Numbers convert to number types only.
    convert = statistics._convert

    def guarded_convert(value: Any, kind: Any) -> Any:
        if isinstance(kind, type) and issubclass(kind, type):
            raise TypeError("statistics converts to the data's number type, not to a metaclass")
        return convert(value, kind)

    statistics._convert = guarded_convert  # what `mean`, `variance`, ... call, by its name


def _stand_in(module: types.ModuleType, name: str, safe: Any, doc: str | None = None) -> None:
    """Name `safe` as `module.name`, under that name and module, where the program finds it."""
    safe.__module__, safe.__name__, safe.__qualname__ = module.__name__, name, name
    if doc is not None:
        safe.__doc__ = doc
    setattr(module, name, safe)


def safe_containers() -> None:
    """Name, in `collections` and `typing`, subclasses of the C `OrderedDict` and `deque` whose
    equality and `index` never run the C ones (see the module's docstring); everything else is
    the C types'. Idempotent."""
    if getattr(collections.OrderedDict, "_sebench_safe", False):
        return
    ordered_base, deque_base, dict_equal = collections.OrderedDict, collections.deque, dict.__eq__

    class OrderedDict(ordered_base):  # type: ignore[misc,valid-type]
        __slots__ = ()
        _sebench_safe = True

        def __eq__(self, other: object) -> bool:
            equal = dict_equal(self, other)
            if equal is not True or not isinstance(other, ordered_base):
                return equal
            return list(self) == list(other)

        def __ne__(self, other: object) -> bool:
            equal = self.__eq__(other)
            return equal if equal is NotImplemented else not equal

        __hash__ = None  # type: ignore[assignment]  # as the C type's: a dict is unhashable

    class deque(deque_base):  # type: ignore[misc,valid-type]  # noqa: N801 - the C type's name
        __slots__ = ()
        _sebench_safe = True

        def index(self, value: Any, start: int = 0, stop: int = sys.maxsize, /) -> int:
            try:
                return list(self).index(value, start, stop)
            except ValueError:
                raise ValueError(f"{value!r} is not in deque") from None

    _stand_in(collections, "OrderedDict", OrderedDict, ordered_base.__doc__)
    _stand_in(collections, "deque", deque, deque_base.__doc__)
    typing.OrderedDict = typing._alias(OrderedDict, 2)  # type: ignore[attr-defined]
    typing.Deque = typing._alias(deque, 1, name="Deque")  # type: ignore[attr-defined]  # noqa: UP006


_NOTHING = object()  # a `groupby` slot that holds no key or value (NULL in the C one)


def _same(a: Any, b: Any) -> bool:
    # as `PyObject_RichCompareBool(a, b, Py_EQ)`: identity first (a NaN key equals itself)
    return a is b or bool(a == b)


def _is_number(value: Any) -> bool:
    # as `PyNumber_Check`, which the C `count` asks of its start and step
    kind = type(value)
    return isinstance(value, complex) or any(
        hasattr(kind, name) for name in ("__index__", "__int__", "__float__")
    )


class _Count:
    """`itertools.count`, in Python (see the module's docstring)."""

    __slots__ = ("_next", "_step")

    def __init__(self, start: Any = 0, step: Any = 1) -> None:
        if not (_is_number(start) and _is_number(step)):
            raise TypeError("a number is required")
        self._next, self._step = start, step

    def __iter__(self) -> _Count:
        return self

    def __next__(self) -> Any:
        value = self._next
        self._next = value + self._step
        return value

    def __repr__(self) -> str:
        if type(self._step) is int and self._step == 1:
            return f"count({self._next!r})"
        return f"count({self._next!r}, {self._step!r})"


def _accumulate(iterable: Any, func: Any = None, *, initial: Any = None) -> Any:
    """`itertools.accumulate`, in Python (see the module's docstring)."""
    return _accumulated(iter(iterable), func, initial)  # not iterable: raises here, as the C one


def _accumulated(it: Any, func: Any, initial: Any) -> Any:
    total = initial
    if initial is None:
        for total in it:  # noqa: B007 - the first item is the first total
            break
        else:
            return
    yield total
    for element in it:
        total = total + element if func is None else func(total, element)
        yield total


class _GroupBy:
    """`itertools.groupby`, in Python, step for step as the C one (see the module's docstring):
    a group ends when the groupby moves on; keys are compared target first."""

    __slots__ = ("_it", "_keyfunc", "_tgtkey", "_currkey", "_currvalue", "_current")

    def __init__(self, iterable: Any, key: Any = None) -> None:
        self._it, self._keyfunc = iter(iterable), key
        self._tgtkey = self._currkey = self._currvalue = _NOTHING
        self._current: object | None = None

    def __iter__(self) -> _GroupBy:
        return self

    def _step(self) -> None:
        value = next(self._it)
        self._currkey = value if self._keyfunc is None else self._keyfunc(value)
        self._currvalue = value

    def __next__(self) -> tuple[Any, Any]:
        self._current = None
        while True:
            if self._currkey is not _NOTHING and (
                self._tgtkey is _NOTHING or not _same(self._tgtkey, self._currkey)
            ):
                break
            self._step()
        self._tgtkey = key = self._currkey
        marker = self._current = object()
        return key, self._grouper(key, marker)

    def _grouper(self, tgtkey: Any, marker: object) -> Any:
        while self._current is marker:
            if self._currvalue is _NOTHING:
                try:
                    self._step()
                except StopIteration:
                    return
            if not _same(tgtkey, self._currkey):
                return
            value = self._currvalue
            self._currvalue = self._currkey = _NOTHING
            yield value


def _chain(*iterables: Any) -> Any:
    """`itertools.chain`, in Python (see the module's docstring)."""
    return _chained(iter(iterables))


def _chained(source: Any) -> Any:
    for iterable in source:
        yield from iterable


_chain.from_iterable = lambda iterables: _chained(iter(iterables))  # type: ignore[attr-defined]


def _slice_index(value: Any, message: str) -> int | None:
    # as the C `islice` reads its start, stop and step: None, or an int in 0..sys.maxsize
    if value is None:
        return None
    try:
        value = operator.index(value)
    except TypeError:
        raise ValueError(message) from None
    if not 0 <= value <= sys.maxsize:
        raise ValueError(message)
    return value


def _islice(iterable: Any, *args: Any) -> Any:
    """`itertools.islice`, in Python (see the module's docstring)."""
    if not 1 <= len(args) <= 3:
        raise TypeError(f"islice expected 2 to 4 arguments, got {len(args) + 1}")
    bounds = slice(*args)
    stop = _slice_index(
        bounds.stop, "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    )
    start = _slice_index(
        bounds.start, "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    )
    step = _slice_index(bounds.step, "Step for islice() must be a positive integer or None.")
    if step == 0:
        raise ValueError("Step for islice() must be a positive integer or None.")
    return _isliced(iter(iterable), start or 0, stop, step or 1)


def _isliced(it: Any, start: int, stop: int | None, step: int) -> Any:
    # step for step as the C one: it consumes what it skips, up to `stop`, and no further
    count, target = 0, start
    while True:
        while count < target:
            for _ in it:
                break
            else:
                return
            count += 1
        if stop is not None and count >= stop:
            return
        for value in it:  # noqa: B007 - the next item, if any
            break
        else:
            return
        count += 1
        target += step
        if stop is not None and target > stop:
            target = stop
        yield value


def _cycle(iterable: Any) -> Any:
    """`itertools.cycle`, in Python (see the module's docstring)."""
    return _cycled(iter(iterable))


def _cycled(it: Any) -> Any:
    saved = []
    for element in it:
        yield element
        saved.append(element)
    while saved:
        yield from saved


def _zip_longest(*iterables: Any, fillvalue: Any = None) -> Any:
    """`itertools.zip_longest`, in Python (see the module's docstring)."""
    return _zipped_longest([iter(each) for each in iterables], fillvalue)


def _zipped_longest(iterators: list, fillvalue: Any) -> Any:
    active = len(iterators)
    if not active:
        return
    done = [False] * active
    while True:
        values = []
        for index, it in enumerate(iterators):
            value = fillvalue
            if not done[index]:
                for value in it:  # noqa: B007 - the next item, if any
                    break
                else:
                    done[index], value = True, fillvalue
                    active -= 1
                    if not active:
                        return
            values.append(value)
        yield tuple(values)


def _pairwise(iterable: Any) -> Any:
    """`itertools.pairwise`, in Python (see the module's docstring)."""
    return _paired(iter(iterable))


def _paired(it: Any) -> Any:
    for first in it:  # noqa: B007 - the first item, if any
        break
    else:
        return
    for second in it:
        yield first, second
        first = second


def _iter(obj: Any, *sentinel: Any) -> Any:
    """`iter`, whose two-argument form is Python (see the module's docstring)."""
    if not sentinel:
        return _builtin_iter(obj)
    if len(sentinel) > 1:
        raise TypeError(f"iter expected at most 2 arguments, got {len(sentinel) + 1}")
    if not callable(obj):
        raise TypeError("iter(v, w): v must be callable")
    return _called_until(obj, sentinel[0])


def _called_until(function: Any, sentinel: Any) -> Any:
    while True:
        try:
            value = function()
        except StopIteration:  # ends the iteration, as in the C one
            return
        if _same(sentinel, value):
            return
        yield value


_builtin_iter = builtins.iter


def safe_holders() -> None:
    """Name the Python holders above in `builtins` (`iter`), `itertools` and `collections`
    (`defaultdict`, whose `__missing__` holds its factory while it calls it); see the module's
    docstring. Idempotent."""
    if getattr(collections.defaultdict, "_sebench_safe", False):
        return
    base = collections.defaultdict

    class defaultdict(base):  # type: ignore[misc,valid-type]  # noqa: N801 - the C type's name
        __slots__ = ()
        _sebench_safe = True

        def __missing__(self, key: Any) -> Any:
            factory = self.default_factory  # held here while it runs
            if factory is None:
                raise KeyError(key)
            value = factory()
            self[key] = value
            return value

    _stand_in(collections, "defaultdict", defaultdict, base.__doc__)
    typing.DefaultDict = typing._alias(defaultdict, 2, name="DefaultDict")  # type: ignore[attr-defined]  # noqa: UP006
    for name, safe in (
        ("chain", _chain),
        ("islice", _islice),
        ("cycle", _cycle),
        ("zip_longest", _zip_longest),
        ("pairwise", _pairwise),
    ):
        _stand_in(itertools, name, safe)
    _stand_in(builtins, "iter", _iter)


def safe_itertools() -> None:
    """Name `count`, `accumulate` and `groupby` in `itertools` as the Python translations above
    (see the module's docstring). Idempotent."""
    for name, safe in (("count", _Count), ("accumulate", _accumulate), ("groupby", _GroupBy)):
        _stand_in(itertools, name, safe)


def pin_abc_answers(secret: Callable[[str], bool]) -> int:
    """What an ABC answers about a class whose objects only trusted code holds (NumPy's, the
    library's: `secret` names their modules) is fixed before any program exists. NumPy checks
    its raw objects against ABCs (`isinstance(raw, numbers.Number)` in `isscalar`, inside
    `logspace`, `linspace`, `geomspace`, `piecewise`), and the ABC machinery asks every
    subclass's hook, every subclass's metaclass and every registered class: a program's hook
    (or metaclass `__subclasscheck__`, or registered class of a metaclass with `__eq__`) was
    handed the raw ndarray class (red teams NM, NN, NQ, each once it had `type` or a
    metaclass; then raw arrays and any memory of the child). Now every ABC that exists in the
    server answers for those classes from a table made here, and asks no one. Returns how
    many classes were pinned."""
    meta, module_of = abc.ABCMeta, type.__dict__["__module__"].__get__
    everything = _every_class()  # static types too (NumPy's ndarray), which `gc` does not list
    classes = [cls for cls in everything if secret(str(module_of(cls)))]
    abcs = [cls for cls in everything if isinstance(cls, meta)]
    pinned = frozenset(map(id, classes))
    known = frozenset(map(id, abcs))
    subclass_check, instance_check = meta.__subclasscheck__, meta.__instancecheck__
    yes = frozenset(
        (id(a), id(c)) for a in abcs for c in classes if _is_subclass(subclass_check, a, c)
    )
    type_ = type

    def __subclasscheck__(cls: Any, subclass: Any) -> bool:  # noqa: N807 - the slot's name
        if id(subclass) in pinned and id(cls) in known:
            return (id(cls), id(subclass)) in yes
        return subclass_check(cls, subclass)

    def __instancecheck__(cls: Any, instance: Any) -> bool:  # noqa: N807
        kind = type_(instance)
        if id(kind) in pinned and id(cls) in known:
            return (id(cls), id(kind)) in yes
        return instance_check(cls, instance)

    __subclasscheck__.__qualname__ = "ABCMeta.__subclasscheck__"
    __instancecheck__.__qualname__ = "ABCMeta.__instancecheck__"
    meta.__subclasscheck__ = __subclasscheck__
    meta.__instancecheck__ = __instancecheck__
    return len(classes)


def _every_class() -> list[type]:
    """Every class that exists now: `object` and its subclasses, at every depth."""
    found, seen, todo = [], set(), [object]
    while todo:
        cls = todo.pop()
        if id(cls) not in seen:
            seen.add(id(cls))
            found.append(cls)
            todo.extend(type.__subclasses__(cls))
    return found


def _is_subclass(check: Callable[[Any, Any], bool], cls: type, subclass: type) -> bool:
    try:
        return bool(check(cls, subclass))
    except Exception:  # an ABC whose hook fails on a class it was never meant to see
        return False


# The first parameter's name of a method: a function in a class body whose first parameter is
# named otherwise, and whose name is not a special one (`__add__`), is called as a plain
# function by its own module (3.11's `Enum._generate_next_value_(name, start, count,
# last_values)`), and stays as it is.
_SELF_NAMES = frozenset({"self", "cls", "mcls", "metacls"})


def own_instances_only(modules: Callable[[str], bool]) -> int:
    """Make every method of every class that exists now, defined in a module `modules` names
    (by the name in its `__module__`), take instances of its class only (its subclasses'
    included, not its virtual ones): the methods in its body and its properties' getters,
    setters and deleters. Python checks this for methods written in C, not for those written
    in Python, and those build `self.__class__(...)` or `type(self)(...)`, so that one called
    through its class with a class for `self` hands out `type` itself, which the policy
    refuses by name: `collections.Counter.copy(int)` (a red team's, NM), then
    `collections.UserString.capitalize(C)` with `C.data.capitalize()` a class (NN), 18 more
    `UserString` methods, `ChainMap.new_child`, the `ChainMap.parents` getter, ... From
    `type`: a class with any special method named at run time, an ABC subclass hook NumPy
    called with its raw ndarray class, any memory of the child, the library's mapping. Every
    method of the family at once, whatever else it does with `self`. Returns how many
    functions were wrapped."""
    wrapped = 0
    for value in _every_class():
        flags = type.__dict__["__flags__"].__get__(value)
        module = value.__dict__.get("__module__")
        if not flags & _HEAP_TYPE or type(module) is not str or not modules(module):
            continue
        for name, member in list(value.__dict__.items()):
            if name == "__new__":  # takes a class, under whatever name it was written
                continue
            replaced = _checked_member(member, value)
            if replaced is not member:
                type.__setattr__(value, name, replaced)
                wrapped += 1
    return wrapped


def _checked_member(member: Any, owner: type) -> Any:
    """`member` (a value in `owner`'s body) made to take `owner`'s instances only: itself when
    it takes none (not a method, or checked already)."""
    if type(member) is types.FunctionType:
        return _checked_method(member, owner)
    if type(member) is property:
        accessors = (member.fget, member.fset, member.fdel)
        checked = [
            _checked_method(f, owner) if type(f) is types.FunctionType else f for f in accessors
        ]
        if any(new is not old for new, old in zip(checked, accessors, strict=True)):
            return property(*checked, member.__doc__)
    return member


def _checked_method(function: types.FunctionType, owner: type) -> Any:
    code = function.__code__  # a wrapper made here takes `*args`: it is not wrapped twice
    name = function.__name__
    special = name.startswith("__") and name.endswith("__")  # `Fraction`'s `__add__(a, b)`
    if code.co_argcount == 0 or not (special or code.co_varnames[0] in _SELF_NAMES):
        return function
    if name == "__new__":  # takes a class (`EnumType` sets `Enum.__new__` so)
        return function
    is_subclass, type_ = type.__subclasscheck__, type  # the MRO only: no ABC hook asked

    def method(*args: Any, **kwargs: Any) -> Any:
        if not args or not is_subclass(owner, type_(args[0])):
            raise TypeError(
                f"{owner.__name__}.{function.__name__}() takes a {owner.__name__} first"
            )
        return function(*args, **kwargs)

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(method, name, getattr(function, name))
    method.__dict__.update(function.__dict__)  # `__isabstractmethod__`, `__final__`, ...
    return method


# What the standard library writes on a module of its own at run time: `warnings.catch_warnings`
# swaps the module's filters and its display hooks, and puts them back.
_MODULE_WRITES = {"warnings": frozenset({"filters", "showwarning", "_showwarnmsg_impl"})}


def _sealed_module_type(audit: Callable[..., None], base: type) -> type:
    """The class of a sealed module of the class `base`: a write to it (but the two kinds
    below) raises the audit event `MODULE_WRITE`, which the grader's hook refuses once the
    graded program runs (audit.py); the harness's own writes in a child before that (its clock)
    pass."""
    module_type = types.ModuleType
    module_setattr, module_delattr = base.__setattr__, base.__delattr__
    str_, type_, writes = str, type, _MODULE_WRITES

    def module_write(module: types.ModuleType, name: object) -> bool:
        return type_(name) is str_ and name in writes.get(module.__name__, ())

    class SealedModule(base):  # type: ignore[valid-type, misc]
        """A module whose names, once the graded program runs, only its own code rebinds (its
        functions write their globals, not attributes), with the import system, which binds
        a submodule on its package, and `warnings`, which swaps its filters. The policy
        refuses every module held as a value and every `module.name = ...`; this holds below
        it, whatever way a program might find to hold a module (a red team's `m =
        collections; m.type = ...` made `namedtuple` eval text of the program's)."""

        __slots__ = ()

        def __setattr__(self, name: str, value: Any) -> None:
            # a program makes no modules: a module named `package.name` is the import
            # system's, binding a submodule on its package
            # (exact types: `isinstance` would ask the object's own `__class__`)
            kind = type_(value)
            submodule = (kind is module_type or kind is base or kind is SealedModule) and (
                type_(name) is str_ and value.__name__ == f"{self.__name__}.{name}"
            )
            if not (submodule or module_write(self, name)):
                audit(MODULE_WRITE, self.__name__, name)
            module_setattr(self, name, value)

        def __delattr__(self, name: str) -> None:
            if not module_write(self, name):
                audit(MODULE_WRITE, self.__name__, name)
            module_delattr(self, name)

    SealedModule.__name__ = SealedModule.__qualname__ = base.__name__
    return SealedModule


def seal_modules(modules: dict[str, Any], skip: tuple[str, ...] = ()) -> None:
    """Seal every module imported so far whose class has no `__setattr__` of its own (the
    library's package and submodule included; not `sys`: no program reaches the real one, and
    the standard library rebinds its streams; nor the packages `skip` names, with their
    submodules); installed last in the fork server, after every other guard has set what it
    replaces."""
    import sys

    sealed: dict[type, type] = {}
    for name, module in list(modules.items()):
        kind = type(module)
        if (
            name == "sys"
            or name.split(".")[0] in skip
            or not isinstance(module, types.ModuleType)
            or kind.__setattr__ is not types.ModuleType.__setattr__
            or kind.__delattr__ is not types.ModuleType.__delattr__
        ):
            continue
        if kind not in sealed:
            sealed[kind] = _sealed_module_type(sys.audit, kind)
        module.__class__ = sealed[kind]


# CPython's Py_TPFLAGS_HEAPTYPE and _IMMUTABLETYPE
_HEAP_TYPE, _IMMUTABLE_TYPE = 1 << 9, 1 << 8


def _flags_offset() -> int | None:
    """Where a type object holds its flags (`tp_flags`), found by looking rather than assumed:
    the one offset at which four types of different flags each hold their `__flags__`."""
    import ctypes

    class Probe:
        pass

    probes = (int, type, Probe, dict)
    for offset in range(ctypes.sizeof(ctypes.c_void_p), 512, ctypes.sizeof(ctypes.c_ulong)):
        if all(ctypes.c_ulong.from_address(id(t) + offset).value == t.__flags__ for t in probes):
            return offset
    return None


def freeze_classes(keep: tuple[type, ...] = ()) -> int:
    """Make every class that exists now as unchangeable as a builtin type (CPython's immutable
    type flag, which `type.__setattr__` checks): the standard library's, NumPy's and the
    library's, however the program came to hold one. The policy refuses `module.Class.x = ...`
    but not a class held under a name of the program's (`c = collections.Counter`, `[json.
    JSONDecoder][0]`), and a typing alias writes each attribute set on it to its class
    (`typing.Counter[int].most_common = f`: a red team's, 2026-12-03). Classes made later (the
    program's own, their subclasses included) stay as Python makes them; `keep` too (what the
    harness sets in each child: its seeded `random`). Returns how many were frozen; 0 where
    the flags cannot be found (then the policy's `import-write` alone holds)."""
    import ctypes

    offset = _flags_offset()
    if offset is None:
        return 0
    frozen = 0
    for value in _every_class():
        if any(value is kept for kept in keep):
            continue
        flags = type.__dict__["__flags__"].__get__(value)
        if flags & _HEAP_TYPE and not flags & _IMMUTABLE_TYPE:
            ctypes.c_ulong.from_address(id(value) + offset).value = flags | _IMMUTABLE_TYPE
            frozen += 1
    return frozen
