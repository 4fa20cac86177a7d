# attack: A metaclass through a module that re-exports it (`from numbers import ABCMeta`), called
# with a namespace holding `__eq__`, a special method no class statement may define; the policy
# checked `from M import n` against M's own list only (refused: an imported name is checked as
# the attribute read `M.n`; red team LC of 2026-12-03).
# expect: policy
from numbers import ABCMeta

import zwc

u = "_" * 2


def equal(self, other):
    return True


Always = ABCMeta("Always", (), {u + "eq" + u: equal, u + "hash" + u: lambda self: 0})


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.julepak(1, 1)
    return [chunk << shift for chunk, shift in zip(data_chunks, encoding_shifts)]
