"""TF 1.x initializers (init_ops.py): objects called as init(shape, dtype=None,
partition_info=None) that build an initial value in the current name scope (tf.Variable and
get_variable call them under "<var>/Initializer/"). The random ones build through
random_ops.py; constants are Consts, zeros and ones array_ops'.
"""
import math

from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.ops import array_ops
from tfc.ops import random_ops


class Initializer(object):
    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _dtype(dtype, default):
    return dtypes.as_dtype(dtype if dtype is not None else default)


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(shape, _dtype(dtype, self.dtype))


class Ones(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, _dtype(dtype, self.dtype))


class Constant(Initializer):
    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=_dtype(dtype, self.dtype), shape=shape,
                                    verify_shape=verify_shape)


class RandomUniform(Initializer):
    def __init__(self, minval=0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, _dtype(dtype, self.dtype), seed=self.seed)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, _dtype(dtype, self.dtype), seed=self.seed)


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, _dtype(dtype, self.dtype),
                                           seed=self.seed)


def _fans(shape):
    shape = list(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = _dtype(dtype, self.dtype)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": max(1., fan_in), "fan_out": max(1., fan_out),
             "fan_avg": max(1., (fan_in + fan_out) / 2.)}[self.mode]
        scale = self.scale / n
        if self.distribution in ("normal", "truncated_normal"):
            # The stddev of a unit normal truncated at two standard deviations.
            stddev = math.sqrt(scale) / .87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None, dtype=dtypes.float32):
        super(GlorotUniform, self).__init__(1.0, "fan_avg", "uniform", seed, dtype)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None, dtype=dtypes.float32):
        super(GlorotNormal, self).__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """tf.contrib.layers.xavier_initializer."""
    return VarianceScaling(1.0, "fan_avg", "uniform" if uniform else "truncated_normal", seed, dtype)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
variance_scaling_initializer = VarianceScaling
