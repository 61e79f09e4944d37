"""Focused tests of input pipelines, records, summaries, coordinators, servers and flags
(tfc/tf_record.py, data_flow_ops.py, input_pipeline.py, queue_runner.py, coordinator.py,
summary_ops.py, server_lib.py, platform_app.py). Where real TensorFlow or tensorboard is
installed (development) the files are also read back by them; CI parses the files itself.
"""
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def _have(module):
    """Whether module imports here. Not under the sanitizers (the runtime is loaded without
    RTLD_DEEPBIND there, so TensorFlow's TF_* symbols would collide with libtfc's) nor under
    valgrind (TFC_NO_TENSORFLOW=1: TensorFlow's own import would dominate the run)."""
    if os.environ.get("TFC_SANITIZED") == "1" or os.environ.get("TFC_NO_TENSORFLOW") == "1":
        return False
    try:
        __import__(module)
        return True
    except Exception:  # noqa: BLE001
        return False


def _example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "pixels": tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes([i] * 4)]))}))


def _write(path, n, options=None):
    with tf.python_io.TFRecordWriter(path, options=options) as w:
        for i in range(n):
            w.write(_example(i).SerializeToString())


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield


# ---------------------------------------------------------------- records and examples

def test_record_file_read_by_tfc_pipeline(tmp_path):
    path = str(tmp_path / "d.tfrecord")
    _write(path, 7)
    q = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(q)
    f = tf.parse_single_example(value, {"label": tf.FixedLenFeature([], tf.int64),
                                        "pixels": tf.FixedLenFeature([], tf.string)})
    px = tf.reshape(tf.decode_raw(f["pixels"], tf.uint8), [4])
    labels, pixels = tf.train.batch([f["label"], px], batch_size=3, allow_smaller_final_batch=True)
    got = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        with pytest.raises(tf.errors.OutOfRangeError):
            while True:
                lv, pv = sess.run([labels, pixels])
                assert (pv == np.repeat(lv[:, None], 4, axis=1)).all()
                got.extend(lv.tolist())
        coord.request_stop()
        coord.join(threads)
    assert got == list(range(7))


@pytest.mark.skipif(not _have("tensorflow"), reason="TensorFlow not installed (development only)")
@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_record_file_read_by_tensorflow(tmp_path, compression):
    import tensorflow as real
    path = str(tmp_path / "d.tfrecord")
    _write(path, 4, options=compression or None)
    recs = list(real.compat.v1.io.tf_record_iterator(path, options=compression or None))
    labels = [real.train.Example.FromString(r).features.feature["label"].int64_list.value[0] for r in recs]
    assert labels == [0, 1, 2, 3]
    # and the other way round: TensorFlow's file read by tfc
    path2 = str(tmp_path / "tf.tfrecord")
    with real.io.TFRecordWriter(path2, options=compression or None) as w:
        for i in range(3):
            w.write(_example(i).SerializeToString())
    back = [tf.train.Example.FromString(r).features.feature["label"].int64_list.value[0]
            for r in tf.python_io.tf_record_iterator(path2, options=compression or None)]
    assert back == [0, 1, 2]


@pytest.mark.skipif(not _have("tensorflow"), reason="TensorFlow not installed (development only)")
def test_example_bytes_equal_protobufs():
    import tensorflow as real
    one = lambda m: m.train.Example(features=m.train.Features(feature={  # noqa: E731
        "f": m.train.Feature(float_list=m.train.FloatList(value=[1.5, -2.0])),
        }))
    assert one(tf).SerializeToString() == one(real).SerializeToString()
    s = tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=3.0)])
    assert s.SerializeToString() == real.compat.v1.Summary(
        value=[real.compat.v1.Summary.Value(tag="a", simple_value=3.0)]).SerializeToString()


def test_example_message_api():
    ex = tf.train.Example()
    ex.features.feature["a"].int64_list.value.append(3)
    ex.features.feature["b"].bytes_list.value.extend([b"x", "y"])
    assert ex.HasField("features")
    back = tf.train.Example.FromString(ex.SerializeToString())
    assert back == ex
    assert list(back.features.feature["b"].bytes_list.value) == [b"x", b"y"]
    assert back.features.feature["a"].WhichOneof("kind") == "int64_list"
    with pytest.raises(ValueError, match='Protocol message Example has no "feature" field.'):
        tf.train.Example(feature={})
    with pytest.raises(TypeError):
        ex.features.feature["a"].int64_list.value.append("no")
    with pytest.raises(Exception, match="Error parsing message"):
        tf.train.Example.FromString(b"\x0a\x05ab")


def test_record_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="nope.tfrecord; No such file or directory"):
        list(tf.python_io.tf_record_iterator(str(tmp_path / "nope.tfrecord")))
    path = str(tmp_path / "bad.tfrecord")
    _write(path, 2)
    data = bytearray(open(path, "rb").read())
    data[-6] ^= 0xFF  # inside the second record's data
    open(path, "wb").write(bytes(data))
    it = tf.python_io.tf_record_iterator(path)
    next(it)
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at"):
        next(it)
    w = tf.python_io.TFRecordWriter(str(tmp_path / "w.tfrecord"))
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError):
        w.write(b"late")
    with pytest.raises(ValueError, match="Unknown compression type: LZ4"):
        tf.python_io.TFRecordWriter(str(tmp_path / "x"), options="LZ4")


