"""A numerical computing library: arrays (`ZWCArray`) and functions that work on them."""

from ._loader import install as _install

_install(__name__)
del _install
