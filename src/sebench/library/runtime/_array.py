"""The array type and the wrapping of library functions, built around NumPy without exposing it.

Everything is created inside `build()`, so this module's globals (what `__globals__` of every
method and function leads to) hold no NumPy, no raw array and no name table. The raw array lives
in a slot whose descriptor is removed from the class and kept only in this closure: no attribute
of an array hands it back (`__array__`, which NumPy's protocol requires, returns a copy-or-view
by design and is refused by the grader's static policy instead).
"""

import builtins
from collections import namedtuple
from types import FunctionType

_ALLOWED = ("shape", "dtype", "size", "ndim", "T")


def build(np, package, record):
    """(ZWCArray, wrap, unwrap, make_function) for the package `package`.

    `record(is_constructor)` is called once per library function call (the grader's counters).
    """
    ndarray = np.ndarray
    generic = np.generic
    asarray = np.asarray
    np_array = np.array
    vectorize_type = np.vectorize
    hint = (
        "ZWCArray supports only shape, dtype, size, ndim, T, indexing, len(), iteration and "
        f"the operators + - * / ** == != < <= > >=; use the functions of `{package}` instead"
    )
    mirrored = {}  # NumPy's namedtuple result types -> look-alikes that live in the package

    class ZWCArray:
        """An n-dimensional array of the library; work on it with the library's functions."""

        __slots__ = ("_zwc_data",)
        # NumPy operators and ufuncs defer to ours (so `numpy_scalar * arr` stays a ZWCArray)
        __array_ufunc__ = None
        __hash__ = None

        def __init__(self, data):
            _set(self, asarray(unwrap(data)))

        def __getattr__(self, name):
            raise AttributeError(f"'ZWCArray' object has no attribute '{name}'. {hint}")

        def __dir__(self):
            return list(_ALLOWED)

        @property
        def shape(self):
            return _get(self).shape

        @property
        def dtype(self):
            return _get(self).dtype

        @property
        def size(self):
            return _get(self).size

        @property
        def ndim(self):
            return _get(self).ndim

        @property
        def T(self):  # noqa: N802 - NumPy's name
            return _wrap_array(_get(self).T)

        def __array__(self, dtype=None, copy=None):
            if copy:
                return np_array(_get(self), dtype=dtype, copy=True)
            return asarray(_get(self), dtype=dtype)

        def __str__(self):
            return str(_get(self))

        def __repr__(self):
            return f"ZWCArray({_get(self).tolist()!r})"

        def __len__(self):
            return len(_get(self))

        def __iter__(self):
            data = _get(self)
            if data.ndim == 0:
                raise TypeError("iteration over a 0-d array")
            if data.ndim == 1:
                return iter(data.tolist())
            # a list, not a generator: a generator's public `gi_frame` would show the raw array
            return iter([_wrap_array(row) for row in data])

        def __getitem__(self, key):
            return _element(_get(self)[unwrap(key)])

        def __setitem__(self, key, value):
            _get(self)[unwrap(key)] = unwrap(value)

        def __contains__(self, value):
            return bool((_get(self) == unwrap(value)).any())

        def __bool__(self):
            return bool(_get(self))

        def __copy__(self):
            return _wrap_array(_get(self).copy())

        def __deepcopy__(self, memo):
            return _wrap_array(_get(self).copy())

        def __reduce__(self):
            return (type(self), (_get(self).tolist(),))

        def __add__(self, other):
            return wrap(_get(self) + unwrap(other))

        def __radd__(self, other):
            return wrap(unwrap(other) + _get(self))

        def __sub__(self, other):
            return wrap(_get(self) - unwrap(other))

        def __rsub__(self, other):
            return wrap(unwrap(other) - _get(self))

        def __mul__(self, other):
            return wrap(_get(self) * unwrap(other))

        def __rmul__(self, other):
            return wrap(unwrap(other) * _get(self))

        def __truediv__(self, other):
            return wrap(_get(self) / unwrap(other))

        def __rtruediv__(self, other):
            return wrap(unwrap(other) / _get(self))

        def __pow__(self, other, modulo=None):
            return wrap(_get(self) ** unwrap(other))

        def __rpow__(self, other):
            return wrap(unwrap(other) ** _get(self))

        def __neg__(self):
            return _wrap_array(-_get(self))

        def __pos__(self):
            return _wrap_array(+_get(self))

        def __abs__(self):
            return _wrap_array(abs(_get(self)))

        def __eq__(self, other):
            return wrap(_get(self) == unwrap(other))

        def __ne__(self, other):
            return wrap(_get(self) != unwrap(other))

        def __lt__(self, other):
            return wrap(_get(self) < unwrap(other))

        def __le__(self, other):
            return wrap(_get(self) <= unwrap(other))

        def __gt__(self, other):
            return wrap(_get(self) > unwrap(other))

        def __ge__(self, other):
            return wrap(_get(self) >= unwrap(other))

    slot = ZWCArray.__dict__["_zwc_data"]
    _get = slot.__get__
    _set = slot.__set__
    del ZWCArray._zwc_data
    ZWCArray.__module__ = package
    new = object.__new__

    def _wrap_array(data):
        arr = new(ZWCArray)
        _set(arr, data)
        return arr

    def _element(value):
        # indexing: arrays stay wrapped, a single element becomes a Python scalar
        if isinstance(value, ndarray):
            return value.item() if value.ndim == 0 else _wrap_array(value)
        if isinstance(value, generic):
            return value.item()
        return value

    def _mirror(kind):
        look_alike = mirrored.get(kind)
        if look_alike is None:
            look_alike = namedtuple(kind.__name__, kind._fields, module=package)
            mirrored[kind] = look_alike
        return look_alike

    def wrap(value):
        """Raw NumPy results -> library values (arrays wrapped, also inside containers)."""
        if isinstance(value, ndarray):
            return _wrap_array(value)
        if isinstance(value, generic):
            return value  # NumPy scalars come back unchanged, as officially
        if isinstance(value, tuple):
            items = [wrap(v) for v in value]
            if hasattr(value, "_fields"):
                return _mirror(type(value))(*items)
            return tuple(items)
        if isinstance(value, list):
            return [wrap(v) for v in value]
        if isinstance(value, dict):
            return {k: wrap(v) for k, v in value.items()}
        if isinstance(value, vectorize_type):
            return _function(value, "vectorized", package, False, None)
        return value

    def unwrap(value):
        """Library values -> what NumPy accepts (arrays unwrapped, also inside containers)."""
        if isinstance(value, ZWCArray):
            return _get(value)
        if isinstance(value, list):
            return [unwrap(v) for v in value]
        if isinstance(value, tuple):
            items = [unwrap(v) for v in value]
            if hasattr(value, "_fields"):
                return type(value)(*items)
            return tuple(items)
        if isinstance(value, dict):
            return {k: unwrap(v) for k, v in value.items()}
        if isinstance(value, FunctionType):
            return _callback(value)
        return value

    def _callback(user_function):
        # functions the user hands to the library (piecewise, vectorize) see library arrays
        def callback(*args, **kwargs):
            return unwrap(user_function(*wrap(args), **wrap(kwargs)))

        return callback

    def _function(target, name, module, is_constructor, doc):
        def function(*args, **kwargs):
            record(is_constructor)
            return wrap(target(*unwrap(args), **unwrap(kwargs)))

        # a fresh function whose globals hold only the builtins: `f.__globals__` leads nowhere
        visible = FunctionType(
            function.__code__, {"__builtins__": builtins}, name, None, function.__closure__
        )
        visible.__qualname__ = name
        visible.__module__ = module
        visible.__doc__ = doc
        return visible

    def _missing(name):
        def target(*args, **kwargs):
            raise NotImplementedError(
                f"{name} is not available with the installed version of the library's backend"
            )

        return target

    def make_function(target, name, module, is_constructor, doc):
        """The library function `module.name` calling `target` (None: not available here)."""
        return _function(
            target if target is not None else _missing(name), name, module, is_constructor, doc
        )

    return ZWCArray, wrap, unwrap, make_function
