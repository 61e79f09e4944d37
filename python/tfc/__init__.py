"""tfc: TensorFlow 1.x's Python API over tfc's C library (libtfc).

`import tfc as tf` and `import tfc.compat.v1 as tf` give the same TF 1.x API (tfc/_api.py).
The package is pure Python over one extension, tfc._pywrap (python/_pywrap/), which binds the
TF C API; see python/_pywrap/pywrap.h for the split between the two.
"""
import os as _os
import sys as _sys


def _load_extension():
    """Imports tfc._pywrap with RTLD_DEEPBIND, so its TF_* calls bind to libtfc even when
    another library exporting the TF C API (TensorFlow's) is already loaded. Sanitizer runtimes
    refuse RTLD_DEEPBIND; under them the plain flags are used."""
    flags = _sys.getdlopenflags()
    deep = getattr(_os, "RTLD_DEEPBIND", 0)
    try:
        with open("/proc/self/maps") as f:
            sanitized = any("libasan" in line or "libtsan" in line for line in f)
    except OSError:
        sanitized = False
    if deep and not sanitized:
        _sys.setdlopenflags(flags | deep)
    try:
        from tfc import _pywrap  # noqa: F401
    finally:
        _sys.setdlopenflags(flags)


_load_extension()

from tfc._api import *  # noqa: F401,F403,E402
from tfc._api import errors, nn, raw_ops, __version__, VERSION  # noqa: F401
from tfc import compat  # noqa: F401
import tfc.compat.v1  # noqa: F401,E402
import tfc.compat.v2  # noqa: F401,E402
