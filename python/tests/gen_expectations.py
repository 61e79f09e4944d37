"""Records what TensorFlow (tensorflow.compat.v1, graph mode) gives for every program in
programs.py into expectations.json. Run in development only: python3 python/tests/gen_expectations.py
CI never needs TensorFlow; test_differential.py compares tfc against the committed file.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import programs  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_v2_behavior()

out = {"tensorflow": tf.__version__ if hasattr(tf, "__version__") else "",
       "programs": {p.__name__: programs.run_program(tf, p) for p in programs.PROGRAMS}}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expectations.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True, default=str)
    f.write("\n")
print("wrote %s (%d programs)" % (path, len(out["programs"])))
