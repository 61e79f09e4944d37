"""tf.train.Saver, the checkpoint state functions, meta graph files and write_graph from Python
(python/tfc/training/saver.py, meta_graph.py over include/tfc/saver.h and meta_graph.h)."""
import json
import os
import sys

import numpy as np
import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures")
sys.path.insert(0, FIXTURES)
import gen_meta_graph  # noqa: E402  (the fixture's program, run here by tfc)


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _model():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    n = tf.Variable(7, name="n", trainable=False)
    return w, n


def test_save_restore_round_trip_returns_prefix_and_restores_values(tmp_path):
    w, n = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "model"))
        assert prefix == str(tmp_path / "model")
        assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.data-00000-of-00001", "model.index",
                                                "model.meta"]
        sess.run([w.assign(tf.zeros([2, 2])), n.assign(0)])
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(w), [[1.0, 2.0], [3.0, 4.0]])
        assert sess.run(n) == 7


def test_step_suffix_pruning_and_state_file(tmp_path):
    _model()
    step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(4):
            sess.run(step.assign(10 * i))
            got = saver.save(sess, str(tmp_path / "m"), global_step=step)
            assert got == "%s-%d" % (tmp_path / "m", 10 * i)
    files = sorted(os.listdir(tmp_path))
    assert files == ["checkpoint", "m-20.data-00000-of-00001", "m-20.index", "m-20.meta",
                     "m-30.data-00000-of-00001", "m-30.index", "m-30.meta"]
    with open(tmp_path / "checkpoint") as f:
        assert f.read() == ('model_checkpoint_path: "%s/m-30"\nall_model_checkpoint_paths: "%s/m-20"\n'
                            'all_model_checkpoint_paths: "%s/m-30"\n' % (tmp_path, tmp_path, tmp_path))
    assert saver.last_checkpoints == [str(tmp_path / "m-20"), str(tmp_path / "m-30")]
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-30")
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "m-30")
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "m-20"), str(tmp_path / "m-30")]
    assert tf.train.checkpoint_exists(str(tmp_path / "m-20"))
    assert not tf.train.checkpoint_exists(str(tmp_path / "m-10"))


def test_keep_checkpoint_every_n_hours_keeps_dropped_checkpoints(tmp_path):
    _model()
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1e-12)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            saver.save(sess, str(tmp_path / "k"), global_step=i, write_meta_graph=False)
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == ["k-0.index", "k-1.index",
                                                                              "k-2.index"]
    assert saver.last_checkpoints == [str(tmp_path / "k-2")]


