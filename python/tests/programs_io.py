"""TF 1.x programs of input pipelines, records, Example protos, summaries, cluster specs and
flags, run under TensorFlow (gen_expectations.py programs_io records them) and under tfc
(test_differential.py). Files go to temporary directories; only what is deterministic is
recorded (no wall times, host names or thread interleavings; shuffled data sorted).
"""
import os
import shutil
import tempfile

import numpy as np

from programs import _ops, _val


def _tmp():
    return tempfile.mkdtemp(prefix="tfc_io_")


def _example(tf, i):
    return tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes([i, 2 * i, 3 * i, 255 - i])])),
        "score": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i]))}))


def _write_records(tf, path, n, options=None):
    with tf.python_io.TFRecordWriter(path, options=options) as w:
        for i in range(n):
            w.write(_example(tf, i).SerializeToString())


def queue_ops(tf):
    q = tf.FIFOQueue(4, [tf.int32, tf.float32], shapes=[[], [2]])
    enq = q.enqueue([7, [1.5, 2.5]])
    enq_many = q.enqueue_many([[1, 2, 3], [[1., 1.], [2., 2.], [3., 3.]]])
    deq = q.dequeue()
    deq_many = q.dequeue_many(2)
    deq_up_to = q.dequeue_up_to(5)
    size = q.size()
    close = q.close()
    cancel = q.close(cancel_pending_enqueues=True)
    out = {"ops": _ops(tf), "name": q.name, "dtypes": [d.name for d in q.dtypes],
           "shapes": [str(t.shape) for t in deq + deq_many + deq_up_to]}
    with tf.Session() as sess:
        sess.run(enq)
        out["size1"] = _val(sess.run(size))
        sess.run(enq_many)
        out["deq"] = _val(sess.run(deq))
        out["deq_many"] = _val(sess.run(deq_many))
        sess.run(close)
        out["deq_up_to"] = _val(sess.run(deq_up_to))
        try:
            sess.run(deq)
        except tf.errors.OutOfRangeError as e:
            out["closed"] = type(e).__name__
        try:
            sess.run(enq)
        except tf.errors.CancelledError as e:
            out["enqueue_closed"] = type(e).__name__
    del cancel
    return out


def queue_named(tf):
    q = tf.FIFOQueue(3, [tf.int32, tf.string], names=["n", "s"], name="named")
    enq = q.enqueue({"n": 4, "s": "four"})
    deq = q.dequeue()
    out = {"ops": _ops(tf), "keys": sorted(deq)}
    try:
        q.enqueue([1, "x"])
    except ValueError as e:
        out["list_into_named"] = str(e)
    with tf.Session() as sess:
        sess.run(enq)
        out["value"] = _val(sess.run(deq))
    return out


def padding_queue(tf):
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None, 2], [None]])
    x = tf.placeholder(tf.int32, [None, 2])
    s = tf.placeholder(tf.string, [None])
    enq = q.enqueue([x, s])
    free = tf.placeholder(tf.int32)
    enq_free = q.enqueue([free, s])
    many = q.dequeue_many(3)
    up_to = q.dequeue_up_to(3)
    close = q.close()
    out = {"ops": _ops(tf), "shapes": [str(t.shape) for t in many + up_to]}
    with tf.Session() as sess:
        sess.run(enq, {x: [[1, 2]], s: ["a"]})
        sess.run(enq, {x: [[3, 4], [5, 6], [7, 8]], s: []})
        sess.run(enq, {x: np.zeros([0, 2], np.int32), s: ["b", "cc"]})
        out["many"] = _val(sess.run(many))
        sess.run(enq, {x: [[9, 9]], s: ["z"]})
        sess.run(close)
        out["up_to"] = _val(sess.run(up_to))
        try:
            sess.run(enq_free, {free: [[1, 2, 3]], s: []})
        except tf.errors.OpError as e:
            out["bad_shape"] = type(e).__name__
    try:
        tf.PaddingFIFOQueue(2, [tf.int32], shapes=None)
    except (ValueError, TypeError) as e:
        out["no_shapes"] = [type(e).__name__, str(e)]
    return out


def random_shuffle_queue(tf):
    q = tf.RandomShuffleQueue(10, 2, tf.int64, shapes=[[]], seed=3)
    enq = q.enqueue_many([list(range(6))])
    deq = q.dequeue_many(3)
    close = q.close()
    with tf.Session() as sess:
        sess.run(enq)
        a = sess.run(deq)
        sess.run(close)
        b = sess.run(q.dequeue_up_to(10))
    return {"ops": [o for o in _ops(tf) if o[0] != "random_shuffle_queue_DequeueUpTo"],
            "values": sorted(int(x) for x in list(a) + list(b))}


