"""Colocation, tf.layers and tf.losses: TF 1.x programs whose graphs (node names, op types,
devices, "_class" colocation attrs), variable names, values (constant initializers) and errors
are compared with TensorFlow's (see programs.py). TensorFlow 2.x keeps TF 1.x's tf.layers under
tf_keras (gen_expectations.py sets TF_USE_LEGACY_KERAS)."""
import numpy as np

from programs import _ops, _val


def _coloc(op):
    try:
        return [c.decode() for c in op.get_attr("_class")]
    except ValueError:
        return None


def _graph(tf):
    """Every op's name, type, device and colocation."""
    return [[op.name, op.type, op.device, _coloc(op)] for op in tf.get_default_graph().get_operations()]


def _vars(tf, key="variables"):
    return [[v.name, str(v.shape)] for v in tf.get_collection(key)]


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 4))


def colocate_with_devices(tf):
    with tf.device('/cpu:1'):
        a = tf.constant(1.0, name='a')
    b0 = tf.constant(0.0, name='b0')
    with tf.device('/job:w/gpu:2'):
        with tf.colocate_with(a):
            b = tf.identity(a, name='b')
            with tf.device('/cpu:3'):
                tf.identity(a, name='c')
            with tf.colocate_with(b0):
                tf.identity(a, name='d')
                with tf.colocate_with(b0, ignore_existing=True):
                    tf.identity(a, name='e')
        tf.identity(a, name='f')
        with tf.colocate_with(b0):
            tf.identity(a, name='g')
            with tf.device('/cpu:3'):
                tf.identity(a, name='h')
        with tf.colocate_with(b):
            tf.identity(a, name='i')
        with tf.colocate_with(b0.op, ignore_existing=True):
            with tf.colocate_with(None, ignore_existing=True):
                tf.identity(a, name='j')
    return {"graph": _graph(tf), "groups": [[c.decode() for c in o.colocation_groups()] for o in (a.op, b.op)]}


def colocate_with_values(tf):
    a = tf.constant([1.0, 2.0], name='a')
    w = tf.Variable([3.0, 4.0], name='w')
    with tf.colocate_with(w):
        s = tf.multiply(a, w, name="s")
    with tf.colocate_with(a):
        k = tf.multiply(s, 2.0, name='k')
    with tf.colocate_with("x"):
        tf.constant(1.0, name='n')
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v = sess.run(k)
    return {"graph": _graph(tf), "value": _val(v)}


def colocate_with_none(tf):
    with tf.colocate_with(None):
        tf.constant(1.0)
PROGRAMS = [colocate_with_devices, colocate_with_values, colocate_with_none]
