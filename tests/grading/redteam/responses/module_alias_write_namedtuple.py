# attack: Rebind names of the `collections` module through a local name (`m = collections`), so
# that `namedtuple` evals text the program wrote (a StrEnum member whose `isidentifier` says yes)
# and hands out the builtins and the library's name table (refused: a module is used only as
# `module.name`; red team HB of 2026-12-03).
# expect: policy
import collections, enum, typing, zwc

u = "_" * 2


def d(name):
    return u + name + u


class HBSink:
    box = []

    def grab(self):
        return 0


HB = "[c for c in _tuple_new." + d("self") + "." + d("base") + "." + d("subclasses") + "() if c." + d("name") + " == 'HBSink'][0]"
TY = HB + ".grab." + d("globals") + "['typing'].cast." + d("globals")
EXPR = HB + ".box.append((" + TY + "['sys'].modules['zwc._table'], " + TY + "['" + d("builtins") + "']))"


class Field(enum.StrEnum):          # a str subclass the policy allows
    A = "a=(" + EXPR + "): a #"

    def isidentifier(self):
        return True


def fake_type(*args):
    return str


def fake_map(function, items):
    return items


m = collections                     # a local name: the import-write check resolves only spellings
m.type = fake_type                  # namedtuple's `type(name) is not str`
m.map = fake_map                    # skips `map(str, ...)` and `map(_sys.intern, ...)`
try:
    collections.namedtuple("P", [Field.A], module="m")   # evals its field text
except Exception as e:
    HBSink.box.append(repr(e))
del m.type, m.map                   # put namedtuple back as it was
tab, bi = HBSink.box[0]
ga = bi["getattr"]
table = dict(ga(tab, "TOP_LEVEL"))


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return ga(zwc, table["bitwise_left_shift"])(data_chunks, encoding_shifts)