def example_proto(tf):
    ex = _example(tf, 3)
    one = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(float_list=tf.train.FloatList(value=[0.25, -1.0, 3.0]))}))
    parsed = tf.train.Example.FromString(ex.SerializeToString())
    f = parsed.features.feature
    built = tf.train.Example()
    built.features.feature["k"].int64_list.value.extend([1, -2, 1 << 40])
    built.features.feature["b"].bytes_list.value.append(b"\x00\xff")
    return {"one": _val(one.SerializeToString()),
            "built_k": _val(tf.train.Example.FromString(built.SerializeToString())
                            .features.feature["k"].SerializeToString()),
            "label": list(f["label"].int64_list.value), "image": _val(f["image"].bytes_list.value[0]),
            "score": list(f["score"].float_list.value), "kind": f["score"].WhichOneof("kind"),
            "keys": sorted(f.keys()), "equal": parsed == ex, "has": parsed.HasField("features")}


def records(tf):
    d = _tmp()
    try:
        p = os.path.join(d, "r.tfrecord")
        with tf.python_io.TFRecordWriter(p) as w:
            w.write(b"abc")
            w.write(b"")
            w.write(b"x" * 300)
        with open(p, "rb") as f:
            raw = f.read()
        z = os.path.join(d, "z.tfrecord")
        opts = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
        with tf.python_io.TFRecordWriter(z, options=opts) as w:
            for i in range(3):
                w.write(b"rec%d" % i)
        return {"raw": _val(raw), "read": _val(list(tf.python_io.tf_record_iterator(p))),
                "gzip": _val(list(tf.python_io.tf_record_iterator(z, options=opts))),
                "gzip_str": tf.python_io.TFRecordOptions.get_compression_type_string(opts)}
    finally:
        shutil.rmtree(d)


def record_missing(tf):
    return list(tf.python_io.tf_record_iterator("/nonexistent_tfc_dir/nope.tfrecord"))


def text_and_whole_file_readers(tf):
    d = _tmp()
    try:
        a, b = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
        with open(a, "wb") as f:
            f.write(b"h1,h2\n1,2\r\n3,4\n\n5,6")
        with open(b, "wb") as f:
            f.write(b"header\n7,8\n")
        files = tf.train.string_input_producer([a, b], num_epochs=1, shuffle=False)
        key, line = tf.TextLineReader(skip_header_lines=1).read(files)
        whole_q = tf.FIFOQueue(5, tf.string, shapes=[[]])
        fill = whole_q.enqueue_many([[a, b]])
        close = whole_q.close()
        wkey, contents = tf.WholeFileReader().read(whole_q)
        up_q = tf.FIFOQueue(5, tf.string, shapes=[[]])
        up_fill = up_q.enqueue_many([[a]])
        up_close = up_q.close()
        ukeys, ulines = tf.TextLineReader().read_up_to(up_q, 10)
        out = {"ops": [o for o in _ops(tf) if not o[0].startswith("input_producer")], "lines": []}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                while True:
                    k, v = sess.run([key, line])
                    out["lines"].append([os.path.basename(k.decode()), _val(v)])
            except tf.errors.OutOfRangeError as e:
                out["end"] = type(e).__name__
            coord.request_stop()
            coord.join(threads)
            sess.run(fill)
            sess.run(close)
            out["whole"] = [[os.path.basename(x.decode()) for x in [sess.run(wkey)]], _val(sess.run(contents))]
            sess.run(up_fill)
            sess.run(up_close)
            ks, ls = sess.run([ukeys, ulines])
            out["up_to"] = [[os.path.basename(k.decode()) for k in ks], _val(ls)]
        return out
    finally:
        shutil.rmtree(d)


def _pipeline_ops(tf):
    # TF 2.x's compat.v1 builds parse_single_example as ParseExampleV2 (TF 1.15: one
    # ParseSingleExample op): those nodes are compared by the focused tests instead.
    return [o for o in _ops(tf) if not o[0].startswith("ParseSingleExample")]


def input_pipeline(tf):
    d = _tmp()
    try:
        p = os.path.join(d, "data.tfrecord")
        _write_records(tf, p, 5)
        queue = tf.train.string_input_producer([p], num_epochs=2, shuffle=False)
        reader = tf.TFRecordReader()
        key, value = reader.read(queue)
        feats = tf.parse_single_example(value, {"label": tf.FixedLenFeature([], tf.int64),
                                                "image": tf.FixedLenFeature([], tf.string),
                                                "score": tf.FixedLenFeature([2], tf.float32)})
        image = tf.reshape(tf.decode_raw(feats["image"], tf.uint8), [4])
        batch = tf.train.batch([feats["label"], image, feats["score"]], batch_size=3, allow_smaller_final_batch=True)
        out = {"ops": _pipeline_ops(tf), "batch": [t.name for t in batch], "shapes": [str(t.shape) for t in batch],
               "runners": sorted(qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)),
               "summaries": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)],
               "key": str(key.dtype.name), "batches": []}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while not coord.should_stop():
                    out["batches"].append(_val(sess.run(batch)))
            except tf.errors.OutOfRangeError as e:
                out["end"] = type(e).__name__
            finally:
                coord.request_stop()
            coord.join(threads)
        return out
    finally:
        shutil.rmtree(d)