def test_text_line_reader_errors(tmp_path):
    q = tf.FIFOQueue(3, tf.string, shapes=[[]])
    fill = q.enqueue_many([[str(tmp_path / "missing.txt"), str(tmp_path / "ok.txt")]])
    (tmp_path / "ok.txt").write_bytes(b"only\n")
    key, line = tf.TextLineReader().read(q)
    with tf.Session() as sess:
        sess.run(fill)
        with pytest.raises(tf.errors.NotFoundError, match="missing.txt; No such file or directory"):
            sess.run(line)
        k, v = sess.run([key, line])  # the failed file is skipped, as TF's reader does
        assert (k.decode().endswith("ok.txt:1"), v) == (True, b"only")
    bad = tf.TextLineReader(skip_header_lines=-1).read(q)[1]
    with tf.Session() as sess:
        sess.run(fill)
        with pytest.raises(tf.errors.InvalidArgumentError, match="skip_header_lines must be >= 0 not -1"):
            sess.run(bad)


# ---------------------------------------------------------------- coordinator and runners

def test_coordinator_reraises_and_stop_on_exception():
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise RuntimeError("boom")
    assert coord.should_stop()
    with pytest.raises(RuntimeError, match="boom"):
        coord.join([])
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end"))  # a clean stop
    coord.join([])
    coord.clear_stop()
    assert not coord.should_stop()


def test_runner_error_stops_coordinator_and_is_reraised():
    q = tf.FIFOQueue(4, tf.float32, shapes=[[]])
    bad = tf.raw_ops.CheckNumerics(tensor=tf.constant(float("nan")), message="bad value")
    enq = q.enqueue(bad)
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [enq]))
    deq = q.dequeue()
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
            try:
                sess.run(deq)  # the runner's failure closes the queue: CANCELLED or OUT_OF_RANGE here
            except (tf.errors.OutOfRangeError, tf.errors.CancelledError):
                pass
            coord.join(threads, stop_grace_period_secs=10)
        assert coord.should_stop()


def test_runners_end_when_session_closes():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    enq = q.enqueue(tf.constant(1))
    qr = tf.train.QueueRunner(q, [enq] * 2)
    tf.train.add_queue_runner(qr)
    sess = tf.Session()
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    assert len(threads) == 2
    assert tf.train.start_queue_runners(sess, coord) == []  # already running for this session
    assert sess.run(q.dequeue()) == 1
    sess.close()  # blocked enqueues are cancelled; the threads end quietly
    coord.join(threads, stop_grace_period_secs=10)
    assert not any(t.is_alive() for t in threads)


def test_start_queue_runners_needs_session():
    with pytest.raises(ValueError, match="Cannot start queue runners: No default session is registered."):
        tf.train.start_queue_runners()


# ---------------------------------------------------------------- summaries

def _events(path):
    out = []
    for rec in tf.python_io.tf_record_iterator(path):
        out.append(tf.Event.FromString(rec))
    return out


def test_file_writer_events_parsed(tmp_path):
    x = tf.placeholder(tf.float32, [], name="x")
    s = tf.summary.scalar("loss", x)
    h = tf.summary.histogram("h", tf.reshape(x, [1]))
    m = tf.summary.merge_all()
    with tf.summary.FileWriter(str(tmp_path), tf.get_default_graph(), filename_suffix=".v1") as w:
        with tf.Session() as sess:
            for step in range(3):
                w.add_summary(sess.run(m, {x: float(step)}), step)
    files = os.listdir(str(tmp_path))
    assert len(files) == 1 and files[0].startswith("events.out.tfevents.") and files[0].endswith(".v1")
    evs = _events(str(tmp_path / files[0]))
    assert evs[0].file_version == "brain.Event:2"
    assert evs[1].WhichOneof("what") == "graph_def"
    scalars = [(e.step, v.simple_value) for e in evs if e.WhichOneof("what") == "summary"
               for v in e.summary.value if v.tag == "loss"]
    assert scalars == [(0, 0.0), (1, 1.0), (2, 2.0)]
    assert [s.name, h.name] == ["loss:0", "h:0"]


def test_file_writer_reopen_and_closed(tmp_path):
    w = tf.summary.FileWriter(str(tmp_path), filename_suffix=".a")
    w.close()
    w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="dropped", simple_value=1.0)]), 1)  # dropped, as TF
    w.close()
    assert len(_events(str(tmp_path / os.listdir(str(tmp_path))[0]))) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unparseable Summary"):
        w2 = tf.summary.FileWriter(str(tmp_path / "b"))
        w2.add_summary(b"\xff\xff")


