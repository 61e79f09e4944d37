"""Clipping with TF 1.x signatures (clip_ops.py): clip_by_value, clip_by_norm, global_norm,
clip_by_global_norm, clip_by_average_norm. Each builds TF 1.15's graph under its scope
("clip_by_value" ends in a Maximum named after the scope, "clip_by_norm" in an Identity,
"global_norm/global_norm" is the norm, "clip_by_global_norm/clip_by_global_norm_<i>" each
clipped tensor). TF colocates the per-tensor ops with their input; tfc's graph has no
colocation yet, so those nodes carry no "_class" attr (names and values are TF's).
"""
from tfc.framework import constant_op
from tfc.framework import ops
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    with ops.name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as name:
        values = ops.convert_to_tensor(t, name="t")
        t_min = math_ops.minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = math_ops.maximum(t_min, clip_value_min, name=name)
        values.shape.assert_is_compatible_with(t_max.shape)
        return t_max


def clip_by_norm(t, clip_norm, axes=None, name=None):
    with ops.name_scope(name, "clip_by_norm", [t, clip_norm]) as name:
        values = ops.convert_to_tensor(t, name="t")
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        return array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm), name=name)


def _check_list(t_list):
    if not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence")
    return list(t_list)


def global_norm(t_list, name=None):
    t_list = _check_list(t_list)
    with ops.name_scope(name, "global_norm", t_list) as name:
        values = [ops.convert_to_tensor(t, name="t_%d" % i) if t is not None else t for i, t in enumerate(t_list)]
        half_squared_norms = [gen.apply("L2Loss", None, t=v) for v in values if v is not None]
        half_squared_norm = math_ops.reduce_sum(array_ops.stack(half_squared_norms))
        return math_ops.sqrt(half_squared_norm * constant_op.constant(2.0, dtype=half_squared_norm.dtype),
                             name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(list of clipped tensors, the global norm); None entries stay None."""
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with ops.name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as name:
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, constant_op.constant(1.0, dtype=use_norm.dtype) / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)
        values = [ops.convert_to_tensor(t, name="t_%d" % i) if t is not None else t for i, t in enumerate(t_list)]
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            clipped.append(array_ops.identity(v * scale, name="%s_%d" % (name, i)))
    return clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    with ops.name_scope(name, "clip_by_average_norm", [t, clip_norm]) as name:
        t = ops.convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), t.dtype)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(t * t, array_ops.range(array_ops.rank(t))))
        tclip = array_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n_element, constant_op.constant(1.0) / clip_norm),
            name=name)
        return tclip
