"""Mutable lookup tables from Python (python/tfc/ops/lookup_ops.py): DenseHashTable's ops and
errors, and MutableHashTable / DenseHashTable in tf.train.Saver checkpoints, including the one
real TensorFlow wrote (tests/fixtures/tables_mutable_ckpt, gen_tables_dense.py)."""
import os

import numpy as np
import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
TF_CKPT = os.path.join(HERE, "..", "..", "tests", "fixtures", "tables_mutable_ckpt", "model")


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _fixture_tables():
    """The tables of gen_tables_dense.py's tables_checkpoint, built by tfc."""
    lk = tf.lookup.experimental
    mht = lk.MutableHashTable(tf.string, tf.int64, -1, name="mht")
    vecs = lk.MutableHashTable(tf.int64, tf.float32, [0.0, 0.0], name="vecs")
    dht = lk.DenseHashTable(tf.int64, tf.float32, default_value=[-1.0, -1.0], empty_key=0, deleted_key=-1,
                            initial_num_buckets=16, name="dht")
    dstr = lk.DenseHashTable(tf.string, tf.int64, default_value=-1, empty_key="", deleted_key="$",
                             initial_num_buckets=8, name="dstr")
    v = tf.Variable(0.0, name="v")
    look = [mht.lookup(["a", "bb", "ccc", "d"]), vecs.lookup(tf.constant([5, 7, 8], tf.int64)),
            dht.lookup(tf.constant([5, 7, 8], tf.int64)), dstr.lookup(["a", "ccc", "x"]), v.value(),
            dht.size(), dstr.size()]
    return look


def test_tf_checkpoint_restores_tables():
    look = _fixture_tables()
    saver = tf.train.Saver()
    with tf.Session() as s:
        saver.restore(s, TF_CKPT)
        got = s.run(look)
    np.testing.assert_array_equal(got[0], [5, 7, 9, -1])
    np.testing.assert_array_equal(got[1], [[1, 2], [3, 4], [0, 0]])
    np.testing.assert_array_equal(got[2], [[1.5, 2.5], [3.5, 4.5], [-1, -1]])
    np.testing.assert_array_equal(got[3], [5, 9, -1])
    assert got[4] == 3.0 and got[5] == 3 and got[6] == 3


def test_saveables_and_checkpoint_names(tmp_path):
    look = _fixture_tables()
    assert [t.name for t in tf.get_collection(tf.GraphKeys.SAVEABLE_OBJECTS)] == ["mht", "vecs", "dht", "dstr"]
    saver = tf.train.Saver()
    with tf.Session() as s:
        saver.restore(s, TF_CKPT)
        path = saver.save(s, str(tmp_path / "model"))
    names = dict((n, shape) for n, shape in tf.train.list_variables(path))
    assert names == dict(tf.train.list_variables(TF_CKPT))
    # the dense tables' bucket arrays are TF's, byte for byte
    for n in ("dht-keys", "dht-values", "dstr-keys", "dstr-values"):
        np.testing.assert_array_equal(tf.train.load_variable(path, n), tf.train.load_variable(TF_CKPT, n))
    with tf.Session() as s:
        saver.restore(s, path)
        assert s.run(look[2]).tolist() == [[1.5, 2.5], [3.5, 4.5], [-1, -1]]


def test_saver_var_list_with_a_table(tmp_path):
    t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, 0, -1, initial_num_buckets=4, name="t")
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver({"renamed": t, "v": v})
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(t.insert(tf.constant([3], tf.int64), tf.constant([30], tf.int64)))
        path = saver.save(s, str(tmp_path / "m"))
    assert sorted(n for n, _ in tf.train.list_variables(path)) == ["renamed-keys", "renamed-values", "v"]


def test_dense_table_errors():
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, -1.0, 0, -1, initial_num_buckets=8)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Using the empty_key as a table key is not allowed"):
            s.run(d.insert(tf.constant([0], tf.int64), [1.0]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Using the deleted_key as a table key is not allowed"):
            s.run(d.remove(tf.constant([-1], tf.int64)))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, got \[1\]"):
            s.run(d.insert(tf.constant([1, 2], tf.int64), [1.0]))


def test_dense_table_growth_has_a_limit():
    # a tiny max_load_factor would double the bucket count without end (TF's loop overflows)
    t = tf.raw_ops.MutableDenseHashTableV2(empty_key=tf.constant(0, tf.int64), deleted_key=tf.constant(-1, tf.int64),
                                           value_dtype=tf.float32, initial_num_buckets=4, max_load_factor=1e-30)
    ins = tf.raw_ops.LookupTableInsertV2(table_handle=t, keys=tf.constant([1], tf.int64), values=tf.constant([1.0]))
    with tf.Session() as s:
        with pytest.raises(tf.errors.ResourceExhaustedError, match="cannot grow to hold 1 entries"):
            s.run(ins)