@pytest.mark.skipif(not _have("tensorboard"), reason="tensorboard not installed (development only)")  # imports TF
def test_file_writer_read_by_tensorboard(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator
    x = tf.placeholder(tf.float32, [3])
    m = tf.summary.merge([tf.summary.scalar("avg", tf.reduce_mean(x)), tf.summary.histogram("values", x)])
    w = tf.summary.FileWriter(str(tmp_path), tf.get_default_graph())
    with tf.Session() as sess:
        for step in range(4):
            w.add_summary(sess.run(m, {x: [1.0, 2.0, float(step)]}), step)
    w.close()
    ea = event_accumulator.EventAccumulator(str(tmp_path))
    ea.Reload()
    tags = ea.Tags()
    assert tags["scalars"] == ["avg"] and tags["histograms"] == ["values"] and tags["graph"]
    assert [(e.step, round(e.value, 4)) for e in ea.Scalars("avg")] == [(0, 1.0), (1, 1.3333), (2, 1.6667), (3, 2.0)]
    assert ea.Histograms("values")[-1].histogram_value.max == 3.0  # one kept by default


def test_write_graph_binary_and_text(tmp_path):
    tf.add(tf.constant(1.0, name="a"), 2.0, name="sum")
    p = tf.train.write_graph(tf.get_default_graph(), str(tmp_path / "out"), "g.pb", as_text=False)
    assert open(p, "rb").read() == tf.get_default_graph().as_graph_def().SerializeToString()
    t = tf.train.write_graph(tf.get_default_graph().as_graph_def(), str(tmp_path), "g.pbtxt")
    text = open(t).read()
    assert 'name: "sum"\n  op: "Add"\n  input: "a"\n  input: "sum/y"' in text


# ---------------------------------------------------------------- servers

def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def test_local_server_session():
    server = tf.train.Server.create_local_server()
    assert server.target.startswith("grpc://localhost:")
    with tf.Session(server.target) as sess:
        assert sess.run(tf.constant(2) * 21) == 42


def test_server_argument_errors():
    cs = tf.train.ClusterSpec({"ps": ["localhost:1"], "worker": ["localhost:2", "localhost:3"]})
    with pytest.raises(ValueError, match="Must specify an explicit `job_name`."):
        tf.train.Server(cs, start=False)
    with pytest.raises(ValueError, match="Must specify an explicit `task_index`."):
        tf.train.Server(cs, job_name="worker", start=False)
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        tf.train.Server(cs, job_name="chief", start=False)
    with pytest.raises(ValueError):
        tf.train.Server({"w": ["nocolon"]}, start=False)


_WORKER = textwrap.dedent("""
    import sys
    import tfc.compat.v1 as tf
    cluster = tf.train.ClusterSpec({"ps": [sys.argv[1]], "worker": [sys.argv[2]]})
    server = tf.train.Server(cluster, job_name="ps", task_index=0)
    print("ready", flush=True)
    server.join()
""")


def test_two_task_cluster_in_two_processes(tmp_path):
    ps_port, worker_port = _free_ports(2)
    ps_addr, worker_addr = "localhost:%d" % ps_port, "localhost:%d" % worker_port
    script = tmp_path / "ps.py"
    script.write_text(_WORKER)
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, str(script), ps_addr, worker_addr], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        cluster = tf.train.ClusterSpec({"ps": [ps_addr], "worker": [worker_addr]})
        server = tf.train.Server(cluster, job_name="worker", task_index=0)
        with tf.device("/job:ps/task:0"):
            a = tf.constant([1.0, 2.0], name="a")
            b = a * 3.0
        with tf.device("/job:worker/task:0"):
            c = tf.reduce_sum(b)
        with tf.Session(server.target) as sess:
            assert sess.run(c) == 9.0
            devs = [d.name for d in sess.list_devices()]
        assert any("/job:ps/replica:0/task:0" in d for d in devs)
    finally:
        proc.kill()
        proc.wait()


# ---------------------------------------------------------------- app and flags

def test_app_run_parses_flags(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import tfc.compat.v1 as tf
        flags = tf.app.flags
        flags.DEFINE_string("name", "world", "who")
        flags.DEFINE_integer("n", 1, "how many")
        flags.DEFINE_boolean("shout", False, "loud")
        FLAGS = flags.FLAGS

        def main(argv):
            msg = ("hello %s" % FLAGS.name) * FLAGS.n
            print(msg.upper() if FLAGS.shout else msg, argv[1:])
            return 3

        if __name__ == "__main__":
            tf.app.run()
    """))
    r = subprocess.run([sys.executable, str(script), "--name=tfc", "--n", "2", "--shout", "extra"],
                       capture_output=True, text=True)
    assert r.returncode == 3
    assert r.stdout.strip() == "HELLO TFCHELLO TFC ['extra']"
    r = subprocess.run([sys.executable, str(script), "--n=x"], capture_output=True, text=True)
    assert r.returncode == 1 and "FATAL Flags parsing error: flag --n=x" in r.stderr