def test_no_state_file_without_write_state_and_other_latest_filename(tmp_path):
    _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "a"), write_state=False, write_meta_graph=False)
        assert saver.last_checkpoints == []
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
        saver.save(sess, str(tmp_path / "b"), latest_filename="mine", write_meta_graph=False)
    assert tf.train.latest_checkpoint(str(tmp_path), latest_filename="mine") == str(tmp_path / "b")
    tf.train.update_checkpoint_state(str(tmp_path), str(tmp_path / "a"), [str(tmp_path / "b")])
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "a")
    assert list(tf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == [
        str(tmp_path / "b"), str(tmp_path / "a")]


def test_argument_errors_have_tensorflows_texts(tmp_path):
    w, n = _model()
    with pytest.raises(ValueError, match="^At least two variables have the same name: w$"):
        tf.train.Saver([w, w])
    with pytest.raises(ValueError, match="^No variables to save$"):
        tf.train.Saver([])
    with pytest.raises(TypeError, match="^Variable to save is not a Variable"):
        tf.train.Saver([tf.constant(1.0)])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(ValueError, match="^Can't load save_path when it is None.$"):
            saver.restore(sess, None)
        with pytest.raises(ValueError, match="^The passed save_path is not a valid checkpoint: "):
            saver.restore(sess, str(tmp_path / "missing"))
        with pytest.raises(ValueError, match="^Parent directory of .* doesn't exist, can't save.$"):
            saver.save(sess, str(tmp_path / "x" / "y" / "m"))
        with pytest.raises(ValueError, match="^'latest_filename' must not contain path components$"):
            saver.save(sess, str(tmp_path / "m"), latest_filename="a/b")
        with pytest.raises(TypeError, match="^'sess' must be a Session"):
            saver.save(object(), str(tmp_path / "m"))


def test_restore_errors_come_from_the_runtime(tmp_path):
    w, n = _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        only_w = tf.train.Saver({"w": w}).save(sess, str(tmp_path / "only_w"), write_meta_graph=False)
        with pytest.raises(tf.errors.NotFoundError) as e:
            tf.train.Saver().restore(sess, only_w)
        assert e.value.message.startswith("Restoring from checkpoint failed. This is most likely due to a "
                                          "Variable name or other graph key that is missing")
        assert "Key n not found in checkpoint" in e.value.message
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.train.Saver({"w": n}).restore(sess, only_w)
        assert "a mismatch between the current graph and the graph" in e.value.message
        # A damaged data file: the checksum fails, DataLossError naming the file.
        data = str(tmp_path / "only_w.data-00000-of-00001")
        with open(data, "r+b") as f:
            f.write(b"\xff\xff\xff\xff")
        with pytest.raises(tf.errors.DataLossError) as e:
            tf.train.Saver({"w": w}).restore(sess, only_w)
        assert "only_w.data-00000-of-00001" in e.value.message
        # An index that is not a table.
        with open(str(tmp_path / "bad.index"), "wb") as f:
            f.write(b"not a table")
        with pytest.raises(tf.errors.DataLossError):
            tf.train.Saver({"w": w}).restore(sess, str(tmp_path / "bad"))


def test_saver_def_and_a_saver_made_from_it(tmp_path):
    w, n = _model()
    saver = tf.train.Saver(max_to_keep=3)
    d = saver.as_saver_def()
    assert (d.filename_tensor_name, d.save_tensor_name, d.restore_op_name, d.max_to_keep, d.version) == (
        "save/Const:0", "save/control_dependency:0", "save/restore_all", 3, tf.train.SaverDef.V2)
    same = tf.train.Saver(saver_def=d)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        p = same.save(sess, str(tmp_path / "via_def"), write_meta_graph=False)
        sess.run(w.assign(tf.zeros([2, 2])))
        saver.restore(sess, p)
        np.testing.assert_array_equal(sess.run(w), [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="^saver_def must specify the restore_op_name"):
        tf.train.Saver(saver_def=tf.train.SaverDef(save_tensor_name="x:0"))


def test_import_meta_graph_into_a_fresh_graph_restores_and_trains(tmp_path):
    train = gen_meta_graph.build(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
        prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=5)
        values = {k: sess.run(k) for k in gen_meta_graph.FETCHES}
    tf.reset_default_graph()
    restored = tf.train.import_meta_graph(prefix + ".meta")
    g = tf.get_default_graph()
    assert [v.name for v in tf.global_variables()] == ["w:0", "b:0", "global_step:0"]
    assert [v.name for v in tf.trainable_variables()] == ["w:0", "b:0"]
    assert [op.name for op in tf.get_collection("train_op")] == ["GradientDescent"]
    assert [t.name for t in tf.get_collection("summaries")] == ["loss_1:0"]
    with tf.Session() as sess:
        restored.restore(sess, prefix)
        for k, v in values.items():
            np.testing.assert_array_equal(sess.run(k), v)
        sess.run(g.get_collection("train_op")[0])
        assert sess.run("global_step:0") == 6


def test_tfc_trains_the_fixture_program_to_tensorflows_values(tmp_path):
    with open(os.path.join(FIXTURES, "meta_graph_tf", "expected.json")) as f:
        expected = json.load(f)
    train = gen_meta_graph.build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
        for k, v in expected["values"].items():
            np.testing.assert_allclose(sess.run(k), v, rtol=1e-6)


def test_tensorflow_written_meta_graph_loads_and_restores():
    d = os.path.join(FIXTURES, "meta_graph_tf")
    with open(os.path.join(d, "expected.json")) as f:
        expected = json.load(f)
    saver = tf.train.import_meta_graph(os.path.join(d, "model.ckpt-5.meta"))
    assert [saver.saver_def.filename_tensor_name, saver.saver_def.save_tensor_name,
            saver.saver_def.restore_op_name] == expected["saver_def"]
    g = tf.get_default_graph()
    for key, names in expected["collections"].items():
        assert sorted(getattr(v, "name", v) for v in g.get_collection(key)) == names, key
    latest = tf.train.latest_checkpoint(d)
    assert latest == os.path.join(d, expected["prefix"])
    with tf.Session() as sess:
        saver.restore(sess, latest)
        for k, v in expected["values"].items():
            np.testing.assert_allclose(sess.run(k), v, rtol=1e-6)
        sess.run(g.get_collection("train_op")[0])
        assert sess.run("global_step:0") == 6


def test_import_scope_prefixes_names_and_the_saver():
    d = os.path.join(FIXTURES, "meta_graph_tf")
    saver = tf.train.import_meta_graph(os.path.join(d, "model.ckpt-5.meta"), import_scope="tower")
    assert saver.saver_def.restore_op_name == "tower/save/restore_all"
    assert [v.name for v in tf.trainable_variables()] == ["tower/w:0", "tower/b:0"]
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(d, "model.ckpt-5"))
        assert sess.run("tower/global_step:0") == 5


def test_export_meta_graph_text_and_collection_list(tmp_path):
    _model()
    tf.add_to_collection("train_op", tf.group(name="step"))
    path = str(tmp_path / "g.pbtxt")
    mg = tf.train.export_meta_graph(path, as_text=True, collection_list=["variables", "train_op"])
    assert sorted(mg.collection_def.keys()) == ["train_op", "variables"]
    assert list(mg.collection_def["train_op"].node_list.value) == ["step"]
    with open(path) as f:
        text = f.read()
    assert "graph_def {\n  node {\n    name: \"w/initial_value\"" in text
    assert 'key: "train_op"' in text
    assert os.listdir(tmp_path) == ["g.pbtxt"]
    v = tf.train.SaverDef  # the messages are importable from tf.train
    assert v.V2 == 2


def test_import_meta_graph_errors(tmp_path):
    with pytest.raises(IOError, match="does not exist"):
        tf.train.import_meta_graph(str(tmp_path / "none.meta"))
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\xff\xff\xff\xff")
    with pytest.raises(IOError, match="^Cannot parse file"):
        tf.train.import_meta_graph(str(bad))


def test_write_graph_is_atomic_and_one_implementation(tmp_path):
    tf.constant(3.0, name="c")
    p = tf.train.write_graph(tf.get_default_graph(), str(tmp_path / "a" / "b"), "g.pb", as_text=False)
    assert p == str(tmp_path / "a" / "b" / "g.pb")
    assert os.listdir(tmp_path / "a" / "b") == ["g.pb"]
    with open(p, "rb") as f:
        assert f.read() == tf.get_default_graph().as_graph_def().SerializeToString()
    assert tf.io.write_graph is tf.train.write_graph


def test_write_graph_failure_leaves_the_previous_file(tmp_path, monkeypatch):
    tf.constant(3.0, name="c")
    p = tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "g.pbtxt")
    with open(p) as f:
        before = f.read()
    from tfc import graph_text

    def broken(data):
        raise RuntimeError("no text today")
    monkeypatch.setattr(graph_text, "graph_def_to_text", broken)
    with pytest.raises(RuntimeError):
        tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "g.pbtxt")
    with open(p) as f:
        assert f.read() == before
    assert os.listdir(tmp_path) == ["g.pbtxt"]


