"""TF 1.x programs of savers, checkpoints and meta graph files, run under TensorFlow
(gen_expectations.py programs_saver records them) and under tfc (test_differential.py). Files go
to temporary directories, whose paths are replaced by "<dir>" in what is recorded.
"""
import os
import shutil
import tempfile

from programs import _ops, _val


def _tmp():
    return tempfile.mkdtemp(prefix="tfc_saver_")


def _rel(x, d):
    if isinstance(x, (list, tuple)):
        return [_rel(y, d) for y in x]
    return x.replace(d, "<dir>") if isinstance(x, str) else x


def _listing(d):
    return sorted(os.listdir(d))


def _model(tf):
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    b = tf.Variable([0.5, -0.5], name="b")
    n = tf.Variable(7, name="n", trainable=False)
    return w, b, n


def _saver_def(s):
    d = s.as_saver_def()
    return [d.filename_tensor_name, d.save_tensor_name, d.restore_op_name, d.max_to_keep,
            float(d.keep_checkpoint_every_n_hours), int(d.version)]


def saver_graph(tf):
    w, b, n = _model(tf)
    s1 = tf.train.Saver()
    s2 = tf.train.Saver({"renamed": w, "bias": b}, name="mine")
    s3 = tf.train.Saver([n, w], max_to_keep=2, keep_checkpoint_every_n_hours=2.0)
    with tf.device("/cpu:0"):
        tf.train.Saver([b])
    return {"ops": _ops(tf), "devices": [[o.name, o.device] for o in tf.get_default_graph().get_operations()],
            "defs": [_saver_def(s) for s in (s1, s2, s3)], "savers": len(tf.get_collection("savers"))}


