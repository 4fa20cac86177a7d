"""What the programmatic generator knows about each of the 278 NumPy functions.

One `FunctionSpec` per function: its parameters (a slot name and an input kind from `inputs.py`),
the body of the NumPy reference solution and phrases that name the result in a query. In bodies
and phrases `{x}` stands for the parameter of slot `x` (a random name per task) and `@x` for
`np.array({x})`. A body without `return` is one expression, returned; results that are tuples of
arrays are turned into lists so that they print the same for NumPy and for any library.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class FunctionSpec:
    numpy_name: str
    params: tuple[tuple[str, str], ...]  # (slot, input kind)
    body: str
    phrases: tuple[str, ...]

    @property
    def slots(self) -> tuple[str, ...]:
        return tuple(slot for slot, _ in self.params)


# Rewordings of the common phrase shapes, so one function is asked for in more than one way:
# (pattern of a written phrase, its other wordings).
_REWORDINGS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(
            r"^the (?P<op>[^{}]+?) of (?:each|every) (?:value|entry|element|number|integer|angle)"
            r"(?: \(radians\))? (?:in|of) \{x\}$"
        ),
        ("the element-wise {op} of {{x}}", "{{x}} with the {op} applied to every element"),
    ),
    (
        re.compile(r"^the (?P<op>[^{}]+?) of \{m\} along axis \{axis\}$"),
        ("the {op} of {{m}} taken over axis {{axis}}", "the {op} over axis {{axis}} of {{m}}"),
    ),
    (
        re.compile(r"^the element-wise (?P<op>[^{}]+?) of \{x\} and \{y\}$"),
        (
            "the {op} of {{x}} and {{y}}, position by position",
            "for each i, the {op} of {{x}}[i] and {{y}}[i]",
        ),
    ),
)


def _reworded(phrase: str) -> tuple[str, ...]:
    for pattern, wordings in _REWORDINGS:
        match = pattern.match(phrase)
        if match:
            return tuple(w.format(op=match.group("op")) for w in wordings)
    return ()


def _spec(numpy_name: str, params: str, body: str, *phrases: str) -> FunctionSpec:
    pairs = tuple(tuple(p.split(":")) for p in params.split())
    phrases += tuple(w for phrase in phrases for w in _reworded(phrase))
    return FunctionSpec(numpy_name, pairs, body, phrases)  # type: ignore[arg-type]


def _unary(numpy_name: str, kind: str, *phrases: str) -> FunctionSpec:
    """An element-wise function of one array."""
    return _spec(numpy_name, f"x:{kind}", f"np.{numpy_name}(@x)", *phrases)


def _binary(numpy_name: str, kind: str, *phrases: str, second: str | None = None) -> FunctionSpec:
    """An element-wise function of two arrays of one length."""
    return _spec(numpy_name, f"x:{kind} y:{second or kind}", f"np.{numpy_name}(@x, @y)", *phrases)


def _reduce(numpy_name: str, kind: str, *phrases: str) -> FunctionSpec:
    """A reduction of a matrix along an axis."""
    return _spec(numpy_name, f"m:{kind} axis:axis", f"np.{numpy_name}(@m, axis={{axis}})", *phrases)


def _pairs(body: str) -> str:
    """A tuple of arrays as a list of lists: prints alike whatever array type made it."""
    return f"[np.asarray(part).tolist() for part in ({body})]"


SPECS: tuple[FunctionSpec, ...] = (
    _unary("abs", "vec", "the absolute value of every element of {x}"),
    _unary("absolute", "vec", "the magnitude (absolute value) of each entry of {x}"),
    _unary("acos", "unit", "the inverse cosine of each value in {x}"),
    _unary("acosh", "gt1", "the inverse hyperbolic cosine of each value in {x}"),
    _binary("add", "vec", "the element-wise sum of {x} and {y}"),
    _reduce("all", "mat", "whether every entry of {m} is non-zero along axis {axis}"),
    _spec(
        "allclose",
        "x:vec y:vec",
        "np.allclose(@x, @x + 1e-9 * @y)",
        "whether {x} and {x} nudged by 1e-9 times {y} are equal within the default tolerances",
    ),
    _reduce("amax", "mat", "the largest value of {m} along axis {axis}"),
    _reduce("amin", "mat", "the smallest value of {m} along axis {axis}"),
    _reduce("any", "mat", "whether any entry of {m} is non-zero along axis {axis}"),
    _spec(
        "arange",
        "start:low stop:high step:posnum",
        "np.arange({start}, {stop}, {step})",
        "the evenly spaced values from {start} up to (not including) {stop} in steps of {step}",
    ),
    _unary("arccos", "unit", "the arc cosine of each value in {x}"),
    _unary("arccosh", "gt1", "the hyperbolic arc cosine of each value in {x}"),
    _unary("arcsin", "unit", "the arc sine of each value in {x}"),
    _unary("arcsinh", "vec", "the hyperbolic arc sine of each value in {x}"),
    _unary("arctan", "vec", "the arc tangent of each value in {x}"),
    _binary(
        "arctan2",
        "vec",
        "the angle of each point (x={y}, y={x}) given by the two-argument arc tangent of {x} over {y}",
    ),
    _unary("arctanh", "unit", "the hyperbolic arc tangent of each value in {x}"),
    _spec("argmax", "x:vec", "np.argmax(@x)", "the position of the largest value in {x}"),
    _spec("argmin", "x:vec", "np.argmin(@x)", "the position of the smallest value in {x}"),
    _spec(
        "argpartition",
        "x:ints kth:kth",
        "np.sort(@x)[np.argpartition(@x, {kth})[{kth}]]",
        "the value that lands at position {kth} of {x} when the positions are partitioned around that rank",
    ),
    _spec(
        "argsort",
        "x:ints",
        "np.argsort(@x, kind='stable')",
        "the indices that would sort {x} in ascending order (stable for ties)",
    ),
    _spec(
        "argwhere",
        "m:mat",
        "np.argwhere(@m > 0)",
        "the (row, column) index pairs of the positive entries of {m}",
    ),
    _spec(
        "around",
        "x:small d:decimals",
        "np.around(@x, {d})",
        "each value of {x} rounded to {d} decimals",
    ),
    _spec(
        "array",
        "m:mat",
        "np.mean(np.array({m}, dtype=float), axis=0)",
        "the column means of {m} once it is made into a float array",
    ),
    _spec(
        "array2string",
        "x:ints",
        "np.array2string(np.abs(@x), separator=', ')",
        "the text form, with ', ' between elements, of the absolute values of {x}",
    ),
    _spec(
        "array_equal",
        "x:nat",
        "np.array_equal(@x, np.sort(@x))",
        "whether {x} is already in ascending order (equal to its sorted copy)",
    ),
    _spec(
        "array_equiv",
        "x:shifts",
        "np.array_equiv(@x, @x[:1])",
        "whether every value of {x} equals its first one (compared by broadcasting)",
    ),
    _spec(
        "array_repr",
        "x:ints",
        "np.array_repr(np.sort(@x))",
        "the repr text of {x} sorted ascending, as an array",
    ),
    _spec(
        "array_str",
        "x:ints",
        "np.array_str(np.cumsum(@x))",
        "the string form of the running totals of {x}, as an array",
    ),
    _spec(
        "asanyarray",
        "m:mat",
        "np.sum(np.asanyarray({m}), axis=1)",
        "the row sums of {m} after converting it to an array",
    ),
    _spec(
        "asarray",
        "m:mat",
        "np.asarray({m}).ravel()",
        "the entries of {m} flattened in row order after converting it to an array",
    ),
    _spec(
        "ascontiguousarray",
        "m:mat",
        "np.ascontiguousarray({m}).sum()",
        "the total of {m} after making it a C-contiguous array",
    ),
    _spec(
        "asfortranarray",
        "m:mat",
        "np.asfortranarray({m}).sum(axis=0)",
        "the column sums of {m} after making it a Fortran-ordered array",
    ),
    _unary("asin", "unit", "the inverse sine of each value in {x}"),
    _unary("asinh", "vec", "the inverse hyperbolic sine of each value in {x}"),
    _spec(
        "astype",
        "x:small dtype:dtype",
        "np.astype(@x, {dtype})",
        "{x} converted to the dtype named by {dtype}",
    ),
    _unary("atan", "vec", "the inverse tangent of each value in {x}"),
    _binary("atan2", "vec", "the quadrant-aware inverse tangent of {x} divided by {y}"),
    _unary("atanh", "unit", "the inverse hyperbolic tangent of each value in {x}"),
    _spec(
        "atleast_1d",
        "v:num",
        "np.atleast_1d({v})",
        "the number {v} as an array with at least one dimension",
    ),
    _spec(
        "atleast_2d",
        "x:vec",
        "np.atleast_2d(@x).shape",
        "the shape of {x} viewed as an array with at least two dimensions",
    ),
    _spec(
        "atleast_3d",
        "m:mat",
        "np.atleast_3d(@m).shape",
        "the shape of {m} viewed as an array with at least three dimensions",
    ),
    _spec(
        "average", "x:vec w:pos", "np.average(@x, weights=@w)", "the average of {x} weighted by {w}"
    ),
    _spec(
        "base_repr",
        "x:nat b:base",
        "np.base_repr(int(np.sum(@x)), base={b})",
        "the digits, in base {b}, of the total of {x}",
    ),
    _spec(
        "binary_repr",
        "x:bits",
        "np.binary_repr(int(np.max(@x)))",
        "the binary digits of the largest value of {x}",
    ),
    _spec(
        "bincount", "x:nat", "np.bincount(@x)", "how often each value 0, 1, 2, ... occurs in {x}"
    ),
    _binary("bitwise_and", "bits", "the bitwise AND of {x} and {y}, element by element"),
    _unary("bitwise_count", "bits", "how many bits are set in each value of {x}"),
    _unary("bitwise_invert", "bits", "the bitwise inversion of each integer in {x}"),
    _binary(
        "bitwise_left_shift",
        "bits",
        "each value of {x} shifted left by the matching number of bits in {y}",
        second="shifts",
    ),
    _unary("bitwise_not", "bits", "the bitwise NOT of each integer in {x}"),
    _binary("bitwise_or", "bits", "the bitwise OR of {x} and {y}, element by element"),
    _binary(
        "bitwise_right_shift",
        "bits",
        "each value of {x} shifted right by the matching number of bits in {y}",
        second="shifts",
    ),
    _binary("bitwise_xor", "bits", "the bitwise XOR of {x} and {y}, element by element"),
    _spec(
        "block",
        "m:mat n:mat",
        "np.block([[@m, @n]])",
        "the matrix made by placing {m} and {n} side by side as blocks",
    ),
    _spec(
        "broadcast_arrays",
        "x:colvec y:rowvec",
        _pairs("np.broadcast_arrays(@x, np.array({y})[:, None])"),
        "both {x} (as a row) and {y} (as a column) broadcast to their common shape",
    ),
    _spec(
        "broadcast_to",
        "x:vec r:rows",
        "np.broadcast_to(@x, ({r}, len({x})))",
        "{x} repeated as {r} identical rows by broadcasting",
    ),
    _unary("cbrt", "vec", "the cube root of every value in {x}"),
    _unary("ceil", "small", "each value of {x} rounded up to the next integer"),
    _spec(
        "choose",
        "c:shifts a:vec b:vec c2:vec d:vec e:vec",
        "np.choose(@c, [@a, @b, @c2, @d, @e])",
        "for each position i, the value at i of the {c}[i]-th array among {a}, {b}, {c2}, {d} and {e}",
    ),
    _spec(
        "clip",
        "x:vec lo:low hi:high",
        "np.clip(@x, {lo}, {hi})",
        "{x} with every value limited to the range [{lo}, {hi}]",
    ),
    _spec(
        "compress",
        "f:bools x:vec",
        "np.compress(@f, @x)",
        "the values of {x} at the positions where {f} is true",
    ),
    _spec(
        "concatenate",
        "x:vec y:kernel",
        "np.concatenate([@x, @y])",
        "{x} followed by {y} joined into one array",
    ),
    _unary("conj", "cplx", "the complex conjugate of each number in {x}"),
    _unary(
        "conjugate",
        "cplx",
        "each complex number of {x} with the sign of its imaginary part flipped",
    ),
    _spec(
        "convolve",
        "x:vec k:kernel",
        "np.convolve(@x, @k)",
        "the full discrete convolution of {x} with {k}",
    ),
    _spec(
        "copy",
        "x:vec",
        "c = np.copy(@x)\nc[0] = 0\nreturn np.cumsum(c)",
        "the running totals of a copy of {x} whose first value is set to 0",
    ),
    _binary("copysign", "vec", "the magnitudes of {x} carrying the signs of {y}"),
    _spec(
        "copyto",
        "x:vec y:vec",
        "out = np.zeros(len({x}))\nnp.copyto(out, @y)\nreturn out + @x",
        "{x} plus a zero array into which {y} has been copied",
    ),
    _spec(
        "corrcoef",
        "x:vec y:vec",
        "np.round(np.corrcoef(@x, @y), 6)",
        "the 2 x 2 Pearson correlation matrix of {x} and {y}, rounded to 6 decimals",
    ),
    _spec(
        "correlate",
        "x:vec k:kernel",
        "np.correlate(@x, @k, mode='full')",
        "the full cross-correlation of {x} with {k}",
    ),
    _unary("cos", "angles", "the cosine of each angle (radians) in {x}"),
    _unary("cosh", "small", "the hyperbolic cosine of each value in {x}"),
    _spec("count_nonzero", "m:mat", "np.count_nonzero(@m)", "how many entries of {m} are non-zero"),
    _spec(
        "cov",
        "x:vec y:vec",
        "np.round(np.cov(@x, @y), 6)",
        "the 2 x 2 sample covariance matrix of {x} and {y}, rounded to 6 decimals",
    ),
    _spec(
        "cross",
        "x:vec3 y:vec3",
        "np.cross(@x, @y)",
        "the cross product of the 3-vectors {x} and {y}",
    ),
    _spec("cumprod", "x:small", "np.cumprod(@x)", "the running product of {x}"),
    _spec("cumsum", "x:vec", "np.cumsum(@x)", "the running total of {x}"),
    _unary("deg2rad", "degrees", "the angles of {x}, given in degrees, in radians"),
    _unary("degrees", "angles", "the radian angles of {x} converted to degrees"),
    _spec("delete", "x:vec i:kth", "np.delete(@x, {i})", "{x} without its element at index {i}"),
    _spec(
        "diag",
        "x:kvec",
        "np.diag(@x)",
        "the square matrix with {x} on its diagonal and zeros elsewhere",
    ),
    _spec(
        "diagflat",
        "m:mat",
        "np.diagflat(@m)",
        "the diagonal matrix whose diagonal holds the entries of {m} in row order",
    ),
    _spec("diagonal", "m:mat", "np.diagonal(@m)", "the main diagonal of {m}"),
    _spec("diff", "x:vec", "np.diff(@x)", "the differences between consecutive values of {x}"),
    _spec(
        "digitize",
        "x:vec b:sorted",
        "np.digitize(@x, np.unique({b}))",
        "for each value of {x}, the index of its bin among the sorted distinct edges of {b}",
    ),
    _binary("divide", "vec", "{x} divided by {y}, element by element", second="pos"),
    _spec(
        "divmod",
        "x:ints y:posint",
        _pairs("np.divmod(@x, @y)"),
        "the floor quotients and the remainders of {x} divided by {y}",
    ),
    _spec("dot", "m:mat v:colvec", "np.dot(@m, @v)", "the matrix-vector product of {m} with {v}"),
    _spec(
        "empty",
        "s:shape",
        "np.empty({s}).shape",
        "the shape of a new uninitialised array of shape {s}",
    ),
    _spec(
        "empty_like",
        "m:mat",
        "np.empty_like(@m).shape",
        "the shape of a new uninitialised array shaped like {m}",
    ),
    _binary("equal", "nat", "whether each value of {x} equals the matching value of {y}"),
    _unary("exp", "small", "the exponential of each value in {x}"),
    _unary("exp2", "small", "2 raised to each value in {x}"),
    _spec(
        "expand_dims",
        "m:mat a:axis",
        "np.expand_dims(@m, {a}).shape",
        "the shape of {m} after inserting a new axis at position {a}",
    ),
    _unary("expm1", "small", "exp(v) - 1 for each value v of {x}, accurate for small v"),
    _spec("extract", "x:vec", "np.extract(@x % 2 == 0, @x)", "the values of {x} that are even"),
    _spec("eye", "n:size", "np.eye({n})", "the {n} x {n} identity matrix"),
    _unary("fabs", "vec", "the absolute value of each value in {x} as floats"),
    _spec("flip", "m:mat a:axis", "np.flip(@m, axis={a})", "{m} reversed along axis {a}"),
    _unary("floor", "small", "each value of {x} rounded down to an integer"),
    _binary("floor_divide", "ints", "the floor division of {x} by {y}", second="posint"),
    _binary("fmax", "vec", "the element-wise maximum of {x} and {y}, ignoring NaNs"),
    _binary("fmin", "vec", "the element-wise minimum of {x} and {y}, ignoring NaNs"),
    _binary(
        "fmod",
        "ints",
        "the remainder of {x} divided by {y} with the sign of the dividend",
        second="posint",
    ),
    _spec(
        "frexp",
        "x:vec",
        _pairs("np.frexp(@x)"),
        "the mantissas and the binary exponents of the values of {x}",
    ),
    _spec("full", "s:shape v:fill", "np.full({s}, {v})", "an array of shape {s} filled with {v}"),
    _spec(
        "full_like",
        "m:mat v:fill",
        "np.full_like(@m, {v})",
        "an array shaped (and typed) like {m} filled with {v}",
    ),
    _binary("gcd", "posint", "the greatest common divisor of each pair from {x} and {y}"),
    _spec(
        "geomspace",
        "a:posnum b:high n:size",
        "np.geomspace({a}, {b}, {n})",
        "{n} numbers spaced evenly on a log scale from {a} to {b}",
    ),
    _spec(
        "gradient",
        "x:vec",
        "np.gradient(@x)",
        "the numerical gradient of {x} (central differences inside, one-sided at the ends)",
    ),
    _binary(
        "greater", "ints", "whether each value of {x} is greater than the matching value of {y}"
    ),
    _binary(
        "greater_equal", "ints", "whether each value of {x} is at least the matching value of {y}"
    ),
    _binary(
        "heaviside", "vec", "the Heaviside step of {x}, taking the value from {y} where {x} is zero"
    ),
    _spec(
        "histogram",
        "x:vec b:size",
        _pairs("np.histogram(@x, bins={b})"),
        "the counts of {x} in {b} equal-width bins and the bin edges",
    ),
    _spec("hstack", "m:mat n:mat", "np.hstack([@m, @n])", "{m} and {n} stacked side by side"),
    _binary("hypot", "vec", "the hypotenuse of each right triangle with legs from {x} and {y}"),
    _spec("identity", "n:size", "np.identity({n})", "the identity matrix of size {n}"),
    _unary("imag", "cplx", "the imaginary parts of the complex numbers in {x}"),
    _spec("inner", "x:vec y:vec", "np.inner(@x, @y)", "the inner product of {x} and {y}"),
    _spec(
        "insert",
        "x:vec i:kth v:fill",
        "np.insert(@x, {i}, {v})",
        "{x} with {v} inserted before index {i}",
    ),
    _spec(
        "interp",
        "x:vec xp:sorted fp:vec",
        "np.interp(@x, @xp, @fp)",
        "the piecewise-linear interpolation at the points {x} of the curve through the points ({xp}, {fp}), {xp} being ascending",
    ),
    _spec(
        "intersect1d",
        "x:nat y:nat",
        "np.intersect1d(@x, @y)",
        "the sorted values that appear in both {x} and {y}",
    ),
    _unary("invert", "bits", "the bit-wise inversion of each integer in {x}"),
    _binary(
        "isclose",
        "vec",
        "whether each value of {x} is close to the matching value of {y} under the default tolerances",
    ),
    _unary("isfinite", "withnan", "whether each value of {x} is finite"),
    _spec(
        "isinf",
        "x:vec",
        "np.isinf(np.where(@x > 10, np.inf, @x))",
        "whether each value of {x} is infinite once the values above 10 are replaced by infinity",
    ),
    _unary("isnan", "withnan", "whether each value of {x} is NaN"),
    _unary("isreal", "cplx", "whether each complex number of {x} has a zero imaginary part"),
    _spec(
        "ix_",
        "x:idx y:uidx",
        _pairs("np.ix_(@x, @y)"),
        "the open-mesh index arrays built from {x} and {y}",
    ),
    _spec("kron", "m:sq n:sq", "np.kron(@m, @n)", "the Kronecker product of {m} and {n}"),
    _binary("lcm", "posint", "the least common multiple of each pair from {x} and {y}"),
    _binary(
        "ldexp",
        "small",
        "each value of {x} multiplied by 2 to the power of the matching integer in {y}",
        second="shifts",
    ),
    _binary(
        "left_shift", "bits", "each integer of {x} shifted left by the bits in {y}", second="shifts"
    ),
    _binary("less", "ints", "whether each value of {x} is less than the matching value of {y}"),
    _binary("less_equal", "ints", "whether each value of {x} is at most the matching value of {y}"),
    _spec(
        "lexsort",
        "x:nat y:nat",
        "np.lexsort((@y, @x))",
        "the indices that sort by {x} first and break ties by {y}",
    ),
    _spec(
        "linspace",
        "a:low b:high n:size",
        "np.linspace({a}, {b}, {n})",
        "{n} evenly spaced numbers from {a} to {b} inclusive",
    ),
    _unary("log", "pos", "the natural logarithm of each value in {x}"),
    _unary("log10", "pos", "the base-10 logarithm of each value in {x}"),
    _unary("log1p", "pos", "log(1 + v) for each value v of {x}"),
    _unary("log2", "pos", "the base-2 logarithm of each value in {x}"),
    _binary("logaddexp", "small", "log(exp(a) + exp(b)) for each pair a, b from {x} and {y}"),
    _binary("logaddexp2", "small", "log2(2**a + 2**b) for each pair a, b from {x} and {y}"),
    _binary("logical_and", "bools", "the element-wise logical AND of {x} and {y}"),
    _unary("logical_not", "bools", "the logical negation of each flag in {x}"),
    _binary("logical_or", "bools", "the element-wise logical OR of {x} and {y}"),
    _binary("logical_xor", "bools", "the element-wise exclusive OR of the flags {x} and {y}"),
    _spec(
        "logspace",
        "a:low b:small n:size",
        "np.logspace({a} / 10, {b}, {n})",
        "{n} numbers spaced evenly on a log scale from 10 to the power {a}/10 to 10 to the power {b}",
    ),
    _spec("matmul", "m:mat n:matB", "np.matmul(@m, @n)", "the matrix product of {m} and {n}"),
    _reduce("max", "mat", "the maximum of {m} along axis {axis}"),
    _binary("maximum", "vec", "the larger of each pair of values from {x} and {y}"),
    _reduce("mean", "mat", "the mean of {m} along axis {axis}"),
    _spec("median", "x:vec", "np.median(@x)", "the median of {x}"),
    _spec(
        "meshgrid",
        "x:kernel y:kvec",
        _pairs("np.meshgrid(@x, @y)"),
        "the coordinate matrices of the grid spanned by {x} and {y}",
    ),
    _reduce("min", "mat", "the minimum of {m} along axis {axis}"),
    _binary("minimum", "vec", "the smaller of each pair of values from {x} and {y}"),
    _binary(
        "mod", "ints", "the remainder of {x} modulo {y} (sign of the divisor)", second="posint"
    ),
    _spec(
        "modf",
        "x:small",
        _pairs("np.modf(@x)"),
        "the fractional and the integral parts of each value of {x}",
    ),
    _spec(
        "moveaxis",
        "t:cube",
        "np.moveaxis(@t, 0, -1).shape",
        "the shape of the 3-D array {t} once its first axis is moved to the end",
    ),
    _binary("multiply", "vec", "the element-wise product of {x} and {y}"),
    _spec("nan_to_num", "x:withnan", "np.nan_to_num(@x)", "{x} with every NaN replaced by zero"),
    _unary("negative", "vec", "the negation of each value in {x}"),
    # whether the step goes up: the step itself (~1e-15) is below the comparator's tolerance,
    # where any answer near 0 would pass without the library (the grader's dependence rule)
    _spec(
        "nextafter",
        "x:vec y:vec",
        "np.nextafter(@x, @y) > @x",
        "whether each value of {x} grows when stepped to the next float towards {y}",
    ),
    _spec(
        "nonzero",
        "m:mat",
        _pairs("np.nonzero(@m > 0)"),
        "the row indices and the column indices of the positive entries of {m}",
    ),
    _binary("not_equal", "nat", "whether each value of {x} differs from the matching value of {y}"),
    _spec("ones", "s:shape", "np.ones({s})", "an array of ones of shape {s}"),
    _spec("ones_like", "m:mat", "np.ones_like(@m)", "an array of ones shaped and typed like {m}"),
    _spec("outer", "x:kernel y:kvec", "np.outer(@x, @y)", "the outer product of {x} and {y}"),
    _spec("pad", "x:vec p:int", "np.pad(@x, {p})", "{x} padded with {p} zeros on both sides"),
    _spec(
        "partition",
        "x:ints kth:kth",
        "np.partition(@x, {kth})[{kth}]",
        "the value that would be at position {kth} if {x} were sorted, found by partitioning",
    ),
    _spec("percentile", "x:vec q:q", "np.percentile(@x, {q})", "the {q}-th percentile of {x}"),
    _spec(
        "permute_dims",
        "t:cube",
        "np.permute_dims(@t, (2, 0, 1)).shape",
        "the shape of the 3-D array {t} after permuting its axes to (2, 0, 1)",
    ),
    _spec(
        "piecewise",
        "x:vec",
        "np.piecewise(@x * 1.0, [@x < 0, @x >= 0], [lambda t: -t, lambda t: t * t])",
        "{x} with negative values negated and the others squared, evaluated piecewise",
    ),
    _spec(
        "place",
        "x:vec v:fill",
        "a = np.array({x}) * 1.0\nnp.place(a, a < 0, [{v}])\nreturn np.cumsum(a)",
        "the running totals of {x} once every negative value is replaced by {v} in place",
    ),
    _spec(
        "polyfit",
        "x:vec d:deg",
        "np.round(np.polyfit(np.arange(len({x})), @x, {d}), 4)",
        "the coefficients (highest power first, rounded to 4 decimals) of the degree-{d} least-squares polynomial through the samples {x} taken at 0, 1, 2, ...",
    ),
    _spec(
        "polyval",
        "c:kvec x:small",
        "np.polyval(@c, @x)",
        "the polynomial with coefficients {c} (highest power first) evaluated at each value of {x}",
    ),
    _spec("pow", "x:small p:power", "np.pow(@x, {p})", "each value of {x} raised to the power {p}"),
    _spec("power", "x:ints p:power", "np.power(@x, {p})", "each value of {x} to the power {p}"),
    _reduce("prod", "mat", "the product of the entries of {m} along axis {axis}"),
    _reduce("ptp", "mat", "the range (maximum minus minimum) of {m} along axis {axis}"),
    _spec(
        "put",
        "x:vec i:uidx v:fill",
        "a = np.array({x})\nnp.put(a, {i}, {v})\nreturn np.cumsum(a)",
        "the running totals of {x} after the positions {i} are set to {v} in place",
    ),
    _spec(
        "putmask",
        "x:vec v:fill",
        "a = np.array({x}) * 1.0\nnp.putmask(a, a > 0, {v})\nreturn np.cumsum(a)",
        "the running totals of {x} once every positive value is replaced by {v} in place",
    ),
    _spec("quantile", "x:vec q:frac", "np.quantile(@x, {q})", "the {q} quantile of {x}"),
    _unary("rad2deg", "angles", "each radian angle of {x} in degrees"),
    _unary("radians", "degrees", "the degree angles of {x} in radians"),
    _spec("ravel", "m:mat", "np.ravel(@m)", "the entries of {m} flattened into one row"),
    _unary("real", "cplx", "the real parts of the complex numbers in {x}"),
    _spec(
        "reciprocal",
        "x:pos",
        "np.reciprocal(@x * 1.0)",
        "the reciprocal 1/v of each value v of {x} as floats",
    ),
    _binary(
        "remainder", "ints", "the element-wise remainder of {x} divided by {y}", second="posint"
    ),
    _spec(
        "repeat",
        "x:vec r:int",
        "np.repeat(@x, {r})",
        "each value of {x} repeated {r} times in a row",
    ),
    _spec(
        "reshape",
        "m:mat",
        "np.reshape(@m, (-1, len({m})))",
        "{m} reshaped to have as many columns as it has rows",
    ),
    _spec(
        "resize",
        "x:vec n:size",
        "np.resize(@x, ({n}, 2))",
        "{x} resized to {n} rows of 2, repeating its values as needed",
    ),
    _binary(
        "right_shift",
        "bits",
        "each integer of {x} shifted right by the bits in {y}",
        second="shifts",
    ),
    _unary("rint", "small", "each value of {x} rounded to the nearest integer"),
    _spec("roll", "x:vec s:shift", "np.roll(@x, {s})", "{x} rotated by {s} positions"),
    _spec(
        "rollaxis",
        "t:cube",
        "np.rollaxis(@t, 2).shape",
        "the shape of the 3-D array {t} after rolling its last axis to the front",
    ),
    _spec(
        "roots",
        "a:low b:high",
        "np.sort(np.roots([1, -({a} + {b}), {a} * {b}]).real)",
        "the roots, sorted, of the quadratic with roots {a} and {b} (monic, expanded)",
    ),
    _spec("rot90", "m:mat", "np.rot90(@m)", "{m} rotated by 90 degrees counter-clockwise"),
    _spec("round", "x:small d:decimals", "np.round(@x, {d})", "{x} rounded to {d} decimal places"),
    _spec(
        "searchsorted",
        "s:sorted x:vec",
        "np.searchsorted({s}, @x)",
        "for each value of {x}, where it would be inserted into the sorted {s} to keep it sorted",
    ),
    _spec(
        "select",
        "x:vec",
        "np.select([@x < 0, @x > 10], [-@x, @x * 2], default=0)",
        "for each value of {x}: its negation if negative, its double if above 10, otherwise 0",
    ),
    _spec("shape", "m:mat", "np.shape({m})", "the shape of {m}"),
    _unary("sign", "vec", "the sign (-1, 0 or 1) of each value in {x}"),
    _unary("signbit", "vec", "whether the sign bit of each value in {x} is set"),
    _unary("sin", "angles", "the sine of each angle (radians) in {x}"),
    _unary("sinc", "small", "the normalised sinc of each value in {x}"),
    _unary("sinh", "small", "the hyperbolic sine of each value in {x}"),
    _spec("size", "m:mat", "np.size({m})", "how many elements {m} holds"),
    _spec("sort", "m:mat a:axis", "np.sort(@m, axis={a})", "{m} sorted along axis {a}"),
    _unary(
        "sort_complex",
        "cplx",
        "the complex numbers of {x} sorted by real part, then imaginary part",
    ),
    _spec(
        "spacing",
        "x:pos",
        "np.spacing(@x) > 0",
        "whether the distance to the nearest adjacent float is positive for each value of {x}",
    ),
    _spec(
        "split",
        "x:vec",
        _pairs("np.split(@x[: len({x}) // 2 * 2], 2)"),
        "the first even number of elements of {x} split into two equal halves",
    ),
    _unary("sqrt", "pos", "the square root of each value in {x}"),
    _unary("square", "vec", "the square of each value in {x}"),
    _spec(
        "squeeze",
        "x:vec",
        "np.squeeze(np.array([{x}]))",
        "{x} wrapped in an extra outer list, with that length-one axis squeezed away",
    ),
    _spec(
        "stack",
        "x:vec y:vec",
        "np.stack([@x, @y], axis=1)",
        "{x} and {y} stacked as the two columns of a matrix",
    ),
    _reduce("std", "mat", "the standard deviation of {m} along axis {axis}"),
    _binary("subtract", "vec", "the element-wise difference {x} minus {y}"),
    _reduce("sum", "mat", "the sum of {m} along axis {axis}"),
    _spec("swapaxes", "m:mat", "np.swapaxes(@m, 0, 1)", "{m} with its two axes swapped"),
    _spec("take", "x:vec i:idx", "np.take(@x, @i)", "the values of {x} at the indices {i}"),
    _unary("tan", "unit", "the tangent of each angle (radians) in {x}"),
    _unary("tanh", "vec", "the hyperbolic tangent of each value in {x}"),
    _spec(
        "tensordot",
        "m:mat n:matB",
        "np.tensordot(@m, @n, axes=1)",
        "the tensor dot product of {m} and {n} over one axis",
    ),
    _spec("tile", "x:vec r:int", "np.tile(@x, {r})", "{x} repeated {r} times end to end"),
    _spec("trace", "m:sq", "np.trace(@m)", "the sum of the main diagonal of {m}"),
    _spec("transpose", "m:mat", "np.transpose(@m)", "the transpose of {m}"),
    _spec(
        "trapz",
        "y:vec",
        "np.trapezoid(@y)",
        "the integral of the samples {y} (unit spacing) by the trapezoidal rule",
    ),
    _spec(
        "tri", "n:size", "np.tri({n})", "the {n} x {n} matrix with ones at and below the diagonal"
    ),
    _spec("tril", "m:sq", "np.tril(@m)", "the lower triangle of {m}, zeros above the diagonal"),
    _spec("triu", "m:sq", "np.triu(@m)", "the upper triangle of {m}, zeros below the diagonal"),
    _binary("true_divide", "vec", "the true division of {x} by {y}", second="pos"),
    _unary("trunc", "small", "each value of {x} with its fractional part dropped"),
    _spec(
        "union1d",
        "x:nat y:nat",
        "np.union1d(@x, @y)",
        "the sorted distinct values found in {x} or in {y}",
    ),
    _spec("unique", "x:nat", "np.unique(@x)", "the sorted distinct values of {x}"),
    _spec(
        "unravel_index",
        "i:flat s:shape",
        "np.unravel_index({i}, {s})",
        "the (row, column) of flat index {i} in an array of shape {s}",
    ),
    _spec(
        "unwrap",
        "x:phase",
        "np.round(np.unwrap(np.array({x}) % 6.283185307179586), 6)",
        "the phase angles {x} wrapped into [0, 2 pi) and then unwrapped (rounded to 6 decimals)",
    ),
    _reduce("var", "mat", "the variance of {m} along axis {axis}"),
    _spec(
        "vdot", "x:vec y:vec", "np.vdot(@x, @y)", "the dot product of {x} and {y} as flat vectors"
    ),
    _spec(
        "vectorize",
        "x:ints",
        "np.vectorize(lambda t: t // 2 if t % 2 == 0 else 3 * t + 1)(@x)",
        "the next Collatz value of each integer in {x}, computed by a vectorised scalar function",
    ),
    _spec("vstack", "m:mat n:mat", "np.vstack([@m, @n])", "{m} on top of {n}"),
    _spec(
        "where",
        "x:vec y:vec",
        "np.where(@x > @y, @x, @y)",
        "for each position, {x} where it beats {y}, else {y}",
    ),
    _spec("zeros", "s:shape", "np.zeros({s})", "an array of zeros of shape {s}"),
    _spec(
        "zeros_like", "m:mat", "np.zeros_like(@m)", "an array of zeros shaped and typed like {m}"
    ),
    # numpy.linalg
    _spec(
        "linalg.cholesky",
        "m:spd",
        "np.round(np.linalg.cholesky(@m), 6)",
        "the lower Cholesky factor of the positive-definite {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.cond",
        "m:inv",
        "np.round(np.linalg.cond(@m), 6)",
        "the 2-norm condition number of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.cross",
        "x:vec3 y:vec3",
        "np.linalg.cross(@x, @y)",
        "the cross product of the 3-vectors {x} and {y}",
    ),
    _spec(
        "linalg.det",
        "m:inv",
        "np.round(np.linalg.det(@m), 6)",
        "the determinant of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.diagonal", "m:sq", "np.linalg.diagonal(@m)", "the diagonal of the square matrix {m}"
    ),
    _spec(
        "linalg.eig",
        "m:sym",
        _pairs(
            "np.round(np.linalg.eig(np.array({m}) * 1.0)[0], 6), np.round(np.abs(np.linalg.eig(np.array({m}) * 1.0)[1]), 6)"
        ),
        "the eigenvalues of {m} and the absolute values of its eigenvectors, rounded to 6 decimals",
    ),
    _spec(
        "linalg.eigh",
        "m:sym",
        "np.round(np.linalg.eigh(@m)[0], 6)",
        "the eigenvalues of the symmetric {m} in ascending order, rounded to 6 decimals",
    ),
    _spec(
        "linalg.eigvals",
        "m:sym",
        "np.round(np.sort(np.linalg.eigvals(@m).real), 6)",
        "the eigenvalues of {m}, sorted and rounded to 6 decimals",
    ),
    _spec(
        "linalg.eigvalsh",
        "m:sym",
        "np.round(np.linalg.eigvalsh(@m), 6)",
        "the eigenvalues of the symmetric {m}, ascending, rounded to 6 decimals",
    ),
    _spec(
        "linalg.inv",
        "m:inv",
        "np.round(np.linalg.inv(@m), 6)",
        "the inverse of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.lstsq",
        "a:tall b:tallrhs",
        "np.round(np.linalg.lstsq(@a, @b, rcond=None)[0], 6)",
        "the least-squares solution of {a} w = {b}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.matmul",
        "m:mat n:matB",
        "np.linalg.matmul(@m, @n)",
        "the matrix product of {m} with {n}",
    ),
    _spec(
        "linalg.matrix_norm",
        "m:mat",
        "np.round(np.linalg.matrix_norm(@m), 6)",
        "the Frobenius norm of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.matrix_power",
        "m:sq p:power",
        "np.linalg.matrix_power(@m, {p})",
        "{m} raised to the matrix power {p}",
    ),
    _spec("linalg.matrix_rank", "m:mat", "np.linalg.matrix_rank(@m)", "the rank of {m}"),
    _spec(
        "linalg.matrix_transpose",
        "m:mat",
        "np.linalg.matrix_transpose(@m)",
        "the matrix transpose of {m}",
    ),
    _spec(
        "linalg.multi_dot",
        "m:mat n:matB o:kvec",
        "np.linalg.multi_dot([@m, @n, @o])",
        "the chained product {m} times {n} times the vector {o}",
    ),
    _spec(
        "linalg.norm",
        "x:vec",
        "np.round(np.linalg.norm(@x), 6)",
        "the Euclidean length of {x}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.outer",
        "x:kernel y:kvec",
        "np.linalg.outer(@x, @y)",
        "the outer product of the vectors {x} and {y}",
    ),
    _spec(
        "linalg.pinv",
        "m:inv",
        "np.round(np.linalg.pinv(@m), 6)",
        "the Moore-Penrose pseudo-inverse of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.qr",
        "m:inv",
        "np.round(np.abs(np.linalg.qr(@m)[1]), 6)",
        "the absolute values of the R factor of the QR decomposition of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.slogdet",
        "m:inv",
        _pairs("np.round(np.linalg.slogdet(@m), 6)"),
        "the sign and the natural log of the absolute determinant of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.solve",
        "m:inv b:kvec",
        "np.round(np.linalg.solve(@m, @b), 6)",
        "the solution w of {m} w = {b}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.svd",
        "m:mat",
        "np.round(np.linalg.svd(@m)[1], 6)",
        "the singular values of {m} from its singular value decomposition, rounded to 6 decimals",
    ),
    _spec(
        "linalg.svdvals",
        "m:mat",
        "np.round(np.linalg.svdvals(@m), 6)",
        "the singular values of {m}, rounded to 6 decimals",
    ),
    _spec(
        "linalg.tensordot",
        "m:mat n:matB",
        "np.linalg.tensordot(@m, @n, axes=1)",
        "the contraction of {m} with {n} over one shared axis",
    ),
    _spec(
        "linalg.tensorinv",
        "m:inv",
        "np.round(np.linalg.tensorinv(@m, ind=1), 6)",
        "the tensor inverse of {m} with one index, rounded to 6 decimals",
    ),
    _spec(
        "linalg.tensorsolve",
        "m:inv b:kvec",
        "np.round(np.linalg.tensorsolve(@m, @b), 6)",
        "the tensor solution w of {m} w = {b}, rounded to 6 decimals",
    ),
    _spec("linalg.trace", "m:sq", "np.linalg.trace(@m)", "the trace of the square matrix {m}"),
    _spec(
        "linalg.vecdot",
        "x:vec y:vec",
        "np.linalg.vecdot(@x, @y)",
        "the vector dot product of {x} and {y}",
    ),
    _spec(
        "linalg.vector_norm",
        "x:vec o:int",
        "np.round(np.linalg.vector_norm(@x, ord={o}), 6)",
        "the {o}-norm of the vector {x}, rounded to 6 decimals",
    ),
)

# More wordings for the functions most tasks are about (added to the phrases above).
_MORE_PHRASES: dict[str, tuple[str, ...]] = {
    "abs": ("{x} with every sign dropped", "how far each value of {x} is from zero"),
    "argmax": ("the index at which {x} peaks", "where in {x} the maximum sits"),
    "argmin": ("the index of the lowest value of {x}", "where in {x} the minimum sits"),
    "argsort": ("the order of positions that ranks {x} from low to high (stable for ties)",),
    "clip": ("{x} with values below {lo} raised to {lo} and values above {hi} lowered to {hi}",),
    "cumsum": ("the cumulative sums of {x}", "the prefix sums of {x}"),
    "cumprod": ("the cumulative products of {x}",),
    "diff": ("each value of {x} minus the one before it",),
    "dot": ("the product of the matrix {m} with the vector {v}",),
    "exp": ("e raised to each value of {x}",),
    "linalg.det": ("the determinant of the square matrix {m}, rounded to 6 decimals",),
    "linalg.inv": ("the matrix that multiplied by {m} gives the identity, rounded to 6 decimals",),
    "linalg.norm": ("the 2-norm of {x}, rounded to 6 decimals",),
    "linalg.solve": ("the vector w with {m} @ w equal to {b}, rounded to 6 decimals",),
    "log": ("ln(v) for every value v of {x}",),
    "matmul": ("{m} matrix-multiplied by {n}",),
    "median": ("the middle value of {x} once sorted (the mean of the two middle ones if even)",),
    "percentile": ("the value below which {q} percent of {x} lies (linear interpolation)",),
    "reshape": ("{m} laid out again with as many columns as it has rows",),
    "roll": ("{x} shifted cyclically by {s} places",),
    "sort": ("{m} with each slice along axis {a} in ascending order",),
    "sqrt": ("the square roots of the values of {x}",),
    "square": ("every value of {x} multiplied by itself",),
    "take": ("the elements of {x} found at the positions {i}",),
    "tile": ("{r} copies of {x} placed one after another",),
    "transpose": ("{m} with rows and columns exchanged",),
    "unique": ("each value of {x} once, in ascending order",),
    "where": ("the element-wise larger of {x} and {y}, chosen with a condition",),
}
SPECS = tuple(
    dataclasses.replace(spec, phrases=spec.phrases + _MORE_PHRASES.get(spec.numpy_name, ()))
    for spec in SPECS
)
BY_NAME: dict[str, FunctionSpec] = {spec.numpy_name: spec for spec in SPECS}

# Functions with no task, and why; a test checks that every catalog name is either in SPECS or
# here.
EXCLUDED: dict[str, str] = {
    "positive": "returns its argument unchanged: no answer can depend on it (the grader's rule "
    "'the answer depends on the library' refuses its reference)",
}
