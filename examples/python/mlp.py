# Seed 003's first program as TF 1.x Python, changed only in its import line (and Python 3):
# builds the MLP (two tanh layers, sum-of-squares cost, Adam) and writes mlp.pb, the GraphDef
# the C trainer `mlp_train` imports and trains (make demo runs both).
#
#   python3 examples/python/mlp.py [output directory]
import sys

import tfc.compat.v1 as tf  # was: import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 32], name="x")
y = tf.placeholder(tf.float32, [None, 8], name="y")

w1 = tf.Variable(tf.truncated_normal([32, 16], stddev=0.1), name="w1")
b1 = tf.Variable(tf.constant(0.0, shape=[16]), name="b1")
w2 = tf.Variable(tf.truncated_normal([16, 8], stddev=0.1), name="w2")
b2 = tf.Variable(tf.constant(0.0, shape=[8]), name="b2")

a = tf.nn.tanh(tf.nn.bias_add(tf.matmul(x, w1), b1))
y_out = tf.nn.tanh(tf.nn.bias_add(tf.matmul(a, w2), b2), name="y_out")
cost = tf.reduce_sum(tf.square(y - y_out), name="cost")
optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
train = optimizer.minimize(cost, name="train")

init = tf.initialize_variables(tf.all_variables(), name="init_all_vars_op")
tf.train.write_graph(tf.get_default_graph(), sys.argv[1] if len(sys.argv) > 1 else ".", "mlp.pb", as_text=False)
print("wrote mlp.pb: %d ops" % len(tf.get_default_graph().get_operations()))
