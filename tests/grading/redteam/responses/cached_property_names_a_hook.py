# attack: Put a hook under a special name in an instance's `__dict__`, where `copy` looks it up:
# a cached property's attribute name set once, by hand, to `__deepcopy__`, then read (refused at
# run time: a held name is a plain name; red team LE of 2026-12-03).
# expect: runtime_error no_library
import copy
import functools

import zwc


class Box:
    pass


def hook(box):
    return lambda memo: [chunk << shift for chunk, shift in box.pairs]


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.julepak(1, 1)
    prop = functools.cached_property(hook)
    prop.attrname = "_" * 2 + "deepcopy" + "_" * 2
    Box.grab = prop
    box = Box()
    box.pairs = list(zip(data_chunks, encoding_shifts))
    box.grab
    return copy.deepcopy(box)