def save_restore_steps(tf):
    d = _tmp()
    try:
        w, b, n = _model(tf)
        s = tf.train.Saver(max_to_keep=3)
        out = {}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefixes = [s.save(sess, os.path.join(d, "model"), global_step=i) for i in range(5)]
            out["prefixes"] = _rel(prefixes, d)
            out["files"] = _listing(d)
            with open(os.path.join(d, "checkpoint")) as f:
                out["state"] = _rel(f.read(), d)
            out["last"] = _rel(s.last_checkpoints, d)
            out["latest"] = _rel(tf.train.latest_checkpoint(d), d)
            st = tf.train.get_checkpoint_state(d)
            out["state_paths"] = _rel([st.model_checkpoint_path] + list(st.all_model_checkpoint_paths), d)
            out["exists"] = [tf.train.checkpoint_exists(os.path.join(d, "model-4")),
                             tf.train.checkpoint_exists(os.path.join(d, "model-0"))]
            sess.run([w.assign([[9.0, 9.0], [9.0, 9.0]]), n.assign(0)])
            s.restore(sess, prefixes[-1])
            out["restored"] = _val(sess.run([w, b, n]))
            out["no_step"] = _rel(s.save(sess, os.path.join(d, "plain"), write_meta_graph=False), d)
            out["files2"] = _listing(d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def save_options(tf):
    d = _tmp()
    try:
        w, b, n = _model(tf)
        step = tf.train.get_or_create_global_step()
        s = tf.train.Saver(pad_step_number=True)
        out = {"ops": _ops(tf)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step.assign(42))
            out["tensor_step"] = _rel(s.save(sess, os.path.join(d, "m"), global_step=step,
                                             latest_filename="other", meta_graph_suffix="mg"), d)
            out["no_state"] = _rel(s.save(sess, os.path.join(d, "x"), global_step=3, write_state=False,
                                          write_meta_graph=False), d)
            out["files"] = _listing(d)
            out["latest_default"] = tf.train.latest_checkpoint(d)
            out["latest_other"] = _rel(tf.train.latest_checkpoint(d, latest_filename="other"), d)
            out["last"] = _rel(s.last_checkpoints, d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def set_and_recover_last(tf):
    d = _tmp()
    try:
        _model(tf)
        s = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(3):
                s.save(sess, os.path.join(d, "m"), global_step=i, write_meta_graph=False)
            s2 = tf.train.Saver(max_to_keep=2)
            st = tf.train.get_checkpoint_state(d)
            s2.recover_last_checkpoints(st.all_model_checkpoint_paths)
            out = {"recovered": _rel(s2.last_checkpoints, d)}
            s2.save(sess, os.path.join(d, "m"), global_step=7, write_meta_graph=False)
            out["after"] = _rel(s2.last_checkpoints, d)
            out["files"] = _listing(d)
            s2.set_last_checkpoints([os.path.join(d, "m-7")])
            out["set"] = _rel(s2.last_checkpoints, d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def restore_by_other_names(tf):
    d = _tmp()
    try:
        w, b, n = _model(tf)
        s = tf.train.Saver({"weights": w, "count": n})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            p = s.save(sess, os.path.join(d, "m"), write_meta_graph=False)
        tf.reset_default_graph()
        other = tf.Variable(tf.zeros([2, 2]), name="other")
        k = tf.Variable(0, name="k")
        s2 = tf.train.Saver({"weights": other, "count": k})
        with tf.Session() as sess:
            s2.restore(sess, p)
            return {"values": _val(sess.run([other, k])), "ops": _ops(tf)}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _error(f):
    try:
        f()
        return None
    except Exception as e:  # noqa: BLE001
        msg = e.message if hasattr(e, "message") and hasattr(e, "error_code") else str(e)
        return [type(e).__name__, msg.split("\n")[0]]


def saver_errors(tf):
    d = _tmp()
    try:
        w, b, n = _model(tf)
        out = {
            "duplicate": _error(lambda: tf.train.Saver([w, w])),
            "empty": _error(lambda: tf.train.Saver([])),
            "dict_const": _error(lambda: tf.train.Saver({"a": tf.constant(3.0, name="c3")})),
            "list_const": _error(lambda: tf.train.Saver([tf.constant(1.0, name="c1")])),
            "same_twice": _error(lambda: tf.train.Saver({"a": w, "b2": w})),
            "defer_with_list": _error(lambda: tf.train.Saver([w], defer_build=True)),
        }
        s = tf.train.Saver()
        empty = tf.train.Saver([], allow_empty=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["restore_none"] = _error(lambda: s.restore(sess, None))
            out["restore_missing"] = _rel(_error(lambda: s.restore(sess, os.path.join(d, "nope"))), d)
            out["parent_missing"] = _rel(_error(lambda: s.save(sess, os.path.join(d, "a", "b", "m"))), d)
            out["collides"] = _rel(_error(lambda: s.save(sess, os.path.join(d, "checkpoint"))), d)
            out["latest_path"] = _error(lambda: s.save(sess, os.path.join(d, "m"), latest_filename="a/b"))
            out["not_session"] = _error(lambda: s.save("sess", os.path.join(d, "m")))
            out["empty_save"] = empty.save(sess, os.path.join(d, "e"), write_meta_graph=False)
            out["empty_restore"] = empty.restore(sess, os.path.join(d, "e"))
            p = tf.train.Saver({"w": w}).save(sess, os.path.join(d, "only_w"), write_meta_graph=False)
            out["key_missing"] = _error(lambda: s.restore(sess, p))
            wrong = tf.train.Saver({"w": b})
            out["shape_mismatch"] = _error(lambda: wrong.restore(sess, p))
        out["files"] = _listing(d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _collections(tf, keys):
    g = tf.get_default_graph()
    return {k: [getattr(v, "name", v) if not isinstance(v, bytes) else v.decode() for v in g.get_collection(k)]
            for k in keys}


_KEYS = ("variables", "trainable_variables", "global_step", "losses", "train_op", "summaries", "ints", "floats",
         "strs", "model_variables")


def _training(tf):
    x = tf.constant([[1.0, 2.0]], name="x")
    w = tf.Variable([[0.5], [-1.0]], name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)), name="loss")
    tf.add_to_collection("losses", loss)
    tf.add_to_collection("ints", 3)
    tf.add_to_collection("floats", 0.25)
    tf.add_to_collection("strs", "hello")
    tf.add_to_collection("model_variables", w)
    tf.summary.scalar("loss", loss)
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)


def meta_graph_round_trip(tf):
    d = _tmp()
    try:
        train = _training(tf)
        s = tf.train.Saver()
        out = {}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            p = s.save(sess, os.path.join(d, "m"), global_step=1)
            out["trained"] = _val(sess.run(["w:0", "global_step:0"]))
        out["files"] = _listing(d)
        mg = tf.train.export_meta_graph()
        out["keys"] = sorted(mg.collection_def.keys())
        out["kinds"] = {k: mg.collection_def[k].WhichOneof("kind") for k in sorted(mg.collection_def.keys())}
        out["saver_def"] = [mg.saver_def.filename_tensor_name, mg.saver_def.restore_op_name]
        tf.reset_default_graph()
        s2 = tf.train.import_meta_graph(p + ".meta")
        out["saver"] = _saver_def(s2)
        out["collections"] = _collections(tf, _KEYS)
        out["ops_after_import"] = _ops(tf)
        with tf.Session() as sess:
            s2.restore(sess, p)
            out["restored"] = _val(sess.run(["w:0", "global_step:0", "loss:0"]))
            sess.run(tf.get_collection("train_op")[0])
            out["stepped"] = _val(sess.run(["w:0", "global_step:0"]))
            out["saved_again"] = _rel(s2.save(sess, os.path.join(d, "again")), d)
        tf.reset_default_graph()
        s3 = tf.train.import_meta_graph(p + ".meta", import_scope="imp", clear_devices=True)
        out["scoped_saver"] = _saver_def(s3)
        out["scoped"] = _collections(tf, _KEYS)
        with tf.Session() as sess:
            s3.restore(sess, p)
            out["scoped_restored"] = _val(sess.run("imp/w:0"))
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def meta_graph_files(tf):
    d = _tmp()
    try:
        _model(tf)
        tf.add_to_collection("train_op", tf.group(name="step"))
        path = os.path.join(d, "sub", "g.meta")
        mg = tf.train.export_meta_graph(path, collection_list=["trainable_variables", "train_op"])
        out = {"keys": sorted(mg.collection_def.keys()), "files": _listing(os.path.join(d, "sub")),
               "has_saver": mg.HasField("saver_def")}
        tf.reset_default_graph()
        out["no_saver"] = type(tf.train.import_meta_graph(path)).__name__
        out["collections"] = _collections(tf, ("variables", "trainable_variables", "train_op"))
        tf.reset_default_graph()
        tf.constant(1.0, name="only")
        out["nothing"] = tf.train.import_meta_graph(tf.train.export_meta_graph()) is None
        out["missing_file"] = _rel(_error(lambda: tf.train.import_meta_graph(os.path.join(d, "none.meta"))), d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def write_graph_file(tf):
    d = _tmp()
    try:
        tf.constant([1, 2], name="c")
        p1 = tf.train.write_graph(tf.get_default_graph(), os.path.join(d, "x"), "g.pbtxt")
        p2 = tf.train.write_graph(tf.get_default_graph().as_graph_def(), d, "g.pb", as_text=False)
        with open(p1) as f:
            text = f.read()
        return {"paths": _rel([p1, p2], d), "files": _listing(d), "text_has_node": 'name: "c"' in text}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def checkpoint_reader(tf):
    d = _tmp()
    try:
        w, b, n = _model(tf)
        s = tf.train.Saver({"w": w, "bias": b, "count": n})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            p = s.save(sess, os.path.join(d, "r"), global_step=2, write_meta_graph=False)
        r = tf.train.NewCheckpointReader(p)
        out = {"shapes": sorted(r.get_variable_to_shape_map().items()),
               "dtypes": sorted((k, v.name) for k, v in r.get_variable_to_dtype_map().items()),
               "has": [r.has_tensor("w"), r.has_tensor("nope")],
               "w": _val(r.get_tensor("w")), "count": _val(r.get_tensor("count")),
               "list": tf.train.list_variables(d),
               "load": _val(tf.train.load_variable(d, "bias")),
               "load_file": _val(tf.train.load_variable(p, "w:0")),
               "missing_key": _error(lambda: r.get_tensor("nope")),
               "missing_file": _rel(_error(lambda: tf.train.NewCheckpointReader(os.path.join(d, "none"))), d)}
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def savers_collection_and_sessions(tf):
    d = _tmp()
    try:
        w, b, n = _model(tf)
        s = tf.train.Saver({"w": w}, max_to_keep=4, name="only_w")
        tf.add_to_collection("savers", s)
        mg = tf.train.export_meta_graph(collection_list=["savers", "variables"])
        out = {"kinds": {k: mg.collection_def[k].WhichOneof("kind") for k in sorted(mg.collection_def.keys())}}
        other = tf.Graph()
        with other.as_default():
            tf.constant(1.0, name="x")
        with tf.Session(graph=other) as sess:
            out["other_graph_save"] = _error(lambda: s.save(sess, os.path.join(d, "m")))
        tf.reset_default_graph()
        tf.train.import_meta_graph(mg, import_scope="again")
        savers = tf.get_collection("savers")
        out["savers"] = [_saver_def(x) for x in savers]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["saved"] = _rel(savers[0].save(sess, os.path.join(d, "via_collection"), write_meta_graph=False), d)
        out["files"] = _listing(d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _meta_graph_round_trip_115(e):
    # TF 1.15's gradients name the ones Fill "gradients/Fill" of Const "gradients/grad_ys_0"
    # (TF 2.x: "gradients/grad_ys_0" of "gradients/grad_ys_0/Const").
    ops = e["result"]["ops_after_import"]
    for op in ops:
        if op == ["gradients/grad_ys_0/Const", "Const"]:
            op[0] = "gradients/grad_ys_0"
        elif op == ["gradients/grad_ys_0", "Fill"]:
            op[0] = "gradients/Fill"


def _meta_graph_files_115(e):
    e["result"]["missing_file"][1] = "File <dir>/none.meta does not exist."


TF115 = {"meta_graph_round_trip": _meta_graph_round_trip_115, "meta_graph_files": _meta_graph_files_115}

PROGRAMS = [saver_graph, save_restore_steps, save_options, set_and_recover_last, restore_by_other_names,
            saver_errors, meta_graph_round_trip, meta_graph_files, write_graph_file, checkpoint_reader,
            savers_collection_and_sessions]


def relative_save_dir(tf):
    # A save under a relative directory (seed 004's --out): the state file records paths
    # relative to it, whatever save_relative_paths says, and the reader joins them back.
    v = tf.Variable(1.0, name="v")
    out = {}
    cwd = os.getcwd()
    os.chdir(_tmp())
    try:
        for rel in (False, True):
            d = "ckpt_rel" if rel else "ckpt"
            saver = tf.train.Saver(save_relative_paths=rel)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                saver.save(sess, d + "/model.ckpt", global_step=3)
                saver.save(sess, d + "/model.ckpt", global_step=4)
            st = tf.train.get_checkpoint_state(d)
            out[d] = {"file": open(os.path.join(d, "checkpoint")).read(), "model": st.model_checkpoint_path,
                      "all": list(st.all_model_checkpoint_paths), "latest": tf.train.latest_checkpoint(d)}
    finally:
        os.chdir(cwd)
    return out


PROGRAMS += [relative_save_dir]
