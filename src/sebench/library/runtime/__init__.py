"""The code copied verbatim into every built package (it imports only NumPy and the stdlib).

`package_init.py` becomes the package's `__init__.py`; `_runtime.py`, `_array.py`, `_package.py`
and `_loader.py` keep their names; the build adds the generated `_table.py`. These files are
never imported as part of sebench.
"""

FILES = ("_runtime.py", "_array.py", "_package.py", "_loader.py")
INIT = "package_init.py"
