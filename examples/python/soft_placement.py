# Seed 002's soft placement program (TensorFlow's guide) as TF 1.x Python, changed only in its
# import line: the graph asks for /device:GPU:2; with allow_soft_placement the session puts it
# on a device it has, and the placement log says where. Without it, the run fails with TF's
# "Cannot assign a device for operation MatMul" InvalidArgumentError (printed first here).
# examples/soft_placement.c is the same program in C.
#
#   python3 examples/python/soft_placement.py
import tfc.compat.v1 as tf  # was: import tensorflow as tf

with tf.device('/device:GPU:2'):
    a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
    b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
    c = tf.matmul(a, b)
try:
    tf.Session().run(c)
except tf.errors.InvalidArgumentError as e:
    print("without allow_soft_placement: %s" % e.message.split("\n")[0])
# Creates a session with allow_soft_placement and log_device_placement set to True.
sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True, log_device_placement=True))
# Runs the op.
print(sess.run(c))
