"""TF 1.x programs of the mutable lookup tables: tf.lookup.experimental.DenseHashTable (insert,
lookup, remove, size, export of the bucket arrays, growth, vector values and keys, the reserved
keys' errors) and MutableHashTable / DenseHashTable saved and restored by tf.train.Saver
(the checkpoint's names and shapes), run under TensorFlow (gen_expectations.py programs_tables
records them) and under tfc (test_differential.py). Values, node names and error texts are
compared.
"""
import os
import tempfile

import numpy as np

from programs_opstail import _first_line, _r


def dense_table(tf):
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=-1.0, empty_key=0, deleted_key=-1,
                                              initial_num_buckets=8, name="dense")
    k = tf.constant([1, 9, 17], tf.int64)
    ins = d.insert(k, tf.constant([1.0, 2.0, 3.0]))
    rem = d.remove(tf.constant([9, 4], tf.int64))
    ins2 = d.insert(tf.constant([17, 25], tf.int64), tf.constant([5.0, 6.0]))
    grow = d.insert(tf.constant(np.arange(100, 110), tf.int64), tf.constant(np.arange(10, dtype=np.float32)))
    find = d.lookup(tf.constant([1, 9, 17, 25, 33, 105], tf.int64))
    ex = d.export()
    with tf.Session() as s:
        s.run(ins)
        first = s.run([find, d.size(), ex])
        s.run(rem)
        s.run(ins2)
        second = s.run([find, d.size(), ex])
        s.run(grow)
        third = s.run([find, d.size(), ex])
    return {"values": _r([first, second, third]),
            "names": [find.name, ins.name, rem.name, d.size().name, ex[0].name, d.resource_handle.name]}


def dense_table_vectors(tf):
    d = tf.lookup.experimental.DenseHashTable(tf.string, tf.int32, default_value=[-1, -2], empty_key="",
                                              deleted_key="<gone>", initial_num_buckets=4)
    ins = d.insert(["a", "bb", "ccc"], tf.constant([[1, 2], [3, 4], [5, 6]], tf.int32))
    with tf.Session() as s:
        s.run(ins)
        got = s.run([d.lookup(["ccc", "zz", "a"]), d.size(), d.export()])
    return {"values": _r(got)}


def dense_table_errors(tf):
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=-1.0, empty_key=0, deleted_key=-1,
                                              initial_num_buckets=8)
    p = tf.placeholder(tf.int64)
    return {"insert_empty": _first_line(tf, d.insert(tf.constant([1, 0], tf.int64), [1.0, 2.0])),
            "lookup_deleted": _first_line(tf, d.lookup(tf.constant([-1], tf.int64))),
            "matrix_keys": _first_line(tf, d.lookup(p), {p: [[1, 2]]}),
            "buckets": _first_line(tf, tf.lookup.experimental.DenseHashTable(
                tf.int64, tf.float32, -1.0, 0, -1, initial_num_buckets=12).size()),
            "same_keys": _first_line(tf, tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, -1.0, 3,
                                                                               3).size())}


def tables_saved(tf):
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name="words")
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=[0.0, 0.0], empty_key=0,
                                              deleted_key=-1, initial_num_buckets=16, name="vecs")
    v = tf.Variable(2.0, name="v")
    fill = [m.insert(["x", "y"], tf.constant([1, 2], tf.int64)),
            d.insert(tf.constant([3, 4], tf.int64), [[1.0, 2.0], [3.0, 4.0]])]
    look = [m.lookup(["y", "z"]), d.lookup(tf.constant([4, 5], tf.int64)), m.size(), d.size()]
    saver = tf.train.Saver()
    path = os.path.join(tempfile.mkdtemp(prefix="tfc_tables_"), "model")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(fill)
        saver.save(s, path)
    with tf.Session() as s:
        empty = s.run(look)
        saver.restore(s, path)
        restored = s.run(look)
    return {"values": _r([empty, restored]), "checkpoint": sorted(tf.train.list_variables(path)),
            "saveables": len(tf.get_collection(tf.GraphKeys.SAVEABLE_OBJECTS)),
            "restore": sorted(n.name for n in tf.get_default_graph().as_graph_def().node
                              if n.name.startswith("save/") and "restore" in n.name)}


PROGRAMS = [dense_table, dense_table_vectors, dense_table_errors, tables_saved]
