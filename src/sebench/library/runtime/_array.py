"""The array type and the membrane between user code and NumPy.

Everything is created inside `build()`, so this module's globals (what `__globals__` of every
method and function, and `f_globals` of every frame, lead to) hold no NumPy, no raw array and no
name table. The raw array lives in a slot whose descriptor is removed from the class and kept
only in this closure: no attribute of an array hands it back (`__array__`, which NumPy's protocol
requires, returns a copy-or-view by design and is refused by the grader's static policy instead).

The membrane (docs/library.md, "The membrane"):
- inbound, an allow-list: library arrays (unwrapped), exact `bool int float complex str bytes
  None`, `range`, `...`, slices, the types `int float complex bool str bytes object` (dtypes),
  the library's dtype, and exact lists, tuples and dicts of these, copied into fresh plain ones.
  Callables become callbacks; everything else is refused with `UnsupportedArgumentError`. NumPy
  never sees a user object, so it never calls a user's protocol method (`__array__`,
  `__array_function__`, `__array_ufunc__`, `__index__`, reflected operators, ...).
- callbacks receive library values only, and what they return crosses inbound again.
- outbound: arrays wrapped, NumPy scalars Python scalars, dtypes the library's dtype, also
  inside lists, tuples and dicts; any other NumPy object is refused.
- exceptions: whatever leaves a library function or an array method is a fresh exception holding
  a message only (NumPy's classes mirrored by name onto the same builtin bases), raised from a
  frame whose locals hold no NumPy object; a user's exception from a callback is re-raised as it
  is, without the traceback and chain it collected inside NumPy.

The official library's failures: where the official library raises and this one does not, the
array reports it (`official_failure`) and goes on, so one run serves both rule sets: the unary
operators (`-`, `+`, `abs()`: the official array has none), and NumPy converting a library array
with `dtype=` or `copy=False` (the official `__array__` takes neither). The official library
does not unwrap a vectorized function's arguments (that function is NumPy's own object), so
those reach NumPy as they are here too: NumPy's conversion goes through `__array__`, which sees
what it was asked for. (Officially arrays nested in any function's arguments reach NumPy too;
here they stay unwrapped, since NumPy's Python code may treat a non-ndarray differently, e.g.
`piecewise`'s condition list, which would change what this library computes.)
"""

import datetime
from collections import namedtuple
from types import FunctionType

_ALLOWED = ("shape", "dtype", "size", "ndim", "T")
_DTYPE_ALLOWED = ("name", "kind", "char", "itemsize")
# Values that cross into NumPy as they are: exact types, compared by id (a subclass can carry
# dunders NumPy calls; a metaclass can answer `==` and `hash` for its classes, ids cannot lie).
_SCALAR_IDS = frozenset(
    map(id, (bool, int, float, complex, str, bytes, type(None), type(...), range))
)
# Types passed as dtypes (`dtype=float`); every other callable, classes included, is wrapped.
_PLAIN_TYPES = (int, float, complex, bool, str, bytes, object)
_PLAIN_ARG_IDS = frozenset(map(id, (bool, int, float, complex, str, bytes, type(None))))
_MAX_DEPTH = 100  # nesting deeper than NumPy's 64 dimensions is a cycle or an attack
ACCEPTED = (
    "the library accepts library arrays, int, float, complex, bool, str, bytes, None, range, "
    "slices, the types int, float, complex, bool, str, bytes and object (as dtypes), a library "
    "dtype, lists, tuples and dicts of these (convert other containers with list(), tuple() or "
    "dict()), and functions (called with library values)"
)
_REFUSED = object()
# Element kinds whose `tolist()` gives plain Python values only: numbers, text, dates. Not objects
# nor structured records, whose `tolist()` hands out what their fields hold, raw arrays included.
_PLAIN_KINDS = frozenset("biufcSUMm")
# What `tolist()` of those kinds gives, checked rather than assumed: long double has no Python
# type, and its `tolist()` and `.item()` hand out NumPy's own scalars (a red team's way to
# raw arrays: `zwc.<array>(x, dtype="g")[0].reshape(1)`).
_TOLIST_IDS = _SCALAR_IDS | frozenset(
    map(id, (datetime.date, datetime.datetime, datetime.timedelta))
)
# NumPy reads the system clock for these datetime strings (any case): a coin a program could
# toss once per run to answer the grader's perturbed reruns differently. No text that the
# library takes in or hands out is one of them.
_CLOCK_WORDS = frozenset({"now", "today", b"now", b"today"})
_NUMERIC_KINDS = frozenset("biufcmM")  # kinds whose elements are no text
CLOCK_REFUSAL = "the library does not read the clock: 'now' and 'today' are not accepted"
_set_traceback = BaseException.with_traceback
_set_cause = BaseException.__dict__["__cause__"].__set__
_set_context = BaseException.__dict__["__context__"].__set__


