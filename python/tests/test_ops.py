"""Focused tests of the math, array, nn, random and clip functions: TF 1.15's seed rule, errors
whose texts tfc's C shape functions word differently from TF 2.x, and behaviours the
differential programs cannot record (graph seeds, permutations, attrs)."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


def _run(*ts, feed=None):
    with tf.Session() as s:
        return s.run(list(ts), feed)


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield


def _seeds(t):
    return t.op.get_attr("seed"), t.op.get_attr("seed2")


def test_seeds_follow_tf115_get_seed():
    # no graph seed, no op seed: (0, 0), fresh randomness each run
    a = tf.random_normal([3])
    assert _seeds(a.op.inputs[0].op.inputs[0]) == (0, 0)
    # op seed only: DEFAULT_GRAPH_SEED
    b = tf.random_uniform([2], seed=5)
    assert _seeds(b.op.inputs[0].op.inputs[0]) == (87654321, 5)
    # graph seed: op seed is the number of ops in the graph when the seed is taken
    g = tf.get_default_graph()
    g.seed = 42
    n_before = len(g.get_operations())
    c = tf.truncated_normal([2], name="tn")
    rnd = g.get_operation_by_name("tn/TruncatedNormal")
    # shape, mean and stddev Consts exist when TF's get_seed runs
    assert (rnd.get_attr("seed"), rnd.get_attr("seed2")) == (42, n_before + 3)
    d = tf.random_shuffle([1, 2, 3], seed=2 ** 31 + 6)
    assert _seeds(d) == (42, 7)  # taken mod 2**31-1
    tf.set_random_seed(0)
    e = tf.random_uniform([1], seed=0)
    assert _seeds(e.op.inputs[0].op.inputs[0]) == (0, 2 ** 31 - 1)  # (0, 0) is "random" to kernels
    assert c.shape.as_list() == [2]


def test_graph_seed_makes_runs_repeatable_and_ops_differ():
    tf.set_random_seed(7)
    a = tf.random_uniform([4])
    b = tf.random_uniform([4])
    with tf.Session() as s:
        a1, b1 = s.run([a, b])
        a2, _ = s.run([a, b])
    with tf.Session() as s:
        a3, _ = s.run([a, b])
    assert not np.array_equal(a1, b1)     # different op seeds
    assert not np.array_equal(a1, a2)     # the next run draws further
    np.testing.assert_array_equal(a1, a3)  # a new session starts over


def test_random_op_state_is_shared_between_fetch_sets():
    # TF's session shares a stateful op's kernel between the executors of its fetch sets: run
    # k of the op gives its k-th draw whatever else is fetched.
    a = tf.random_uniform([2], seed=1)
    b = tf.random_uniform([2], seed=2)
    with tf.Session() as s:
        first = s.run(a)
        second = s.run([a, b])[0]
        third = s.run(a)
    with tf.Session() as s:
        draws = [s.run(a) for _ in range(3)]
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, draws[0])
    np.testing.assert_array_equal(second, draws[1])
    np.testing.assert_array_equal(third, draws[2])


def test_random_shuffle_is_a_permutation():
    x = tf.random_shuffle(tf.range(50), seed=3)
    v = _run(x)[0]
    assert sorted(v.tolist()) == list(range(50))


def test_random_int_range_and_float_ranges():
    i = tf.random_uniform([1000], 3, 7, dtype=tf.int64, seed=1)
    f = tf.random_uniform([1000], -2.0, 2.0, seed=2)
    t = tf.truncated_normal([1000], mean=1.0, stddev=0.5, seed=3)
    vi, vf, vt = _run(i, f, t)
    assert vi.dtype == np.int64 and vi.min() >= 3 and vi.max() < 7
    assert vf.min() >= -2.0 and vf.max() < 2.0
    assert vt.min() >= 0.0 and vt.max() <= 2.0  # within two stddevs


def test_shape_inference_errors_are_value_errors():
    x = tf.constant(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"^Cannot reshape a tensor with 6 elements to shape \[4,2\] \(8 elements\) "
                                         r"for 'Reshape' \(op: 'Reshape'\)"):
        tf.reshape(x, [4, 2])
    with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 2 but is 3"):
        tf.split(x, 2, 1)
    with pytest.raises(ValueError, match=r"^input must have last dimension >= k = 4 but is 3 for 'TopKV2' "
                                         r"\(op: 'TopKV2'\) with input shapes: \[2,3\], \[\]"):
        tf.nn.top_k(x, 4)
    with pytest.raises(ValueError, match=r"^indices.shape\[-1\] must be <= params.rank, but saw indices shape: "
                                         r"\[1,3\] and params shape: \[2,3\]"):
        tf.gather_nd(x, [[0, 1, 2]])


def test_both_spellings_of_an_argument():
    x = tf.constant([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"^Cannot specify both 'keep_dims' and 'keepdims'$"):
        tf.reduce_sum(x, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'dim' and 'axis'$"):
        tf.expand_dims(x, axis=0, dim=0)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'dim' and 'axis'$"):
        tf.nn.softmax(x, axis=0, dim=0)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'keep_prob' and 'rate'$"):
        tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'squeeze_dims' and 'axis'$"):
        tf.squeeze(x, axis=0, squeeze_dims=0)


def test_list_inputs_of_mixed_dtypes():
    with pytest.raises(TypeError, match=r"^Tensors in list passed to 'values' of 'ConcatV2' Op have types "
                                        r"\[float32, int32\] that don't all match\.$"):
        tf.concat([tf.constant([1.0]), tf.constant([1])], 0)
    # Python values in the list take the tensors' dtype
    c = tf.concat([tf.constant([1.5]), [2, 3]], 0)
    assert c.dtype == tf.float32
    np.testing.assert_array_equal(_run(c)[0], [1.5, 2.0, 3.0])


def test_autopacked_lists_name_consts_by_index():
    n = tf.placeholder(tf.int32, [], name="n")
    z = tf.zeros([2, n])
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["n", "zeros/packed/0", "zeros/packed", "zeros/Const", "zeros"]
    assert _run(z, feed={n: 3})[0].shape == (2, 3)
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype"):
        tf.convert_to_tensor([tf.constant(1), tf.constant(1.0)])


def test_fused_batch_norm_epsilon_floor_and_values():
    x = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2)
    y, m, v = tf.nn.fused_batch_norm(x, [1.0, 2.0], [0.0, 1.0], epsilon=1e-8)
    assert y.op.type == "FusedBatchNormV3"
    assert y.op.get_attr("epsilon") == pytest.approx(1.001e-5)
    vy, vm, vv = _run(y, m, v)
    mean = x.reshape(-1, 2).mean(0)
    var = x.reshape(-1, 2).var(0)
    np.testing.assert_allclose(vm, mean, rtol=1e-6)
    # the batch variance output is Bessel-corrected, the normalization uses the biased one
    np.testing.assert_allclose(vv, var * 8 / 7, rtol=1e-5)
    np.testing.assert_allclose(vy, (x - mean) / np.sqrt(var + 1.001e-5) * [1.0, 2.0] + [0.0, 1.0], rtol=1e-4,
                               atol=1e-5)


def test_moments_and_batch_normalization_values():
    x = np.array([[1.0, 4.0], [3.0, 8.0], [5.0, 0.0]], np.float32)
    m, v = tf.nn.moments(tf.constant(x), [0])
    bn = tf.nn.batch_normalization(x, m, v, offset=0.5, scale=2.0, variance_epsilon=1e-3)
    vm, vv, vb = _run(m, v, bn)
    np.testing.assert_allclose(vm, x.mean(0), rtol=1e-6)
    np.testing.assert_allclose(vv, x.var(0), rtol=1e-6)
    np.testing.assert_allclose(vb, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) * 2.0 + 0.5, rtol=1e-5)


def test_dropout_keeps_and_scales():
    x = tf.ones([100, 100])
    d = tf.nn.dropout(x, keep_prob=0.25, seed=1)
    v = _run(d)[0]
    assert set(np.unique(v).tolist()) == {0.0, 4.0}
    assert 0.2 < (v > 0).mean() < 0.3
    assert d.shape.as_list() == [100, 100]
    assert tf.nn.dropout(x, rate=0.0) is x
    # a tensor rate works too
    r = tf.placeholder(tf.float32, [])
    v2 = _run(tf.nn.dropout(x, rate=r, seed=2), feed={r: 0.5})[0]
    assert set(np.unique(v2).tolist()) == {0.0, 2.0}


def test_embedding_lookup_arguments():
    p = [tf.zeros([3, 2]), tf.ones([2, 2])]
    with pytest.raises(NotImplementedError, match="max_norm"):
        tf.nn.embedding_lookup(p, [0], max_norm=1.0)
    with pytest.raises(ValueError, match="^Unrecognized partition strategy: x$"):
        tf.nn.embedding_lookup(p, [0], partition_strategy="x")
    with pytest.raises(ValueError, match="^Need at least one param$"):
        tf.nn.embedding_lookup([], [0])
    # "div" over 5 rows in 2 partitions: ids 0-2 in the first, 3-4 in the second
    v = _run(tf.nn.embedding_lookup(p, [2, 3], partition_strategy="div"))[0]
    np.testing.assert_array_equal(v, [[0.0, 0.0], [1.0, 1.0]])


def test_softmax_over_an_inner_axis_matches_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0
    s = tf.nn.softmax(x, axis=1)
    ls = tf.nn.log_softmax(x, dim=0)
    vs, vls = _run(s, ls)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(vs, e / e.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(vls, x - np.log(np.exp(x).sum(0, keepdims=True)), rtol=1e-5, atol=1e-6)
    assert s.shape.as_list() == [2, 3, 4]


def test_clip_by_global_norm_keeps_none_and_scales():
    a = tf.constant([3.0, 4.0])
    b = tf.constant([[0.0, 12.0]])
    clipped, norm = tf.clip_by_global_norm([a, None, b], 6.5)
    assert clipped[1] is None
    va, vb, vn = _run(clipped[0], clipped[2], norm)
    assert vn == pytest.approx(13.0)
    np.testing.assert_allclose(va, [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(vb, [[0.0, 6.0]], rtol=1e-6)
    with pytest.raises(TypeError, match="^t_list should be a sequence$"):
        tf.clip_by_global_norm(a, 1.0)


def test_matmul_of_unknown_rank_is_batched():
    p = tf.placeholder(tf.float32)
    m = tf.matmul(p, tf.ones([2, 2]), transpose_a=True)
    assert m.op.type == "BatchMatMulV2" and m.op.get_attr("adj_x") is True
    v = _run(m, feed={p: np.arange(4, dtype=np.float32).reshape(1, 2, 2)})[0]
    np.testing.assert_allclose(v, [[[2.0, 2.0], [4.0, 4.0]]])


def test_reduce_logsumexp_handles_infinities():
    x = tf.constant([[-np.inf, -np.inf], [np.inf, 1.0], [1000.0, 1000.0]])
    v = _run(tf.reduce_logsumexp(x, 1))[0]
    assert v[0] == -np.inf and v[1] == np.inf
    assert v[2] == pytest.approx(1000.0 + np.log(2.0))