def shuffle_batch_pipeline(tf):
    d = _tmp()
    try:
        p = os.path.join(d, "data.tfrecord")
        _write_records(tf, p, 6)
        queue = tf.train.string_input_producer([p], num_epochs=1, seed=5)
        _, value = tf.TFRecordReader().read(queue)
        label = tf.parse_single_example(value, {"label": tf.FixedLenFeature([], tf.int64)})["label"]
        batch = tf.train.shuffle_batch([label], batch_size=2, capacity=10, min_after_dequeue=2, num_threads=2,
                                       seed=7)
        out = {"ops": _pipeline_ops(tf), "batch": batch.name, "shape": str(batch.shape)}
        got = []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()]
                     if hasattr(tf, "global_variables_initializer") else tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while True:
                    got.extend(int(x) for x in sess.run(batch))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
        out["labels"] = sorted(got)
        return out
    finally:
        shutil.rmtree(d)


def batch_enqueue_many(tf):
    rows = tf.constant([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], name="rows")
    labels = tf.constant([0, 1, 2, 3, 4], dtype=tf.int64, name="labels")
    b = tf.train.batch({"x": rows, "y": labels}, batch_size=2, enqueue_many=True, capacity=8)
    sb = tf.train.shuffle_batch([labels], batch_size=4, capacity=20, min_after_dequeue=1, enqueue_many=True,
                                allow_smaller_final_batch=True, seed=1)
    out = {"ops": _ops(tf), "keys": sorted(b), "shapes": [str(b["x"].shape), str(b["y"].shape), str(sb.shape)]}
    try:
        tf.train.batch([tf.constant(1.0)], 2, enqueue_many=True)
    except ValueError as e:
        out["scalar"] = str(e)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out["first"] = _val(sess.run(b))
        got = sess.run(sb)  # which labels depends on how far the runner got: only their range is fixed
        out["shuffled"] = [len(got), all(0 <= int(v) <= 4 for v in got)]
        coord.request_stop()
        coord.join(threads)
    return out


def batch_dynamic_pad(tf):
    q = tf.FIFOQueue(5, tf.int64, shapes=[[]])
    n = q.dequeue()
    seq = tf.raw_ops.Range(start=tf.constant(0, tf.int64), limit=n, delta=tf.constant(1, tf.int64))
    label = n * 10
    b = tf.train.batch([seq, label], batch_size=2, dynamic_pad=True, name="padded")
    out = {"ops": _ops(tf), "shapes": [str(t.shape) for t in b]}
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[2, 4, 1, 3]]))
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out["batches"] = [_val(sess.run(b)), _val(sess.run(b))]
        coord.request_stop()
        sess.run(q.close(cancel_pending_enqueues=True))
        coord.join(threads)
    return out


def batch_errors(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None])
    for name, f in [("capacity", lambda: tf.train.shuffle_batch([tf.constant(1)], 2, capacity=10,
                                                                   min_after_dequeue=10)),
                    ("unknown", lambda: tf.train.batch([x], 2)),
                    ("empty", lambda: tf.train.batch([], 2)),
                    ("epochs", lambda: tf.train.string_input_producer(["a"], num_epochs=-1))]:
        try:
            f()
            out[name] = None
        except (ValueError, TypeError) as e:
            out[name] = [type(e).__name__, str(e)]
    return out


def summaries(tf):
    x = tf.placeholder(tf.float32, [4], name="x")
    s = tf.summary.scalar("loss", tf.reduce_mean(x))
    with tf.name_scope("train"):
        h = tf.summary.histogram("weights", x)
        s2 = tf.summary.scalar("bad name!", x[0])
    m = tf.summary.merge_all()
    m2 = tf.summary.merge([s, h], name="some")
    with tf.Session() as sess:
        sv, hv, mv = sess.run([s, h, m], {x: [1., 2., 3., 10.]})
    hs = tf.Summary.FromString(hv).value[0]
    return {"ops": _ops(tf), "names": [t.name for t in (s, h, s2, m, m2)],
            "collection": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)],
            "scalar": [[v.tag, v.simple_value] for v in tf.Summary.FromString(sv).value],
            "histo": [hs.tag, hs.histo.min, hs.histo.max, hs.histo.num, hs.histo.sum, hs.histo.sum_squares,
                      list(hs.histo.bucket_limit), list(hs.histo.bucket)],
            "merged_tags": [v.tag for v in tf.Summary.FromString(mv).value]}


