"""tf.raw_ops: one function per op in the library's op table, generated on first use.

`raw_ops.MatMul(a=x, b=y, transpose_a=False, name=None)` builds the op through gen.apply, with
TF's argument names (inputs and attrs by keyword only, as in TF). The set of functions is the op
table itself (TF_GetAllOpList), so an op registered in C appears here with no Python change.
"""

from tfc.framework import op_def_registry
from tfc.ops import gen

_cache = {}


def _make(op_type):
    def op_fn(*args, **kwargs):
        if args:
            raise TypeError("%s only takes keyword args (possible keys: %s). Please pass these args as "
                            "kwargs instead." % (op_type, [a["name"] for a in op_def["input_arg"]] +
                                                 [a["name"] for a in op_def["attr"]] + ["name"]))
        name = kwargs.pop("name", None)
        return gen.apply(op_type, name, **kwargs)

    op_def = op_def_registry.get(op_type)
    op_fn.__name__ = op_type
    op_fn.__qualname__ = op_type
    op_fn.__doc__ = "%s(%s, name=None)" % (op_type, ", ".join(
        [a["name"] for a in op_def["input_arg"]] + [a["name"] for a in op_def["attr"]]))
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