def _clock_word(text):
    """`text` (str or bytes) is a datetime string NumPy reads the clock for: NumPy reads
    fixed-width text up to its first NUL, which drops the NULs that pad it (a red team's "now\\0"
    in a structured field) and whatever follows one (another's "now\\0x": `correct` in 6 of 6
    gradings, the clock's second a coin)."""
    head = text.partition("\0" if type(text) is str else b"\0")[0]
    return len(head) <= 5 and head.lower() in _CLOCK_WORDS


def _clock_words_in(items):
    return any((type(i) is str or type(i) is bytes) and _clock_word(i) for i in items)


def _is_plain_type(value):
    # identity, not `in`: hashing or comparing a user's object would call its methods
    return any(value is plain for plain in _PLAIN_TYPES)


def _class_ids(root):
    """The ids of `root` and of every class below it that exists now and is NumPy's (made when
    it is imported: in the sandbox, before any program exists; in-process, other code's
    subclasses may exist already, and are left out by their module)."""
    found, todo = set(), [root]
    while todo:
        cls = todo.pop()
        if id(cls) not in found and str(cls.__module__).partition(".")[0] == "numpy":
            found.add(id(cls))
            todo.extend(type.__subclasses__(cls))
    return frozenset(found)


def _isolated(function, name):
    """`function` with globals that hold nothing, not even the builtins: the frames a traceback
    shows (`tb_frame.f_globals`, `f_builtins`) and `__globals__` lead nowhere."""
    fresh = FunctionType(function.__code__, {"__builtins__": {}}, name, None, function.__closure__)
    fresh.__qualname__ = function.__qualname__
    fresh.__doc__ = function.__doc__
    return fresh


