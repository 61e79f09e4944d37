"""tfc: TensorFlow 1.x's Python API over tfc's C library (libtfc).

`import tfc as tf` and `import tfc.compat.v1 as tf` give the same TF 1.x API (tfc/_api.py).
The package is pure Python over one extension, tfc._pywrap (python/_pywrap/), which binds the
TF C API; see python/_pywrap/pywrap.h for the split between the two.
"""
from tfc._api import *  # noqa: F401,F403
from tfc._api import errors, nn, raw_ops, __version__, VERSION  # noqa: F401
from tfc import compat  # noqa: F401
import tfc.compat.v1  # noqa: F401,E402
