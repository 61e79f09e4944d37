"""tfc against TensorFlow: every program of programs.py and of each programs_<area>.py,
compared with what TensorFlow gave (expectations.json / expectations_<area>.json, recorded by
gen_expectations.py; CI does not need TensorFlow).

The recording comes from TensorFlow 2.x's tf.compat.v1 in graph mode. Where 2.x changed a text
or a name that TF 1.15 had, tfc keeps 1.15's (the API facts are 1.15's) and TF115 below gives
1.15's value for that one entry; everything else must be equal. Runtime errors (OpError
subclasses) must have the same class, and tfc's first message line must be in TF's message
(2.x wraps it in a "Graph execution error" preamble with Python frames).
"""
import importlib
import json
import os

import pytest

import programs
import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = [importlib.import_module(m) for m in programs.program_modules()]
EXPECTED = {}
for _m in MODULES:
    with open(os.path.join(HERE, programs.expectations_file(_m.__name__))) as _f:
        EXPECTED[_m.__name__] = json.load(_f)["programs"]
CASES = [(m, p) for m in MODULES for p in m.PROGRAMS]


def _err(cls, msg):
    return {"error": [cls, msg]}


def _naming(e):
    # tf.add is Add in 1.15 (2.x's compat.v1 builds AddV2)
    e["result"]["ops"][4][1] = "Add"


def _tensor_misuse(e):
    r = e["result"]
    r["bool"][1] = ("using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. "
                    "Use Eager execution or decorate this function with @tf.function.")
    r["iter"][1] = ("iterating over `tf.Tensor` is not allowed in Graph execution. "
                    "Use Eager execution or decorate this function with @tf.function.")
    r["set_shape"][1] = "Shapes (?, 3) and (4,) are not compatible"  # 1.15 merges in Python
    r["len"][1] = ("len is not well defined for symbolic Tensors. (x:0) Please call `x.shape` rather "
                   "than `len(x)` for shape information.")


def _dtypes(e):
    e["result"]["int"] = "Cannot convert value <class 'int'> to a TensorFlow DType."


_FETCH = "Fetch argument %r cannot be interpreted as a Tensor. (%s)"
TF115 = {
    "naming": _naming,
    "tensor_misuse": _tensor_misuse,
    "dtypes": _dtypes,
    "constant_too_many": _err("ValueError", "Too many elements provided. Needed at most 4, but received 6"),
    "constant_bad_type": _err("TypeError", "Expected int32, got 1.5 of type 'float' instead."),
    "constant_none": _err("ValueError", "None values not supported."),
    "shape_error": _err("ValueError", "Dimensions must be equal, but are 3 and 4 for 'MatMul' (op: 'MatMul') "
                                      "with input shapes: [2,3], [4,2]."),
    "div_mismatch": _err("TypeError", "x and y must have the same dtype, got tf.int32 != tf.float32"),
    "feed_shape_error": _err("ValueError", "Cannot feed value of shape (3,) for Tensor 'x:0', which has shape "
                                           "'(?, 4)'"),
    "feed_tensor_value": _err("TypeError", "The value of a feed cannot be a tf.Tensor object. Acceptable feed "
                              "values include Python scalars, strings, lists, numpy ndarrays, or TensorHandles. "
                              "For reference, the tensor object was Tensor(\"Const:0\", shape=(), dtype=int32) "
                              "which was passed to the feed with key Tensor(\"x:0\", dtype=int32)."),
    "fetch_none": _err("TypeError", "Fetch argument None has invalid type <class 'NoneType'>"),
    "fetch_unknown": _err("ValueError", _FETCH % ("nope:0", "\"The name 'nope:0' refers to a Tensor which does "
                                                  "not exist. The operation, 'nope', does not exist in the graph.\"")),
    "fetch_bad_output": _err("ValueError", _FETCH % ("c:3", "\"The name 'c:3' refers to a Tensor which does not "
                                                     "exist. The operation, 'c', exists but only has 1 outputs.\"")),
    "empty_graph": _err("RuntimeError", "The Session graph is empty.  Add operations to the graph before "
                                        "calling run()."),
    "session_positional_config": _err("TypeError", "target must be a string, but got <class "
                                      "'tfc.framework.config.ConfigProto'>. Did you do \"Session(config)\" "
                                      "instead of \"Session(config=config)\"?"),
}

_OPERRORS = {c.__name__ for c in tf.errors._CODE_TO_CLASS.values()}


def _expected(module, name):
    e = json.loads(json.dumps(EXPECTED[module.__name__][name]))
    fix = (TF115 if module is programs else getattr(module, "TF115", {})).get(name)
    if callable(fix):
        fix(e)
    elif fix is not None:
        e = fix
    return e


@pytest.mark.parametrize("module,prog", CASES, ids=["%s.%s" % (m.__name__, p.__name__) for m, p in CASES])
def test_program_matches_tensorflow(module, prog):
    got = json.loads(json.dumps(programs.run_program(tf, prog), sort_keys=True, default=str))
    want = _expected(module, prog.__name__)
    if "error" in want and want["error"][0] in _OPERRORS:
        assert "error" in got, got
        assert got["error"][0] == want["error"][0]
        first = got["error"][1].split("\n")[0]
        assert first and first in want["error"][1]
        return
    assert got == want


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_program_was_recorded(module):
    assert sorted(p.__name__ for p in module.PROGRAMS) == sorted(EXPECTED[module.__name__])
