# Seed 001's in-graph replication as TF 1.x Python, changed only in its import line: a batch
# split over four CPU devices, one matmul per device, the results concatenated on /cpu:0 and
# compared with the same product on one device. examples/in_graph_replication.c is the same
# program in C.
#
#   python3 examples/python/in_graph_replication.py
import numpy as np
import tfc.compat.v1 as tf  # was: import tensorflow as tf

W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
X = np.arange(32, dtype=np.float32).reshape(8, 4)

with tf.device('/cpu:0'):
    x = tf.placeholder(tf.float32, [8, 4])
    w = tf.constant(W)
    parts = tf.split(x, 4)  # 4 batches of 2 rows
ys = []
for i in range(4):
    with tf.device('/cpu:%d' % i):
        ys.append(tf.matmul(parts[i], w))
with tf.device('/cpu:0'):
    y = tf.concat(ys, 0)
reference = tf.matmul(x, w)  # the same, on one device

sess = tf.Session(config=tf.ConfigProto(device_count={'CPU': 4}, log_device_placement=True))
got, want = sess.run([y, reference], {x: X})
print(got)
print("replicated result equals the one-device result: %s" % np.array_equal(got, want))
