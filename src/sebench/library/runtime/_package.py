"""The module type of the package and its linalg submodule: only public names are reachable.

The package's namespace also holds its private submodules (set there by the import system); this
type refuses every underscore name except the few the import system and `help()` need, so
`pkg._loader`, `pkg.__dict__` or `vars(pkg)` hand out nothing. It imports nothing itself, so the
globals of its methods lead nowhere either.
"""

from types import ModuleType

# __spec__ and __path__: the import system reads them to import submodules; __file__, __name__,
# __doc__: help() and inspect; __all__: star imports.
_ALLOWED = frozenset(
    (
        "__name__",
        "__doc__",
        "__spec__",
        "__path__",
        "__file__",
        "__package__",
        "__all__",
        "__class__",
        "__dir__",
    )
)


class Package(ModuleType):
    __slots__ = ()

    def __getattribute__(self, name):
        if name[:1] == "_" and name not in _ALLOWED:
            module = ModuleType.__getattribute__(self, "__name__")
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        return ModuleType.__getattribute__(self, name)

    def __dir__(self):
        return sorted(ModuleType.__getattribute__(self, "__all__"))
