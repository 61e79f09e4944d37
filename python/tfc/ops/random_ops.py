"""Random tensors with TF 1.x signatures (random_ops.py) and TF 1.15's seed rule
(random_seed.get_seed).

Seeds: the graph-level seed is Graph.seed (what tf.set_random_seed, variables.py, sets for
this module and for the C builders); get_seed(op_seed)
gives the (seed, seed2) attrs: graph seed set -> (graph seed, op seed or the number of ops in
the graph so far, TF 1.15's _last_id); only an op seed -> (87654321, op seed); neither -> no
attrs (0, 0: a fresh seed every run). Both are taken mod 2**31-1 and (0, 0) becomes
(0, 2**31-1). This is the rule of the C builders' seeds (TFC_SetRandomSeed), so ops made here
and by the builders number alike.

Graphs: random_normal / truncated_normal / random_uniform open their scope, convert the shape
("shape"), mean/stddev or min/max, then build the random op, Mul and the final AddV2 named
after the scope (the C builders' graph, include/tfc/train.h); integer random_uniform is one
RandomUniformInt. multinomial / random.categorical are one Multinomial under their scope.

Stateless (tf.random.stateless_uniform / stateless_normal / stateless_truncated_normal): TF
1.15's graphs, the seed a [2] int32/int64 tensor ("seed") fed to the V1 op (StatelessRandomUniform,
StatelessRandomNormal, StatelessTruncatedNormal; StatelessRandomUniformInt for integers), then
the same Mul and AddV2 as above. TF 2.x builds StatelessRandomGetKeyCounter and the V2 op
instead; both give the same values for the same seed.
"""
import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import gen

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1


def _truncate_seed(seed):
    return seed % _MAXINT32


def get_seed(op_seed):
    """(seed, seed2) for an op: see the module comment. (None, None) when neither is set."""
    g = ops.get_default_graph()
    global_seed = g.seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = len(g._ops)
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def _shape_tensor(shape):
    """A shape argument as an int32 (int64 when needed) tensor named "shape"."""
    if isinstance(shape, ops.Tensor):
        return shape
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    dtype = None
    if isinstance(shape, (list, tuple)) and not ops._has_tensor(shape):
        arr = np.asarray(shape)
        if arr.size and arr.dtype.kind in "iu" and (arr.max() >= 2 ** 31 or arr.min() < -2 ** 31):
            dtype = dtypes.int64
        else:
            dtype = dtypes.int32
        if not shape:
            return ops.convert_to_tensor(np.zeros([0], np.int32), name="shape")
    return ops.convert_to_tensor(shape, dtype=dtype, name="shape")


def _seed_attrs(seed):
    s1, s2 = get_seed(seed)
    return {"seed": s1, "seed2": s2}


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    with ops.name_scope(name, "random_normal", [shape, mean, stddev]) as name:
        shape_tensor = _shape_tensor(shape)
        mean_tensor = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_tensor = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = gen.apply("RandomStandardNormal", None, shape=shape_tensor, dtype=dtype, **_seed_attrs(seed))
        mul = rnd * stddev_tensor
        return gen.apply("AddV2", name, x=mul, y=mean_tensor)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    with ops.name_scope(name, "truncated_normal", [shape, mean, stddev]) as name:
        shape_tensor = _shape_tensor(shape)
        mean_tensor = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_tensor = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = gen.apply("TruncatedNormal", None, shape=shape_tensor, dtype=dtype, **_seed_attrs(seed))
        mul = rnd * stddev_tensor
        return gen.apply("AddV2", name, x=mul, y=mean_tensor)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    dtype, maxval = _check_uniform_dtype(dtype, maxval)
    with ops.name_scope(name, "random_uniform", [shape, minval, maxval]) as name:
        shape = _shape_tensor(shape)
        minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return gen.apply("RandomUniformInt", name, shape=shape, minval=minval, maxval=maxval,
                             **_seed_attrs(seed))
        rnd = gen.apply("RandomUniform", None, shape=shape, dtype=dtype, **_seed_attrs(seed))
        return gen.apply("AddV2", name, x=rnd * (maxval - minval), y=minval)


def _check_uniform_dtype(dtype, maxval):
    """dtype as a DType and maxval defaulted, with TF's errors."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise ValueError("Invalid dtype %r" % dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    return dtype, maxval


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None):
    dtype, maxval = _check_uniform_dtype(dtype, maxval)
    with ops.name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as name:
        shape = _shape_tensor(shape)
        seed = ops.convert_to_tensor(seed, name="seed")
        minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return gen.apply("StatelessRandomUniformInt", name, shape=shape, seed=seed, minval=minval, maxval=maxval)
        rnd = gen.apply("StatelessRandomUniform", None, shape=shape, seed=seed, dtype=dtype)
        return gen.apply("AddV2", name, x=rnd * (maxval - minval), y=minval)


def _stateless_scaled(op_type, scope, shape, seed, mean, stddev, dtype, name):
    with ops.name_scope(name, scope, [shape, seed, mean, stddev]) as name:
        shape = _shape_tensor(shape)
        seed = ops.convert_to_tensor(seed, name="seed")
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = gen.apply(op_type, None, shape=shape, seed=seed, dtype=dtype)
        return gen.apply("AddV2", name, x=rnd * stddev, y=mean)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    return _stateless_scaled("StatelessRandomNormal", "stateless_random_normal", shape, seed, mean, stddev, dtype,
                             name)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    return _stateless_scaled("StatelessTruncatedNormal", "stateless_truncated_normal", shape, seed, mean, stddev,
                             dtype, name)


def random_shuffle(value, seed=None, name=None):
    return gen.apply("RandomShuffle", name, value=value, **_seed_attrs(seed))


def _multinomial(logits, num_samples, dtype, seed):
    logits = ops.convert_to_tensor(logits, name="logits")
    return gen.apply("Multinomial", None, logits=logits, num_samples=num_samples, output_dtype=dtype,
                     **_seed_attrs(seed))


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """num_samples class indices per row of logits, under "multinomial" (int64 unless
    output_dtype)."""
    with ops.name_scope(name, "multinomial", [logits]):
        return _multinomial(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    with ops.name_scope(name, "categorical", [logits]):
        return _multinomial(logits, num_samples, dtype, seed)