def build(np, package, call, official_failure, official_trial_wanted):
    """(ZWCArray, make_target, make_function) for the package `package`.

    `call(target, is_constructor, args, kwargs)` (`_runtime.call`) makes every library function
    call: the grader's audit hook counts it there, and perturbs its result in a perturbed run.
    `official_failure(what)` (`_runtime.official_failure`) reports, and only reports, a place
    where the official library would have raised (see "The official library's failures" below);
    `official_trial_wanted()` (`_runtime.official_trial_wanted`) says whether anyone listens.
    """
    ndarray = np.ndarray
    generic = np.generic
    asarray = np.asarray
    np_array = np.array
    vectorize_type = np.vectorize
    raw_dtype = np.dtype
    # NumPy's own scalar and dtype classes, by id: a subclass of one made later (the program's,
    # with `__array_ufunc__`) is none of them, and NumPy would call its methods with raw arrays
    # (a red team's, once it had `type`: the raw ufunc and arrays from `array + Sub(1.0)`)
    numpy_scalar_types = _class_ids(generic)
    numpy_dtype_types = _class_ids(raw_dtype)
    # scalars whose `.item()` changes what they print (datetime64[ns] -> int, void -> tuple):
    # they stay 0-d library arrays, which print exactly like the NumPy scalar
    kept_as_arrays = (np.datetime64, np.timedelta64, np.void)
    hint = (
        "ZWCArray supports only shape, dtype, size, ndim, T, indexing, len(), iteration and "
        f"the operators + - * / ** == != < <= > >=; use the functions of `{package}` instead"
    )
    mirrored = {}  # NumPy's namedtuple result types -> look-alikes that live in the package
    tuple_iter = tuple.__iter__
    mirrored_errors = {}  # id(exception class) -> (class, look-alike in the package)
    # each callback wrapper -> the user's function it calls: what NumPy stored (an object
    # array's element) goes back as the user's own function, never as the wrapper, whose
    # results are raw (it hands what the function returns to NumPy). Held, not weakly: the
    # wrappers are the only objects of a program's that NumPy holds, and one freed when NumPy
    # dropped its reference ran the program's code (a generator's `finally` among the
    # function's defaults) inside NumPy's C code, which dropped an object array's element
    # before storing its replacement: the program took a second reference to the dying
    # wrapper there, then forged objects in its freed memory, read the library's mapping and
    # was `correct` knowing no name (a red team's, OA). Kept for the run, none is ever freed
    # by NumPy; a run is one process, and a program makes few callbacks.
    callbacks = {}

    class UnsupportedArgumentError(TypeError):
        """A value the library does not hand to its backend (see the package's documentation)."""

    class CarriedError(Exception):
        """A user's exception on its way out of a callback, through the backend."""

    UnsupportedArgumentError.__module__ = package
    refused = UnsupportedArgumentError
    not_subclassable = TypeError

    def final(cls, **kwargs):
        raise not_subclassable("library types cannot be subclassed")

    # a class statement's traceback shows this frame: its globals must lead nowhere either
    _final = classmethod(_isolated(final, "__init_subclass__"))

    class ZWCArray:
        """An n-dimensional array of the library; work on it with the library's functions."""

        __slots__ = ("_zwc_data",)
        # NumPy operators and ufuncs defer to ours (so `numpy_scalar * arr` stays a ZWCArray)
        __array_ufunc__ = None
        __hash__ = None
        __init_subclass__ = _final

        def __init__(self, data):
            _set(self, asarray(inbound(data, 0)))

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
            if dtype is not None or copy is False:
                # NumPy passes these only when asked for a type or for no copy; the official
                # `__array__` takes neither, so there NumPy's conversion raised
                official_failure("NumPy converted a library array with dtype= or copy=False")
            if id(type(dtype)) not in numpy_dtype_types:  # NumPy itself passes its dtypes
                dtype = inbound(dtype, 0)
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
            if data.ndim == 1 and data.dtype.kind in _PLAIN_KINDS:
                items = data.tolist()
                if set(map(id, map(type, items))) <= _TOLIST_IDS:
                    return iter(items)
            # a list, not a generator: a generator's public `gi_frame` would show the raw array;
            # object arrays, and structured ones with object fields, may hold raw arrays (and
            # `tolist` hands those out as they are), so each item goes through `_element`
            return iter([_element(row) for row in data])

        def __getitem__(self, key):
            return _element(_get(self)[inbound(key, 0)])

        def __setitem__(self, key, value):
            _get(self)[inbound(key, 0)] = inbound(value, 0)

        def __contains__(self, value):
            other = _operand(value)
            if other is _REFUSED:
                raise refused(f"`in` on a ZWCArray: a {_name(value)} is not accepted; {ACCEPTED}")
            return bool((_get(self) == other).any())

        def __bool__(self):
            return bool(_get(self))

        def __copy__(self):
            return _wrap_array(_get(self).copy())

        def __deepcopy__(self, memo):
            return _wrap_array(_get(self).copy())

        def __reduce__(self):
            return (type(self), (outbound(_get(self).tolist()),))

        def __add__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) + other)

        def __radd__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(other + _get(self))

        def __sub__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) - other)

        def __rsub__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(other - _get(self))

        def __mul__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) * other)

        def __rmul__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(other * _get(self))

        def __truediv__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) / other)

        def __rtruediv__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(other / _get(self))

        def __pow__(self, other, modulo=None):
            other = _operand(other)
            if other is _REFUSED or modulo is not None:  # NumPy has no three-argument pow
                return NotImplemented
            return outbound(_get(self) ** other)

        def __rpow__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(other ** _get(self))

        def __neg__(self):
            official_failure("unary - on a library array")
            return _wrap_array(-_get(self))

        def __pos__(self):
            official_failure("unary + on a library array")
            return _wrap_array(+_get(self))

        def __abs__(self):
            official_failure("abs() of a library array")
            return _wrap_array(abs(_get(self)))

        def __eq__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) == other)

        def __ne__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) != other)

        def __lt__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) < other)

        def __le__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) <= other)

        def __gt__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) > other)

        def __ge__(self, other):
            other = _operand(other)
            if other is _REFUSED:
                return NotImplemented
            return outbound(_get(self) >= other)

    slot = ZWCArray.__dict__["_zwc_data"]
    _get = slot.__get__
    _set = slot.__set__
    del ZWCArray._zwc_data
    ZWCArray.__module__ = package
    new = object.__new__

    class dtype:  # noqa: N801 - prints as NumPy's `dtype('float64')`
        """The element type of a library array: printable, comparable, usable as `dtype=`."""

        __slots__ = ("_zwc_dtype",)
        __init_subclass__ = _final

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

    class Sealed:
        """What a library function's frame holds instead of its NumPy target."""

        __slots__ = ("_zwc_target",)
        __init_subclass__ = _final

    sealed_slot = Sealed.__dict__["_zwc_target"]
    _unseal = sealed_slot.__get__
    _seal = sealed_slot.__set__
    del Sealed._zwc_target
    Sealed.__module__ = package

    def _name(value):
        return type(value).__name__

    def _wrap_dtype(raw):
        wrapped = new(dtype)
        _set_dtype(wrapped, raw)
        return wrapped

    def _dtype_operand(other):
        # what NumPy's dtype may compare with: nothing it would call back with NumPy objects
        if type(other) is dtype:
            return _get_dtype(other)
        if id(type(other)) in numpy_dtype_types or type(other) is str or _is_plain_type(other):
            return other
        return _REFUSED

    def _operand(other):
        """What an operator hands to NumPy, or _REFUSED (the operator returns NotImplemented)."""
        kind = type(other)
        if kind is ZWCArray:
            return _get(other)
        if id(kind) in _SCALAR_IDS:
            _refuse_clock_words((other,))
            return other
        if kind is list or kind is tuple or id(kind) in numpy_scalar_types:
            try:
                return inbound(other, 0)
            except UnsupportedArgumentError:
                return _REFUSED
        return _REFUSED

    # --- inbound: what crosses into NumPy -------------------------------------------------
    def inbound(value, depth, as_official=False):
        """`value` as NumPy may see it (a fresh plain copy), else UnsupportedArgumentError.

        `as_official` (a vectorized function's arguments, `depth` 1 from the start): library
        arrays reach NumPy as they are, as the official library lets them, so that NumPy's
        conversion of them shows through `__array__` where the official one would have failed.
        """
        kind = type(value)
        if id(kind) in _SCALAR_IDS:
            _refuse_clock_words((value,))
            return value
        if kind is ZWCArray:
            return value if as_official and depth else _get(value)
        if depth > _MAX_DEPTH:
            raise refused(f"containers nested more than {_MAX_DEPTH} deep are not accepted")
        if kind is list:
            # copy first: another thread cannot change what was checked
            items = list(value)
            if set(map(id, map(type, items))) <= _SCALAR_IDS:
                _refuse_clock_words(items)
                return items
            depth += 1
            return [inbound(item, depth, as_official) for item in items]
        if kind is tuple:
            if set(map(id, map(type, value))) <= _SCALAR_IDS:
                _refuse_clock_words(value)
                return value  # immutable, and its items are
            depth += 1
            return tuple([inbound(item, depth, as_official) for item in value])
        if kind is dict:
            depth += 1
            return {
                inbound(k, depth, as_official): inbound(v, depth, as_official)
                for k, v in list(value.items())
            }
        if any(kind is look_alike for look_alike in mirrored.values()):
            # a named result the library handed out (`slogdet`'s) comes back as a plain tuple;
            # tuple's own iterator: the class's `__iter__` could have been replaced
            depth += 1
            return tuple([inbound(item, depth, as_official) for item in tuple_iter(value)])
        if kind is dtype:
            return _get_dtype(value)
        if kind is slice:
            depth += 1
            return slice(
                inbound(value.start, depth), inbound(value.stop, depth), inbound(value.step, depth)
            )
        if _is_plain_type(value):
            return value
        # NumPy's own scalars, dtypes and scalar types: only trusted code holds them
        if id(kind) in numpy_scalar_types or id(kind) in numpy_dtype_types:
            return value
        if kind is type and id(value) in numpy_scalar_types:
            return value
        if callable(value):  # functions, partials, methods, classes: see library values only
            return _callback(value)
        raise refused(f"a {_name(value)} is not accepted; {ACCEPTED}")

    def _arguments(args, kwargs, name, as_official):
        """(positional, keyword) arguments as NumPy may see them; refusals name the argument.
        `as_official`: the library arrays among them reach NumPy as they are (a vectorized
        function's, which the official library does not unwrap)."""
        depth = 1 if as_official else 0  # below the top: not unwrapped
        try:
            positional = [inbound(value, depth, as_official) for value in args]
            keywords = {}
            for key, value in kwargs.items():
                if type(key) is not str:
                    raise refused(f"a keyword of type {_name(key)} is not accepted")
                keywords[key] = inbound(value, depth, as_official)
            return positional, keywords
        except UnsupportedArgumentError as refusal:
            reason = refusal.args[0]
        where = next(
            (f"argument {position}" for position, v in enumerate(args, 1) if not _accepted(v)),
            None,
        ) or next(
            (f"argument '{str.__str__(k)}'" for k, v in kwargs.items() if not _accepted(v)),
            "a keyword",
        )
        raise refused(f"{name}: {where}: {reason}")

    def _accepted(value):
        try:
            inbound(value, 0)
        except UnsupportedArgumentError:
            return False
        return True

    # --- outbound: what comes back from NumPy ---------------------------------------------
    def _scalar(value):
        """A NumPy scalar -> a Python scalar (a 0-d library array where `.item()` would change
        what it prints)."""
        if not isinstance(value, kept_as_arrays):
            item = value.item()
            if id(type(item)) in _SCALAR_IDS:
                return item
        # `.item()` would change what it prints, or gives no Python scalar at all (long double
        # hands back the NumPy scalar): a 0-d library array, which prints like the scalar
        return _checked(asarray(value))

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
        return outbound(value)

    def _mirror(kind):
        look_alike = mirrored.get(kind)
        if look_alike is None:
            look_alike = namedtuple(kind.__name__, kind._fields, module=package)
            mirrored[kind] = look_alike
        return look_alike

    def _holds_clock_word(data):
        if data.dtype.names:  # records: each field, nested ones too
            return any(_holds_clock_word(data[name]) for name in data.dtype.names)
        # every kind but numbers, booleans and dates: not a list of the text kinds, which
        # missed NumPy 2's string dtype ("T", a red team's way to "now")
        return data.dtype.kind not in _NUMERIC_KINDS and _clock_words_in(data.ravel().tolist())

    def _refuse_clock_words(items):
        if _clock_words_in(items):
            raise refused(CLOCK_REFUSAL)

    def _checked(data):
        # text NumPy computed (`add` of "n" and "ow") is checked on its way out, so that no
        # library array ever holds a clock word, whatever operator or cast it later meets
        if _holds_clock_word(data):
            raise refused(CLOCK_REFUSAL)
        return _wrap_array(data)

    def outbound(value):
        """Raw NumPy results -> library values (arrays wrapped, also inside containers)."""
        kind = type(value)
        if kind is ndarray:
            return _checked(value)
        if id(kind) in _SCALAR_IDS:
            return value
        if isinstance(value, generic):
            return _scalar(value)  # officially a NumPy scalar, with every NumPy method
        if isinstance(value, ndarray):
            return _checked(value)
        if isinstance(value, raw_dtype):
            return _wrap_dtype(value)
        if isinstance(value, tuple):
            items = [outbound(v) for v in value]
            if hasattr(value, "_fields"):
                return _mirror(kind)(*items)
            return tuple(items)
        if isinstance(value, list):
            return [outbound(v) for v in value]
        if isinstance(value, dict):
            return {outbound(k): outbound(v) for k, v in value.items()}
        if isinstance(value, vectorize_type):
            # officially NumPy's own object: the arrays it is called with are not unwrapped
            return _function(value, "vectorized", package, False, None, True)
        if kind is slice:  # an object array's element: its parts may be raw arrays
            return slice(outbound(value.start), outbound(value.stop), outbound(value.step))
        if kind is ZWCArray or kind is dtype or _is_plain_type(value):
            return value
        if kind is FunctionType:
            user_function = callbacks.get(value)
            if user_function is not None:
                return user_function
        # An allow-list, like inbound's: what an object array holds came in through inbound
        # (scalars, the plain types, slices, containers, callbacks); anything else NumPy or
        # the membrane made (a scalar type, a membrane function) stays behind it.
        raise refused(f"the library does not hand out a {_name(value)}")

    # --- callbacks and exceptions -----------------------------------------------------------
    def _callback(user_function):
        # functions the user hands to the library (piecewise, vectorize) see library values
        def callback(*args, **kwargs):
            args = outbound(args)  # rebinding: the frame no longer holds the raw arguments
            kwargs = outbound(kwargs)
            try:
                result = user_function(*args, **kwargs)
            except BaseException as error:
                raise CarriedError(error) from None
            return inbound(result, 0)

        callbacks[callback] = user_function
        return callback

    def _mirror_error(kind):
        known = mirrored_errors.get(id(kind))
        if known is not None:
            return known[1]
        bases = []
        for cls in kind.__mro__:
            if cls.__module__ != "builtins":
                bases += [b for b in cls.__bases__ if b.__module__ == "builtins" and b not in bases]
        look_alike = type(kind.__name__, tuple(bases) or (Exception,), {"__module__": package})
        mirrored_errors[id(kind)] = (kind, look_alike)
        return look_alike

    def sanitize(error):
        """The exception to raise instead of `error`: a message and no objects."""
        kind = type(error)
        if kind is CarriedError:  # the user's own exception, from a callback
            error = error.args[0]
            _set_traceback(error, None)
            _set_cause(error, None)
            _set_context(error, None)
            return error
        try:
            message = str(error)
        except Exception:
            message = kind.__name__
        if kind.__module__ == "builtins":
            args = error.args
            if not set(map(id, map(type, args))) <= _PLAIN_ARG_IDS:
                args = (message,)
            try:
                return kind(*args)
            except Exception:
                return _mirror_error(kind)(message)
        return _mirror_error(kind)(message)

    caught = BaseException  # a closure variable: the shells below have no builtins

    def guard(impl):
        """`impl` behind a frame that holds nothing NumPy and re-raises only sanitized errors."""

        def shell(*args, **kwargs):
            try:
                return impl(*args, **kwargs)
            except caught as error:
                raw = error
            # sanitized after the handler: code run meanwhile (a finalizer) finds no raw
            # exception being handled
            failure = sanitize(raw)
            del raw
            raise failure

        shell.__qualname__ = impl.__qualname__
        shell.__doc__ = impl.__doc__
        return _isolated(shell, impl.__name__)

    for cls in (ZWCArray, dtype):
        for attribute, member in list(cls.__dict__.items()):
            if type(member) is FunctionType:
                setattr(cls, attribute, guard(member))
            elif type(member) is property:
                setattr(cls, attribute, property(guard(member.fget), doc=member.__doc__))

    # --- what NumPy leaves unwritten -----------------------------------------------------------
    # `empty`, `empty_like`, `pad(mode="empty")`'s border and a ufunc's outputs where `where` is
    # False (without `out`) hold whatever the allocator's last user left there. The grader's own
    # copies of a result, made for the perturbed reruns and freed, were among them: a program
    # that knew no function told its first run from the reruns by reading them back (a red
    # team's, `correct` on three dev tasks). Nothing unwritten crosses: it is zero, as `zeros`
    # would make it. `clip` is no ufunc but hands its `where` to one, elementwise (another red
    # team's, `correct` in 12 of 12 gradings); every other function of the library given
    # `where` writes every element of what it returns (a reduction starts from its identity).
    empty, empty_like, pad, ufunc_type = np.empty, np.empty_like, np.pad, np.ufunc
    # functions that hand `where` to a ufunc, with the number of their inputs (`out` follows)
    forwarding_where = {id(np.clip): 3}

    def zero(kind):
        return np.zeros((), dtype=kind)

    def written_only(target, positional, keywords, result):
        if target is empty or target is empty_like:
            if isinstance(result, ndarray):
                result[...] = zero(result.dtype)
            return result
        inputs = target.nin if type(target) is ufunc_type else forwarding_where.get(id(target))
        if inputs is None or "where" not in keywords:
            return result
        mask = asarray(keywords["where"], dtype=bool)
        given = keywords.get("out")  # the outputs the caller gave, by keyword or position
        given = (*positional[inputs:], *(given if isinstance(given, tuple) else (given,)))
        outputs = result if isinstance(result, tuple) else (result,)
        filled = []
        for output in outputs:
            if any(output is out for out in given):  # the caller's: keeps its own values
                filled.append(output)
            elif isinstance(output, ndarray):
                output[~np.broadcast_to(mask, output.shape)] = zero(output.dtype)
                filled.append(output)
            elif isinstance(output, generic) and not mask.all():  # a 0-d output, unwritten
                filled.append(zero(output.dtype)[()])
            else:
                filled.append(output)
        return tuple(filled) if isinstance(result, tuple) else filled[0]

    def pad_written(target, positional, keywords):
        """`pad(..., mode="empty")` pads with nothing written: asked as `constant` (zeros)."""
        if target is not pad:
            return positional, keywords
        if len(positional) > 2 and isinstance(positional[2], str) and positional[2] == "empty":
            positional = (*positional[:2], "constant", *positional[3:])
        elif isinstance(keywords.get("mode"), str) and keywords["mode"] == "empty":
            keywords = {**keywords, "mode": "constant"}
        return positional, keywords

    # --- library functions ------------------------------------------------------------------
    made_targets = []

    def invoke(sealed, args, kwargs):
        """Every library call passes here: count it, cross the membrane both ways. The official
        trial (on copies made before the call) runs after the call is announced: a call the
        grader's hook could not count (it raised, at the edge of the recursion limit) has run
        no NumPy function at all, the trial's included, so no uncounted call tells a program
        what a function does (a red team's reading, NW: only the two paths' depths kept the
        trial from running uncounted)."""
        target, name, is_constructor, as_official = _unseal(sealed)
        positional, keywords = _arguments(args, kwargs, name, as_official)
        official = None if as_official else _as_official(positional, keywords)
        positional, keywords = pad_written(target, positional, keywords)
        result = call(target, is_constructor, positional, keywords)
        result = outbound(written_only(target, positional, keywords, result))
        if official is not None and _fails_officially(target, official):
            official_failure("NumPy failed on library arrays inside an argument")
        return result

    # --- the official library's view of nested arrays ---------------------------------------
    class OfficialArray:
        """A library array as the official library hands NumPy one nested in an argument: an
        object whose `__array__` takes no `dtype` or `copy`. Lives only in `_fails_officially`."""

        __slots__ = ("data",)

        def __init__(self, data):
            self.data = data

        def __array__(self):
            return self.data

        @property
        def shape(self):
            return self.data.shape

        @property
        def dtype(self):
            return self.data.dtype

        @property
        def ndim(self):
            return self.data.ndim

        @property
        def size(self):
            return self.data.size

        def __len__(self):
            return len(self.data)

        def __getitem__(self, key):
            return _official_element(self.data[key])

        def __iter__(self):
            return iter([_official_element(row) for row in self.data])

        def __setitem__(self, key, value):
            self.data[key] = value.data if type(value) is OfficialArray else value

        @property
        def T(self):  # noqa: N802 - NumPy's name
            return OfficialArray(self.data.T)

    def _official_operator(operate, reflected):
        # the official array's operators: on the data, the result wrapped again
        def method(self, other):
            other = other.data if type(other) is OfficialArray else other
            result = operate(other, self.data) if reflected else operate(self.data, other)
            return OfficialArray(result) if isinstance(result, ndarray) else result

        return method

    arithmetic = {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "truediv": lambda a, b: a / b,
        "pow": lambda a, b: a**b,
    }
    comparisons = {
        "eq": lambda a, b: a == b,
        "ne": lambda a, b: a != b,
        "lt": lambda a, b: a < b,
        "le": lambda a, b: a <= b,
        "gt": lambda a, b: a > b,
        "ge": lambda a, b: a >= b,
    }
    for name, operate in {**arithmetic, **comparisons}.items():
        setattr(OfficialArray, f"__{name}__", _official_operator(operate, False))
        if name in arithmetic:
            setattr(OfficialArray, f"__r{name}__", _official_operator(operate, True))

    def _official_element(value):
        if isinstance(value, ndarray):
            return OfficialArray(value) if value.ndim else value.item()
        return value.item() if isinstance(value, generic) else value

    containers = {list, tuple, dict}

    def _as_official(positional, keywords):
        """The arguments as the official library passes them (copies: the trial must change
        nothing), or None when that is what NumPy gets here anyway (no array nested in an
        argument), when nobody asks for the trial (outside the grader) or when it cannot run (a
        callback: user code runs once)."""
        values = [*positional, *keywords.values()]
        if not any(_holds_array(v) for v in values if type(v) in (list, tuple, dict)):
            return None
        if not official_trial_wanted():
            return None

        def view(value, nested):
            kind = type(value)
            if kind is ndarray:  # only a library array's data is a raw array here
                return OfficialArray(value.copy()) if nested else value.copy()
            if kind is list or kind is tuple:
                items = [view(item, True) for item in value]
                return items if kind is list else tuple(items)
            if kind is dict:
                return {k: view(v, True) for k, v in value.items()}
            if type(value) is FunctionType:
                raise refused("a callback")
            return value

        try:
            return (
                [view(v, False) for v in positional],
                {k: view(v, False) for k, v in keywords.items()},
            )
        except UnsupportedArgumentError:
            return None

    def _holds_array(value):
        # `value` came through `inbound`: plain values and fresh containers, types compared as is
        kind = type(value)
        if kind is ndarray:
            return True
        items = value.values() if kind is dict else value if kind in (list, tuple) else ()
        kinds = set(map(type, items))  # one pass in C: a long list of numbers costs little
        if ndarray in kinds:
            return True
        return bool(kinds & containers) and any(map(_holds_array, items))

    def _fails_officially(target, arguments):
        """Whether the NumPy call fails with the arguments the official library would pass."""
        try:
            target(*arguments[0], **arguments[1])
        except Exception:
            return True
        return False

    def _function(target, name, module, is_constructor, doc, as_official=False):
        # The grader's server reads this list through the closures (`audit.closure_contents`):
        # only these targets, and vectorized functions, count as library calls. Nothing the
        # graded program can name holds it.
        made_targets.append(target)
        sealed = new(Sealed)
        _seal(sealed, (target, f"{module}.{name}", is_constructor, as_official))

        # the frame of this function is what a traceback shows: it holds the user's arguments,
        # `invoke`, `sealed`, `sanitize` and `caught`, none of which leads to NumPy without dunders
        def function(*args, **kwargs):
            try:
                return invoke(sealed, args, kwargs)
            except caught as error:
                raw = error
            failure = sanitize(raw)  # after the handler, as in `shell`
            del raw
            raise failure

        visible = _isolated(function, name)
        visible.__qualname__ = name
        visible.__module__ = module
        visible.__doc__ = doc
        return visible

    def _missing(*args, **kwargs):
        raise NotImplementedError(
            "this function is not available with the installed version of the library's backend"
        )

    def make_target(target):
        """What a library function calls: `target`, or, where this NumPy lacks it (None), a
        function that says so (one for all: made per name, it would shift what is made after)."""
        return target if target is not None else _missing

    def make_function(target, name, module, is_constructor, doc):
        """The library function `module.name` calling `target` (from `make_target`)."""
        return _function(target, name, module, is_constructor, doc)

    return ZWCArray, make_target, make_function
