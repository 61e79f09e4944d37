"""The TF 1.x API: `import tfc.compat.v1 as tf`. The same names as `import tfc as tf`."""
from tfc._api import *  # noqa: F401,F403
from tfc._api import errors, nn, raw_ops, __version__, VERSION  # noqa: F401
from tfc import compat  # noqa: F401
