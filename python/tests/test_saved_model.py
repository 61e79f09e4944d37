"""tf.saved_model's TF 1.x API (tfc/_saved_model.py): loader.load on SavedModels TensorFlow
wrote (tests/fixtures/saved_model_*, gen_saved_model.py: TF 1.x builder models, one with its
init op in the "__saved_model_init_op" signature, and TF 2.x tf.saved_model.save models)
gives TF's outputs (expected.txt); simple_save / Builder write SavedModels that load back with
the saved values and main op, with assets (copied and fed at load from a moved copy), a second
MetaGraphDef (add_meta_graph) and the text form (save(as_text=True)); TF's Builder's models with
those load too (gen_saved_model_assets.py); TF's errors for a missing tag-set, a missing directory, a
non-empty export directory and empty prediction signatures."""
import os

import numpy as np
import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures")


def _expected(name):
    """The feed (tensor, value) and the expected outputs of a fixture's expected.txt."""
    feed, outs = ("x:0", np.array([1.0, 2.0, 3.0], np.float32)), []
    with open(os.path.join(FIXTURES, name, "expected.txt")) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "feed":
                shape = [int(d) for d in parts[2].split("x")]
                feed = (parts[1], np.array([float(v) for v in parts[3:]], np.float32).reshape(shape))
            else:
                outs.append((parts[0], np.array([float(v) for v in parts[1:]])))
    return feed, outs


@pytest.mark.parametrize("name", ["saved_model_half", "saved_model_sharded", "saved_model_init", "saved_model_init_sig",
                                  "saved_model_asset", "saved_model_tf2_module", "saved_model_tf2_keras"])
def test_load_gives_tf_outputs(name):
    (feed, value), outs = _expected(name)
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], os.path.join(FIXTURES, name))
        assert "serving_default" in mg.signature_def
        for tensor, want in outs:
            got = sess.run(tensor, {feed: value})
            np.testing.assert_allclose(got.ravel(), want, rtol=1e-5, atol=1e-6)


def test_tf2_table_model_is_initialized():
    """The lookup table of a TF 2.x model is filled by the init op at load; the values are what
    saved_model_cli run printed (tests/fixtures/saved_model_cli/saved_model_tf2_table.run)."""
    with open(os.path.join(FIXTURES, "saved_model_cli", "saved_model_tf2_table.run")) as f:
        want = [int(v) for v in f.read().split("\n", 1)[1].strip(" []\n").split()]
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], os.path.join(FIXTURES, "saved_model_tf2_table"))
        sig = mg.signature_def["serving_default"]
        got = sess.run(sig.outputs["v"].name, {sig.inputs["k"].name: ["a", "c", "z"]})
    assert got.tolist() == want


def test_signature_def_is_read():
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.load(sess, ["serve"], os.path.join(FIXTURES, "saved_model_tf2_module"))
    sig = mg.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sig.inputs["x"].name == "serving_default_x:0"
    assert sig.inputs["x"].dtype == tf.float32.as_datatype_enum
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 2]
    assert sig.outputs["y"].name == "StatefulPartitionedCall:0"


def test_missing_tags_list_the_available_ones():
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(RuntimeError) as e:
            tf.saved_model.loader.load(sess, ["gpu"], os.path.join(FIXTURES, "saved_model_half"))
    assert str(e.value) == ("MetaGraphDef associated with tags 'gpu' could not be found in SavedModel, with "
                            "available tags '[{'serve'}]'. To inspect available tag-sets in the SavedModel, "
                            "please use the SavedModel CLI: `saved_model_cli`.")


def test_missing_directory(tmp_path):
    d = str(tmp_path / "none")
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(IOError) as e:
            tf.saved_model.loader.load(sess, ["serve"], d)
    assert str(e.value) == "SavedModel file does not exist at: %s/{saved_model.pbtxt|saved_model.pb}" % d


def _model():
    x = tf.placeholder(tf.float32, [None], name="x")
    w = tf.Variable(0.5, name="w")
    c = tf.Variable(0.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    y = tf.add(w * x, 1.0, name="y")
    z = tf.add(x, c, name="z")
    return x, w, c, y, z


def test_simple_save_round_trip(tmp_path):
    out = str(tmp_path / "model")
    with tf.Session(graph=tf.Graph()) as sess:
        x, w, c, y, z = _model()
        main = tf.group(tf.assign(c, 7.0), name="main_op")
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, 3.0))
        tf.saved_model.simple_save(sess, out, {"x": x}, {"y": y, "z": z}, legacy_init_op=main)
    assert sorted(os.listdir(out)) == ["saved_model.pb", "variables"]
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], out)
        sig = mg.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        assert sig.inputs["x"].name == "x:0"
        y, z = sess.run([sig.outputs["y"].name, sig.outputs["z"].name], {"x:0": [1.0, 2.0]})
    np.testing.assert_allclose(y, [4.0, 7.0])  # w saved as 3, not its initial 0.5
    np.testing.assert_allclose(z, [8.0, 9.0])  # c set by the main op


