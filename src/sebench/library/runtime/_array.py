"""The array type and the wrapping of library functions, built around NumPy without exposing it.

Everything is created inside `build()`, so this module's globals (what `__globals__` of every
method and function leads to) hold no NumPy, no raw array and no name table. The raw array lives
in a slot whose descriptor is removed from the class and kept only in this closure: no attribute
of an array hands it back (`__array__`, which NumPy's protocol requires, returns a copy-or-view
by design and is refused by the grader's static policy instead).

Nothing NumPy reaches user code either: NumPy scalars become Python scalars, a dtype is a small
wrapper without `.type`, operators refuse operands that could receive the raw array through a
reflected method, and every callable handed to the library is wrapped so that it sees library
values only.
"""

import builtins
from collections import namedtuple
from decimal import Decimal
from fractions import Fraction
from types import FunctionType

_ALLOWED = ("shape", "dtype", "size", "ndim", "T")
_DTYPE_ALLOWED = ("name", "kind", "char", "itemsize")
# Operands an operator hands to NumPy: exact types only (a subclass could define a reflected
# method or `__array_ufunc__ = None` and so receive the raw array from NumPy).
_PLAIN_OPERANDS = frozenset(
    (int, float, complex, bool, str, bytes, type(None), range, Fraction, Decimal)
)
# Types the library passes to NumPy as they are (dtype arguments such as `dtype=float`); every
# other callable, classes included, is wrapped before NumPy may call it with raw arrays.
_PLAIN_TYPES = frozenset((int, float, complex, bool, str, bytes, object))
_REFUSED = object()


def _is_plain_type(value):
    # identity, not `in`: hashing or comparing a user's object would call its methods
    return any(value is plain for plain in _PLAIN_TYPES)


