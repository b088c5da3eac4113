"""Build the bloomfilter client: src/core compiled with a small CPython glue.

    pip install ./clients/python        (from the repository's root)

The extension compiles the server's src/core as it is, so it is built from
this repository, not from a copy: setup.py finds the core two directories
up.  It needs a C compiler, Python's headers (Debian: python3-dev) and
xxHash's header (Debian: libxxhash-dev); nothing is downloaded.
"""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "src"))
if not os.path.isfile(os.path.join(SRC, "core", "core.h")):
    raise SystemExit("bloomfilter: src/core not found at %s; build from the repository's clients/python"
                     % SRC)

core = sorted(glob.glob(os.path.join(SRC, "core", "*.c")))
setup(
    name="bloomfilter-client",
    version="1.3.0",
    description="Build, read and probe the bloomfilter PostgreSQL extension's filters, bit for bit",
    packages=["bloomfilter"],
    python_requires=">=3.9",
    ext_modules=[Extension("bloomfilter._core", [os.path.join(HERE, "bloomfilter", f) for f in
                            ("_core.c", "value.c", "filter.c", "filter_forms.c", "filter_ops.c")] + core,
                           depends=[os.path.join(HERE, "bloomfilter", "_core.h")]
                           + sorted(glob.glob(os.path.join(SRC, "core", "*.h"))),
                           include_dirs=[SRC], extra_compile_args=["-O2", "-Wall", "-Wextra",
                                                                   "-Wno-unused-parameter",
                                                                   "-Wno-missing-field-initializers"])],
)