def summary_family(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    a = tf.summary.scalar("loss", x[0], family="fam")
    with tf.name_scope("train"):
        b = tf.summary.histogram("w", x, family="my fam")
        c = tf.summary.scalar("loss", x[1], family="fam")
    with tf.Session() as sess:
        vals = sess.run([a, b, c], {x: [1.0, 2.0]})
    return {"ops": _ops(tf), "names": [t.name for t in (a, b, c)],
            "tags": [[v.tag for v in tf.Summary.FromString(m).value] for m in vals]}


def merge_all_empty(tf):
    tf.constant(1)
    return {"merge_all": tf.summary.merge_all()}


def file_writer(tf):
    d = _tmp()
    try:
        x = tf.placeholder(tf.float32, [], name="x")
        s = tf.summary.scalar("value", x)
        w = tf.summary.FileWriter(d, tf.get_default_graph())
        with tf.Session() as sess:
            for step in range(3):
                w.add_summary(sess.run(s, {x: step * 1.5}), step)
        w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="manual", simple_value=4.0)]), 10)
        w.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 11)
        w.add_event(tf.Event(wall_time=123.0, step=12, file_version="custom"))
        w.flush()
        w.close()
        files = os.listdir(d)
        events = []
        for rec in tf.python_io.tf_record_iterator(os.path.join(d, files[0])):
            e = tf.Event.FromString(rec)
            what = e.WhichOneof("what")
            item = [e.step, what]
            if what == "summary":
                item.append([[v.tag, v.simple_value] for v in e.summary.value])
            elif what == "file_version":
                item.append(e.file_version)
            elif what == "session_log":
                item.append(e.session_log.status)
            elif what == "graph_def":
                item.append(len(e.graph_def) > 0)
            if e.wall_time == 123.0:
                item.append("wall_time kept")
            events.append(item)
        return {"count": len(files), "prefix": files[0].startswith("events.out.tfevents."), "events": events}
    finally:
        shutil.rmtree(d)


def cluster_spec(tf):
    cs = tf.train.ClusterSpec({"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"], "sparse": {2: "s2:1"}})
    cd = cs.as_cluster_def()
    out = {"jobs": sorted(cs.jobs), "num_tasks": cs.num_tasks("worker"), "addr": cs.task_address("worker", 1),
           "as_dict": {k: v for k, v in sorted(cs.as_dict().items())}, "indices": cs.task_indices("sparse"),
           "job_tasks": cs.job_tasks("sparse"), "str": str(tf.train.ClusterSpec({"a": ["h:1"]})),
           "def": [[j.name, sorted(j.tasks.items())] for j in cd.job],
           "roundtrip": tf.train.ClusterSpec(cd).as_dict() == cs.as_dict(), "bool": bool(tf.train.ClusterSpec({}))}
    for name, f in [("no_job", lambda: cs.num_tasks("x")), ("no_task", lambda: cs.task_address("worker", 3)),
                    ("bad_type", lambda: tf.train.ClusterSpec(["a"]))]:
        try:
            f()
        except (ValueError, TypeError) as e:
            out[name] = [type(e).__name__, str(e)]
    return out


def flags(tf):
    fv = tf.app.flags.FlagValues()
    tf.app.flags.DEFINE_string("data_dir", "/tmp/data", "where", flag_values=fv)
    tf.app.flags.DEFINE_integer("steps", 10, "how many", flag_values=fv)
    tf.app.flags.DEFINE_float("lr", 0.1, "rate", flag_values=fv)
    tf.app.flags.DEFINE_boolean("fake", False, "fake data", flag_values=fv)
    tf.app.flags.DEFINE_boolean("log", True, "log", flag_values=fv)
    rest = fv(["prog", "--steps=20", "--lr", "0.5", "--fake", "--nolog", "pos", "--unknown=1"], known_only=True)
    out = {"rest": rest, "values": [fv.data_dir, fv.steps, fv.lr, fv.fake, fv.log]}
    try:
        fv(["prog", "--steps=abc"])
    except Exception as e:  # noqa: BLE001 (absl's class)
        out["bad"] = type(e).__name__
    return out


PROGRAMS = [queue_ops, queue_named, padding_queue, random_shuffle_queue, example_proto, records, record_missing,
            input_pipeline, shuffle_batch_pipeline, batch_enqueue_many, batch_dynamic_pad, text_and_whole_file_readers,
            batch_errors, summaries, summary_family, merge_all_empty, file_writer, cluster_spec, flags]
