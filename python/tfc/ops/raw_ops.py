"""tf.raw_ops: one function per op in the library's op table, generated on first use.

`raw_ops.MatMul(a=x, b=y, transpose_a=False, name=None)` builds the op through gen.apply, with
TF's argument names (inputs and attrs by keyword only, as in TF). The set of functions is the op
table itself (TF_GetAllOpList), so an op registered in C appears here with no Python change.
"""

import re

from tfc.framework import op_def_registry
from tfc.ops import gen

_cache = {}


def _snake(op_type):
    """TF's Python name of an op: MatMul -> mat_mul, AddN -> add_n, BiasAddV1 -> bias_add_v1."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", op_type)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _make(op_type):
    op_def = op_def_registry.get(op_type)
    inferred = set()
    for a in op_def["input_arg"]:
        inferred.update(x for x in (a["type_attr"], a["number_attr"], a["type_list_attr"]) if x)
    keys = [a["name"] for a in op_def["input_arg"]] + \
        [a["name"] for a in op_def["attr"] if a["name"] not in inferred] + ["name"]

    def op_fn(*args, **kwargs):
        if args:
            raise TypeError("%s only takes keyword args (possible keys: %s). Please pass these args as "
                            "kwargs instead." % (_snake(op_type), keys))
        name = kwargs.pop("name", None)
        return gen.apply(op_type, name, **kwargs)

    op_fn.__name__ = op_type
    op_fn.__qualname__ = op_type
    op_fn.__doc__ = "%s(%s)" % (op_type, ", ".join(keys))
    return op_fn


def __getattr__(name):
    fn = _cache.get(name)
    if fn is None:
        if name.startswith("_") or op_def_registry.get(name) is None:
            raise AttributeError("module 'tfc.raw_ops' has no attribute '%s'" % name)
        fn = _cache[name] = _make(name)
    return fn


def __dir__():
    return sorted(op_def_registry.get_all())
