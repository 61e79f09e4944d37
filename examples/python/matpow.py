# Seed 000's benchmark (TensorFlow's multi-GPU basics example) as TF 1.x Python: A^n + B^n with
# tf.matmul recursion, first both powers on one device, then one per device, summed with add_n
# on /cpu:0, each run timed. Changed from the seed only in its import line, Python 3's print, and
# three parameters a machine without two GPUs needs: the matrix size (the seed's 10000), the
# devices (--cpu puts the program on /cpu:0 and /cpu:1 of a session with two CPU devices, as
# examples/matpow.c does) and the placement log (--log, the seed's log_device_placement=True).
# It also keeps both sums and prints whether they agree. examples/matpow.c is the same program
# in C.
#
#   python3 examples/python/matpow.py [--cpu] [--size N] [--log]
import argparse
import datetime

import numpy as np
import tfc.compat.v1 as tf  # was: import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--size", type=int, default=10000)
parser.add_argument("--cpu", action="store_true", help="two CPU devices instead of /gpu:0 and /gpu:1")
parser.add_argument("--log", action="store_true", help="log_device_placement")
args = parser.parse_args()
size = args.size
gpu0, gpu1 = ('/cpu:0', '/cpu:1') if args.cpu else ('/gpu:0', '/gpu:1')
device_count = {'CPU': 2} if args.cpu else None

# Processing Units logs
log_device_placement = args.log

# Num of multiplications to perform
n = 10

# Example: compute A^n + B^n on 2 GPUs
# Create random large matrix
A = np.random.rand(size, size).astype('float32')
B = np.random.rand(size, size).astype('float32')

# Create a graph to store results
c1 = []
c2 = []


def matpow(M, n):
    if n < 1:  # Abstract cases where n < 1
        return M
    else:
        return tf.matmul(M, matpow(M, n - 1))


# Single GPU computing
with tf.device(gpu0):
    a = tf.placeholder(tf.float32, [size, size])
    b = tf.placeholder(tf.float32, [size, size])
    # Compute A^n and B^n and store results in c1
    c1.append(matpow(a, n))
    c1.append(matpow(b, n))

with tf.device('/cpu:0'):
    sum = tf.add_n(c1)  # Addition of all elements in c1, i.e. A^n + B^n

t1_1 = datetime.datetime.now()
with tf.Session(config=tf.ConfigProto(device_count=device_count,
                                      log_device_placement=log_device_placement)) as sess:
    # Run the op.
    r1 = sess.run(sum, {a: A, b: B})
t2_1 = datetime.datetime.now()

# Multi GPU computing
# GPU:0 computes A^n
with tf.device(gpu0):
    # Compute A^n and store result in c2
    a = tf.placeholder(tf.float32, [size, size])
    c2.append(matpow(a, n))

# GPU:1 computes B^n
with tf.device(gpu1):
    # Compute B^n and store result in c2
    b = tf.placeholder(tf.float32, [size, size])
    c2.append(matpow(b, n))

with tf.device('/cpu:0'):
    sum = tf.add_n(c2)  # Addition of all elements in c2, i.e. A^n + B^n

t1_2 = datetime.datetime.now()
with tf.Session(config=tf.ConfigProto(device_count=device_count,
                                      log_device_placement=log_device_placement)) as sess:
    # Run the op.
    r2 = sess.run(sum, {a: A, b: B})
t2_2 = datetime.datetime.now()

print("Single GPU computation time: " + str(t2_1 - t1_1))
print("Multi GPU computation time: " + str(t2_2 - t1_2))
print("Both runs give the same A^n + B^n: " + str(bool(np.allclose(r1, r2, rtol=1e-5))))