def build(np, package, call):
    """(ZWCArray, wrap, unwrap, make_function) for the package `package`.

    `call(target, is_constructor, args, kwargs)` (`_runtime.call`) makes every library function
    call: the grader counts and may perturb the calls there.
    """
    ndarray = np.ndarray
    generic = np.generic
    asarray = np.asarray
    np_array = np.array
    vectorize_type = np.vectorize
    np_dtype = np.dtype
    # scalars whose `.item()` changes what they print (datetime64[ns] -> int, void -> tuple):
    # they stay 0-d library arrays, which print exactly like the NumPy scalar
    kept_as_arrays = (np.datetime64, np.timedelta64, np.void)
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
            return _wrap_dtype(_get(self).dtype)

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
            dtype = unwrap(dtype)
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
            if data.ndim == 1 and data.dtype.kind != "O":
                return iter(data.tolist())
            # a list, not a generator: a generator's public `gi_frame` would show the raw array;
            # object arrays may hold raw arrays, so each item goes through `_element`
            return iter([_element(row) for row in data])

        def __getitem__(self, key):
            return _element(_get(self)[unwrap(key)])

        def __setitem__(self, key, value):
            _get(self)[unwrap(key)] = unwrap(value)

        def __contains__(self, value):
            other = _operand(value)
            if other is _REFUSED:  # compare Python values only, never the raw array
                return any(item == value for item in self)
            return bool((_get(self) == other).any())

        def __bool__(self):
            return bool(_get(self))

        def __copy__(self):
            return _wrap_array(_get(self).copy())

        def __deepcopy__(self, memo):
            return _wrap_array(_get(self).copy())

        def __reduce__(self):
            return (type(self), (_get(self).tolist(),))

        def __add__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) + other)

        def __radd__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(other + _get(self))

        def __sub__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) - other)

        def __rsub__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(other - _get(self))

        def __mul__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) * other)

        def __rmul__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(other * _get(self))

        def __truediv__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) / other)

        def __rtruediv__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(other / _get(self))

        def __pow__(self, other, modulo=None):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) ** other)

        def __rpow__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(other ** _get(self))

        def __neg__(self):
            return _wrap_array(-_get(self))

        def __pos__(self):
            return _wrap_array(+_get(self))

        def __abs__(self):
            return _wrap_array(abs(_get(self)))

        def __eq__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) == other)

        def __ne__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) != other)

        def __lt__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) < other)

        def __le__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) <= other)

        def __gt__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) > other)

        def __ge__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return wrap(_get(self) >= other)

    slot = ZWCArray.__dict__["_zwc_data"]
    _get = slot.__get__
    _set = slot.__set__
    del ZWCArray._zwc_data
    ZWCArray.__module__ = package
    new = object.__new__

    class dtype:  # noqa: N801 - prints as NumPy's `dtype('float64')`
        """The element type of a library array: printable, comparable, usable as `dtype=`."""

        __slots__ = ("_zwc_dtype",)

        def __getattr__(self, name):
            raise AttributeError(
                f"'dtype' object has no attribute '{name}'; it has {', '.join(_DTYPE_ALLOWED)}"
            )

        def __dir__(self):
            return list(_DTYPE_ALLOWED)

        @property
        def name(self):
            return _get_dtype(self).name

        @property
        def kind(self):
            return _get_dtype(self).kind

        @property
        def char(self):
            return _get_dtype(self).char

        @property
        def itemsize(self):
            return _get_dtype(self).itemsize

        def __str__(self):
            return str(_get_dtype(self))

        def __repr__(self):
            return repr(_get_dtype(self))

        def __hash__(self):
            return hash(_get_dtype(self))

        def __eq__(self, other):
            other = _dtype_operand(other)
            if other is _REFUSED:
                return NotImplemented
            return _get_dtype(self) == other

        def __ne__(self, other):
            other = _dtype_operand(other)
            if other is _REFUSED:
                return NotImplemented
            return _get_dtype(self) != other

        def __copy__(self):
            return self

        def __deepcopy__(self, memo):
            return self

        def __reduce__(self):
            raise TypeError("cannot pickle a dtype of the library; use its name")

    dtype_slot = dtype.__dict__["_zwc_dtype"]
    _get_dtype = dtype_slot.__get__
    _set_dtype = dtype_slot.__set__
    del dtype._zwc_dtype
    dtype.__module__ = package
    raw_dtype = np_dtype

    def _wrap_dtype(raw):
        wrapped = new(dtype)
        _set_dtype(wrapped, raw)
        return wrapped

    def _dtype_operand(other):
        # what NumPy's dtype may compare with: nothing it would call back with NumPy objects
        if isinstance(other, dtype):
            return _get_dtype(other)
        if isinstance(other, raw_dtype) or type(other) is str or _is_plain_type(other):
            return other
        return _REFUSED

    def _operand(other):
        """What an operator hands to NumPy, or _REFUSED (the operator returns NotImplemented)."""
        if isinstance(other, ZWCArray):
            return _get(other)
        if type(other) in _PLAIN_OPERANDS or isinstance(other, generic):
            return other
        if isinstance(other, list | tuple):
            return unwrap(other)  # plain lists/tuples of unwrapped items, whatever the subclass
        return _REFUSED

    def _scalar(value):
        """A NumPy scalar -> a Python scalar (a 0-d library array where `.item()` would change
        what it prints)."""
        if isinstance(value, kept_as_arrays):
            return _wrap_array(asarray(value))
        return value.item()

    def _wrap_array(data):
        arr = new(ZWCArray)
        _set(arr, data)
        return arr

    def _element(value):
        # indexing: arrays stay wrapped, a single element becomes a Python scalar
        if isinstance(value, ndarray):
            if value.ndim:
                return _wrap_array(value)
            value = value[()]
            if isinstance(value, ndarray):  # a 0-d object array holding an array
                return _wrap_array(value)
        if isinstance(value, generic):
            return _scalar(value)
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
            return _scalar(value)  # officially a NumPy scalar, with every NumPy method
        if isinstance(value, raw_dtype):
            return _wrap_dtype(value)
        if isinstance(value, tuple):
            items = [wrap(v) for v in value]
            if hasattr(value, "_fields"):
                return _mirror(type(value))(*items)
            return tuple(items)
        if isinstance(value, list):
            return [wrap(v) for v in value]
        if isinstance(value, dict):
            return {wrap(k): wrap(v) for k, v in value.items()}
        if isinstance(value, vectorize_type):
            return _function(value, "vectorized", package, False, None)
        return value

    def unwrap(value):
        """Library values -> what NumPy accepts (arrays unwrapped, also inside containers)."""
        if isinstance(value, ZWCArray):
            return _get(value)
        if isinstance(value, dtype):
            return _get_dtype(value)
        # containers become plain ones: a subclass (namedtuples included) could receive the raw
        # arrays through a reflected operator or `__array_ufunc__ = None`
        if isinstance(value, list):
            return [unwrap(v) for v in value]
        if isinstance(value, tuple):
            return tuple(unwrap(v) for v in value)
        if isinstance(value, dict):
            return {k: unwrap(v) for k, v in value.items()}
        if callable(value) and not _is_plain_type(value) and not _is_numpy_scalar_type(value):
            return _callback(value)  # functions, partials, builtins, bound methods, classes
        return value

    def _is_numpy_scalar_type(value):
        # `dtype=np.float64` from trusted code (user code cannot reach NumPy's classes)
        return isinstance(value, type) and issubclass(value, generic)

    def _callback(user_function):
        # functions the user hands to the library (piecewise, vectorize) see library arrays
        def callback(*args, **kwargs):
            return unwrap(user_function(*wrap(args), **wrap(kwargs)))

        return callback

    def _function(target, name, module, is_constructor, doc):
        def function(*args, **kwargs):
            return wrap(call(target, is_constructor, unwrap(args), unwrap(kwargs)))

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
