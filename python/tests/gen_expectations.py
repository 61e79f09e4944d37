"""Records what TensorFlow (tensorflow.compat.v1, graph mode) gives for every program of
programs.py and of each programs_<area>.py into expectations.json / expectations_<area>.json.
Run in development only: python3 python/tests/gen_expectations.py [programs_<area> ...]
(no argument: every module). CI never needs TensorFlow; test_differential.py compares tfc
against the committed files.
"""
import importlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers (programs_layers) needs tf_keras

import programs  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_v2_behavior()



def recorded(prog):
    """run_program's result, with the Python frames TF 2.x puts in runtime errors left out
    (they name files of the machine that recorded them)."""
    r = programs.run_program(tf, prog)
    if "error" in r:
        r["error"][1] = re.sub(r'\n {4}File "[^"]*", line \d+, in [^\n]*', "", r["error"][1])
    return r


for name in sys.argv[1:] or programs.program_modules():
    mod = importlib.import_module(name)
    out = {"tensorflow": tf.__version__ if hasattr(tf, "__version__") else "",
           "programs": {p.__name__: recorded(p) for p in mod.PROGRAMS}}
    path = os.path.join(HERE, programs.expectations_file(name))
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    print("wrote %s (%d programs)" % (path, len(out["programs"])))