def test_checkpoint_reader_reads_tensorflows_checkpoint():
    d = os.path.join(FIXTURES, "meta_graph_tf")
    with open(os.path.join(d, "expected.json")) as f:
        expected = json.load(f)
    reader = tf.train.NewCheckpointReader(os.path.join(d, "model.ckpt-5"))
    assert reader.get_variable_to_shape_map() == {"w": [2, 3], "b": [3], "global_step": []}
    assert reader.get_variable_to_dtype_map()["global_step"] == tf.int64
    np.testing.assert_allclose(reader.get_tensor("w"), expected["values"]["w:0"], rtol=1e-6)
    assert tf.train.list_variables(d) == [("b", [3]), ("global_step", []), ("w", [2, 3])]
    assert tf.train.load_variable(d, "global_step") == 5
    with pytest.raises(tf.errors.NotFoundError, match="^Key nope not found in checkpoint$"):
        reader.get_tensor("nope")
    with pytest.raises(ValueError, match="^Couldn't find 'checkpoint' file"):
        tf.train.load_checkpoint(FIXTURES)


def test_export_skips_collections_it_cannot_write():
    _model()
    tf.add_to_collection(("a", "tuple", "key"), 1)
    tf.add_to_collection("objects", object())
    tf.add_to_collection("ints", 4)
    mg = tf.train.export_meta_graph()
    assert sorted(mg.collection_def.keys()) == ["ints", "trainable_variables", "variables"]


def test_queue_runners_and_summaries_survive_a_meta_graph(tmp_path):
    q = tf.train.string_input_producer(["a", "b"], shuffle=False)
    q.dequeue(name="next")
    tf.summary.scalar("v", tf.Variable(1.0, name="v"))
    path = str(tmp_path / "qr.meta")
    mg = tf.train.export_meta_graph(path)
    assert mg.collection_def["queue_runners"].WhichOneof("kind") == "bytes_list"
    tf.reset_default_graph()
    tf.train.import_meta_graph(path)
    runners = tf.get_collection("queue_runners")
    assert len(runners) == 1
    assert [t.name for t in tf.get_collection("summaries")] == ["input_producer/fraction_of_32_full:0", "v_1:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert [sess.run("next:0") for _ in range(3)] == [b"a", b"b", b"a"]
        coord.request_stop()
        coord.join(threads)


def _tensorflow_available():
    import importlib.util
    if os.environ.get("TFC_SANITIZED") == "1" or os.environ.get("TFC_NO_TENSORFLOW") == "1":
        return False
    return importlib.util.find_spec("tensorflow") is not None


@pytest.mark.skipif(not _tensorflow_available(), reason="TensorFlow is not installed (development check)")
def test_tensorflow_imports_and_restores_what_tfc_wrote(tmp_path):
    import subprocess
    train = gen_meta_graph.build(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
        saver.save(sess, str(tmp_path / "model.ckpt"), global_step=5)
        values = {k: np.asarray(sess.run(k)).tolist() for k in gen_meta_graph.FETCHES}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONPATH", None)
    out = subprocess.run([sys.executable, os.path.join(FIXTURES, "gen_meta_graph.py"), "--check", str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    restored, stepped, collections = lines
    for k, v in values.items():
        np.testing.assert_allclose(restored[k], v, rtol=1e-6)
    assert stepped["after_step"]["global_step:0"] == 6
    assert collections["train_op"] == ["GradientDescent"]
    assert collections["variables"] == ["b:0", "global_step:0", "w:0"]