def test_builder_with_saver(tmp_path):
    out = str(tmp_path / "model")
    with tf.Session(graph=tf.Graph()) as sess:
        x, w, c, y, z = _model()
        sess.run(tf.global_variables_initializer())
        b = tf.saved_model.Builder(out)
        sig = tf.saved_model.predict_signature_def({"x": x}, {"y": y})
        b.add_meta_graph_and_variables(sess, ["serve", "gpu"], {"predict": sig}, saver=tf.train.Saver([w]))
        assert b.save() == os.path.join(out, "saved_model.pb").encode()
        with pytest.raises(AssertionError):
            b.add_meta_graph_and_variables(sess, ["serve"])
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, ["gpu", "serve"], out)
        assert sorted(mg.meta_info_def.tags) == ["gpu", "serve"]
        np.testing.assert_allclose(sess.run("y:0", {"x:0": [2.0]}), [2.0])


def test_builder_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(AssertionError) as e:
        tf.saved_model.Builder(str(tmp_path))
    assert str(e.value) == ("Export directory %s already exists, and isn't empty. Please choose a different "
                            "export directory, or delete all the contents of the specified directory." % tmp_path)


def test_prediction_signature_needs_inputs_and_outputs():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty."):
            tf.saved_model.predict_signature_def({}, {"x": x})
        with pytest.raises(ValueError, match="Prediction outputs cannot be None or empty."):
            tf.saved_model.predict_signature_def({"x": x}, None)


def _vocab_expected(name):
    """expected.txt of gen_saved_model_assets.py: (tags, tensor, values) per line."""
    rows = []
    with open(os.path.join(FIXTURES, name, "expected.txt")) as f:
        for line in f:
            tags, tensor, *vals = line.split()
            rows.append((tags.split(","), tensor, [float(v) for v in vals]))
    return rows


def _check_vocab_model(d, rows):
    for tags, tensor, want in rows:
        with tf.Session(graph=tf.Graph()) as sess:
            mg = tf.saved_model.loader.load(sess, tags, d)
            assert sorted(mg.meta_info_def.tags) == sorted(tags)
            got = sess.run(tensor, {"words:0": ["b", "zz", "a"]})
            np.testing.assert_allclose(np.ravel(got), want, rtol=1e-5)


@pytest.mark.parametrize("name", ["saved_model_vocab", "saved_model_vocab_text", "saved_model_multi"])
def test_tf_builder_assets_text_and_meta_graphs(name, tmp_path):
    """TF's Builder models (gen_saved_model_assets.py) load from a copy elsewhere: the vocabulary
    table reads the copy's asset; the text form and each of two MetaGraphDefs load too."""
    import shutil
    d = str(tmp_path / "moved")
    shutil.copytree(os.path.join(FIXTURES, name), d)
    _check_vocab_model(d, _vocab_expected(name))


def test_builder_assets_meta_graphs_and_text(tmp_path):
    """The builder copies the asset (a file read by the main op), adds a second MetaGraphDef
    sharing the variables, and writes the text form; each loads from a copy elsewhere, the
    asset path fed being the copy's."""
    import shutil
    src = tmp_path / "num.txt"
    src.write_text("5.5")
    for as_text in (False, True):
        out = str(tmp_path / ("m_text" if as_text else "m"))
        with tf.Session(graph=tf.Graph()) as sess:
            x, w, c, y, z = _model()
            path = tf.constant(str(src), name="asset_path")
            main = tf.group(tf.assign(c, tf.strings.to_number(tf.io.read_file(path))), name="main_op")
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(w, 3.0))
            b = tf.saved_model.Builder(out)
            with pytest.raises(AssertionError, match="has not been saved yet"):
                b.add_meta_graph(["serve"])
            b.add_meta_graph_and_variables(sess, ["serve"], {"serving_default": tf.saved_model.predict_signature_def(
                {"x": x}, {"y": y})})
            tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, path)
            b.add_meta_graph(["serve", "gpu"], {"serving_default": tf.saved_model.predict_signature_def(
                {"x": x}, {"z": z})}, assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
                main_op=main)
            name = "saved_model.pbtxt" if as_text else "saved_model.pb"
            assert b.save(as_text=as_text) == os.path.join(out, name).encode()
        assert sorted(os.listdir(out)) == ["assets", name, "variables"]
        assert (tmp_path / os.path.basename(out) / "assets" / "num.txt").read_text() == "5.5"
    src.unlink()
    for d in ("m", "m_text"):
        moved = str(tmp_path / "moved" / d)
        shutil.copytree(str(tmp_path / d), moved)
        with tf.Session(graph=tf.Graph()) as sess:
            tf.saved_model.loader.load(sess, ["serve"], moved)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": [2.0]}), [7.0])
        with tf.Session(graph=tf.Graph()) as sess:
            mg = tf.saved_model.loader.load(sess, ["gpu", "serve"], moved)
            assert mg.signature_def["serving_default"].outputs["z"].name == "z:0"
            # the graph's own collection goes in too, as TF's builder exports it
            assert list(mg.collection_def["asset_filepaths"].node_list.value) == ["asset_path:0"]
            np.testing.assert_allclose(sess.run("z:0", {"x:0": [1.0]}), [6.5])


def test_builder_asset_must_be_a_string_const(tmp_path):
    with tf.Session(graph=tf.Graph()) as sess:
        x, w, c, y, z = _model()
        sess.run(tf.global_variables_initializer())
        b = tf.saved_model.Builder(str(tmp_path / "m"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Asset path tensor y:0 must be of type constant"):
            b.add_meta_graph_and_variables(sess, ["serve"], assets_collection=[y])
