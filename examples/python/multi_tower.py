# Seed 000's multi-device program (TensorFlow's guide) as TF 1.x Python, changed only in its
# import line and in naming the devices: two towers on CPU:2 and CPU:3 of a session with four
# CPU devices (the guide's /device:GPU:2 and /device:GPU:3), summed with add_n on /cpu:0; the
# placement log says where each node ran. examples/multi_tower.c is the same program in C.
#
#   python3 examples/python/multi_tower.py
import tfc.compat.v1 as tf  # was: import tensorflow as tf

c = []
for d in ['/device:CPU:2', '/device:CPU:3']:
    with tf.device(d):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
        c.append(tf.matmul(a, b))
with tf.device('/cpu:0'):
    sum = tf.add_n(c)
# Creates a session with log_device_placement set to True.
sess = tf.Session(config=tf.ConfigProto(device_count={'CPU': 4}, log_device_placement=True))
# Runs the op.
print(sess.run(sum))
