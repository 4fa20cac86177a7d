"""Only the optional C extension; everything else is in pyproject.toml.

`_confine` (a child's set-up after the fork, see its source) is optional: without a C compiler
the install still succeeds and the sandbox uses its Python path (`sebench doctor` says which).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sebench.grading.sandbox._confine",
            ["src/sebench/grading/sandbox/_confine.c"],
            optional=True,
        )
    ]
)
