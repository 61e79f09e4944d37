# Seed 004's multi-device training program as TF 1.x Python (TensorFlow's
# cifar10_multi_gpu_train pattern), changed only in its import line: seed 004's convolutional
# network trained on Fashion-MNIST in one tower per device, fed by a queue-based TFRecord input
# pipeline, with TensorBoard summaries, checkpoints and an evaluation of the moving-averaged
# weights on the test set. examples/fashion_mnist.c is the same program in C.
#
#   tfc data fashion-mnist --out fashion_mnist_data      # once: Debian's idx files -> TFRecord
#   python3 examples/python/fashion_mnist.py --data fashion_mnist_data --out fashion_mnist_train \
#       [--max_steps N | --epochs E] [--devices 2] [--batch_size 50]
#
# The graph: on /cpu:0 the input pipeline (string_input_producer over train.tfrecords, a
# TFRecordReader, parse_single_example, decode_raw, scaling to [0, 1], shuffle_batch of
# towers x batch_size examples split into one slice per tower), the variables, the global step,
# the exponentially decaying learning rate, the towers' gradients averaged and applied with
# momentum, and the moving averages of the weights; the towers tower_i on /gpu:i, or, with no
# GPU, on --devices virtual CPU devices (ConfigProto device_count), sharing the variables through
# variable_scope reuse: conv 5x5x32 + ReLU + max-pool, conv 5x5x64 + ReLU + max-pool, fc 1024 +
# ReLU + dropout, fc 10; softmax cross-entropy plus weight decay on the fully connected weights.
# Every --log_every steps it prints the seed's line ("step 10, loss = 0.87 (1523.4
# examples/sec; 0.066 sec/batch)"); summaries go to an event file in --out every
# --summary_every steps, checkpoints every --save_every steps and at the end. A run started
# again on the same --out continues from its latest checkpoint. Then the moving averages of the
# last checkpoint's weights classify the test images once: "precision @ 1 = 0.8712".
#
# With --cluster it is one task of a between-graph replicated job, as examples/fashion_mnist.c
# (the same flags, in this program's spelling):
#
#   python3 examples/python/fashion_mnist.py --cluster "ps=h:p;worker=h:p,h:p" --job ps|worker \
#       [--task N] [--sync] [--replicas_to_aggregate K] --data ... --out ... [--max_steps N]
#
# a ps serves the variables (server.join()) until it is killed; each worker builds its own graph
# under tf.train.replica_device_setter (variables and their slots on the ps tasks, the input
# pipeline and the tower on the worker) and trains it in a tf.train.MonitoredTrainingSession on
# its own server, each worker applying its gradients (asynchronous) or, with --sync, through
# tf.train.SyncReplicasOptimizer and its session hook. Worker 0 is the chief: it initializes or
# restores the model, keeps the moving averages, writes checkpoints and event files to --out and
# evaluates at the end. A step's batch is --batch_size examples per worker.
import os
import time
from datetime import datetime

import numpy as np
import tfc.compat.v1 as tf  # was: import tensorflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string('data', 'fashion_mnist_data', 'directory of train.tfrecords and test.tfrecords')
tf.app.flags.DEFINE_string('out', 'fashion_mnist_train', 'directory of checkpoints and event files')
tf.app.flags.DEFINE_float('epochs', 1.0, 'epochs to train, when --max_steps is 0')
tf.app.flags.DEFINE_integer('max_steps', 0, 'steps to train (0: --epochs)')
tf.app.flags.DEFINE_integer('devices', 2, 'towers on virtual CPU devices when there is no GPU')
tf.app.flags.DEFINE_integer('batch_size', 50, 'examples per tower and step')
tf.app.flags.DEFINE_integer('log_every', 10, 'steps between progress lines')
tf.app.flags.DEFINE_integer('summary_every', 50, 'steps between summaries (0: none)')
tf.app.flags.DEFINE_integer('save_every', 200, 'steps between checkpoints (0: at the end only)')
tf.app.flags.DEFINE_integer('seed', 0, 'graph-level random seed (0: none)')
tf.app.flags.DEFINE_boolean('eval', True, 'evaluate the moving averages on test.tfrecords at the end')
tf.app.flags.DEFINE_string('cluster', '', 'between-graph replication: "ps=host:port,...;worker=host:port,..."')
tf.app.flags.DEFINE_string('job', '', 'with --cluster: this task\'s job, ps or worker')
tf.app.flags.DEFINE_integer('task', 0, 'with --cluster: this task\'s index in its job (worker 0 is the chief)')
tf.app.flags.DEFINE_boolean('sync', False, 'with --cluster: synchronous training (SyncReplicasOptimizer)')
tf.app.flags.DEFINE_integer('replicas_to_aggregate', 0, 'with --sync: gradients per step (0: every worker)')

IMAGE = 28
CLASSES = 10
INITIAL_LEARNING_RATE = 0.01
LEARNING_RATE_DECAY = 0.9    # per epoch, in steps
MOMENTUM = 0.9
WEIGHT_DECAY = 0.0001        # on the fully connected weights
MOVING_AVERAGE_DECAY = 0.999
KEEP_PROB = 0.5
EVAL_BATCH = 100


def count_records(path):
    """The number of records in a TFRecord file; a missing or empty file is a clear error."""
    if not os.path.exists(path):
        raise SystemExit('%s: no such file; make the data with `tfc data fashion-mnist --out %s`'
                         % (path, os.path.dirname(path) or '.'))
    n = sum(1 for _ in tf.python_io.tf_record_iterator(path))
    if n == 0:
        raise SystemExit('%s holds no records; make the data again with `tfc data fashion-mnist`' % path)
    return n


def inputs(filename, batch_size, train):
    """(images [batch, 28, 28, 1] in [0, 1], labels [batch] int64) from a TFRecord file: shuffled
    and repeated forever for training, read once in order for evaluation."""
    filename_queue = tf.train.string_input_producer([filename], num_epochs=None if train else 1, shuffle=train)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64)})
    image = tf.decode_raw(features['image_raw'], tf.uint8)
    image = tf.reshape(tf.cast(image, tf.float32), [IMAGE, IMAGE, 1]) * (1.0 / 255)
    label = features['label']
    if train:
        min_after_dequeue = max(4 * batch_size, 2000)
        return tf.train.shuffle_batch([image, label], batch_size=batch_size, num_threads=2,
                                      capacity=min_after_dequeue + 3 * batch_size,
                                      min_after_dequeue=min_after_dequeue)
    return tf.train.batch([image, label], batch_size=batch_size, num_threads=1, capacity=2 * batch_size,
                          allow_smaller_final_batch=True)


def variable_on_cpu(name, shape, initializer):
    with tf.device('/cpu:0'):
        return tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)


def weights(shape, wd):
    """Weights from a truncated normal; with wd, their weight decay joins the 'losses' collection."""
    var = variable_on_cpu('weights', shape, tf.truncated_normal_initializer(stddev=0.1))
    if wd:
        tf.add_to_collection('losses', tf.multiply(tf.nn.l2_loss(var), wd, name='weight_loss'))
    return var


def inference(images, keep_prob):
    """images [batch, 28, 28, 1] -> logits [batch, 10]; dropout after the fc layer when keep_prob < 1."""
    with tf.variable_scope('conv1') as scope:
        kernel = weights([5, 5, 1, 32], None)
        biases = variable_on_cpu('biases', [32], tf.constant_initializer(0.1))
        conv1 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding='SAME'), biases),
                           name=scope.name)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool1')
    with tf.variable_scope('conv2') as scope:
        kernel = weights([5, 5, 32, 64], None)
        biases = variable_on_cpu('biases', [64], tf.constant_initializer(0.1))
        conv2 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(pool1, kernel, [1, 1, 1, 1], padding='SAME'), biases),
                           name=scope.name)
    pool2 = tf.nn.max_pool(conv2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool2')
    with tf.variable_scope('local3') as scope:
        flat = tf.reshape(pool2, [-1, 7 * 7 * 64])
        w = weights([7 * 7 * 64, 1024], WEIGHT_DECAY)
        biases = variable_on_cpu('biases', [1024], tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(flat, w) + biases, name=scope.name)
    if keep_prob < 1:
        local3 = tf.nn.dropout(local3, keep_prob=keep_prob)
    with tf.variable_scope('softmax_linear') as scope:
        w = weights([1024, CLASSES], WEIGHT_DECAY)
        biases = variable_on_cpu('biases', [CLASSES], tf.constant_initializer(0.1))
        return tf.add(tf.matmul(local3, w), biases, name=scope.name)


def tower_loss(scope, images, labels):
    """The tower's total loss: its cross-entropy plus the weight decay terms made in the tower."""
    logits = inference(images, KEEP_PROB)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                   name='cross_entropy_per_example')
    tf.add_to_collection('losses', tf.reduce_mean(cross_entropy, name='cross_entropy'))
    total_loss = tf.add_n(tf.get_collection('losses', scope), name='total_loss')
    tf.summary.scalar('loss', total_loss)  # in the tower's name scope: tag tower_i/loss
    return total_loss


def average_gradients(tower_grads):
    """The towers' [(gradient, variable)] lists -> one list with each gradient averaged."""
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def device_setup():
    """(tower devices, ConfigProto): every GPU, or --devices virtual CPU devices."""
    with tf.Graph().as_default(), tf.Session() as sess:
        gpus = [d for d in sess.list_devices() if d.device_type == 'GPU']
    if gpus:
        return ['/gpu:%d' % i for i in range(len(gpus))], tf.ConfigProto(allow_soft_placement=True)
    return (['/cpu:%d' % i for i in range(FLAGS.devices)],
            tf.ConfigProto(allow_soft_placement=True, device_count={'CPU': FLAGS.devices}))


def train():
    devices, config = device_setup()
    towers = len(devices)
    train_file = os.path.join(FLAGS.data, 'train.tfrecords')
    steps_per_epoch = max(1, count_records(train_file) // (FLAGS.batch_size * towers))
    max_steps = FLAGS.max_steps or int(FLAGS.epochs * steps_per_epoch + 0.5)
    with tf.Graph().as_default(), tf.device('/cpu:0'):
        if FLAGS.seed:
            tf.set_random_seed(FLAGS.seed)
        global_step = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(INITIAL_LEARNING_RATE, global_step, steps_per_epoch, LEARNING_RATE_DECAY,
                                        staircase=True)
        opt = tf.train.MomentumOptimizer(lr, MOMENTUM)
        images, labels = inputs(train_file, FLAGS.batch_size * towers, train=True)
        image_splits = tf.split(images, towers)
        label_splits = tf.split(labels, towers)
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(towers):
                with tf.device(devices[i]):
                    with tf.name_scope('tower_%d' % i) as scope:
                        loss = tower_loss(scope, image_splits[i], label_splits[i])
                        tf.get_variable_scope().reuse_variables()  # the next towers share the variables
                        tower_grads.append(opt.compute_gradients(loss))
        grads = average_gradients(tower_grads)
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        tf.summary.scalar('learning_rate', lr)
        for var in tf.trainable_variables():
            tf.summary.histogram(var.op.name, var)
        variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
        train_op = tf.group(apply_gradient_op, variables_averages_op)
        summary_op = tf.summary.merge_all()
        saver = tf.train.Saver(tf.global_variables(), max_to_keep=5)
        init = tf.global_variables_initializer()

        sess = tf.Session(config=config)
        latest = tf.train.latest_checkpoint(FLAGS.out)
        if latest:
            saver.restore(sess, latest)
            print('restored %s' % latest)
        else:
            sess.run(init)
        step = first_step = int(sess.run(global_step))
        print('%d tower%s on %s x %d examples per step, %d steps per epoch; from step %d to %d'
              % (towers, 's' if towers > 1 else '', ', '.join(devices), FLAGS.batch_size, steps_per_epoch, step,
                 max_steps))
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        summary_writer = tf.summary.FileWriter(FLAGS.out, sess.graph)
        checkpoint_path = os.path.join(FLAGS.out, 'model.ckpt')
        t_start = t_window = time.time()
        window = 0
        try:
            while step < max_steps:
                _, loss_value = sess.run([train_op, loss])
                step += 1
                window += 1
                if np.isnan(loss_value):
                    raise SystemExit('Model diverged with loss = NaN at step %d' % step)
                if step % FLAGS.log_every == 0 or step == max_steps:
                    now = time.time()
                    sec_per_batch = (now - t_window) / window
                    print('%s: step %d, loss = %.2f (%.1f examples/sec; %.3f sec/batch)'
                          % (datetime.now(), step, loss_value, FLAGS.batch_size * towers / sec_per_batch,
                             sec_per_batch))
                    t_window, window = now, 0
                if FLAGS.summary_every and step % FLAGS.summary_every == 0:
                    summary_writer.add_summary(sess.run(summary_op), step)
                if (FLAGS.save_every and step % FLAGS.save_every == 0) or step == max_steps:
                    saved = saver.save(sess, checkpoint_path, global_step=step)
            if step > first_step:
                wall = time.time() - t_start
                print('trained %d steps in %.1f s: %.1f examples/sec; checkpoint %s'
                      % (step - first_step, wall, (step - first_step) * FLAGS.batch_size * towers / wall, saved))
        finally:
            coord.request_stop()
            coord.join(threads)
            summary_writer.close()
            sess.close()


def parse_cluster(spec):
    """examples/fashion_mnist.c's --cluster "ps=h:p;worker=h:p,h:p" as a tf.train.ClusterSpec."""
    jobs = {}
    for part in spec.split(';'):
        job, _, hosts = part.strip().partition('=')
        if not job or not hosts:
            raise SystemExit('--cluster: %r is not job=host:port[,host:port...]' % part)
        jobs[job] = hosts.split(',')
    if 'ps' not in jobs or 'worker' not in jobs:
        raise SystemExit('--cluster: a ps job and a worker job are needed, not %s' % sorted(jobs))
    return tf.train.ClusterSpec(jobs)


def replica_model(device_setter, train_file, steps_per_epoch, is_chief, sync, replicas_to_aggregate, workers):
    """One worker's graph (between-graph replication) under device_setter (a
    tf.train.replica_device_setter): the global step, the learning rate, the variables and the
    optimizer's slots go to the ps tasks, the input pipeline and the tower to the worker. Returns
    (train_op, loss, global_step, the SyncReplicasOptimizer or None). The chief's train op also
    updates the moving averages."""
    with tf.device(device_setter):
        global_step = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(INITIAL_LEARNING_RATE, global_step, steps_per_epoch, LEARNING_RATE_DECAY,
                                        staircase=True)
        opt = tf.train.MomentumOptimizer(lr, MOMENTUM)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=replicas_to_aggregate,
                                                 total_num_replicas=workers)
        with tf.device('/cpu:0'):
            images, labels = inputs(train_file, FLAGS.batch_size, train=True)
        loss = tower_loss(None, images, labels)
        apply_gradient_op = opt.apply_gradients(opt.compute_gradients(loss), global_step=global_step)
        train_op = apply_gradient_op
        if is_chief:
            with tf.control_dependencies([apply_gradient_op]):
                variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
                variables_averages_op = variable_averages.apply(tf.trainable_variables())
            train_op = tf.group(apply_gradient_op, variables_averages_op)
            tf.summary.scalar('learning_rate', lr)
    return train_op, loss, global_step, opt if sync else None


def train_cluster():
    """--cluster: this process is the ps task that serves until killed, or a worker that trains."""
    cluster = parse_cluster(FLAGS.cluster)
    if FLAGS.job not in ('ps', 'worker'):
        raise SystemExit('--job must be ps or worker, not %r' % FLAGS.job)
    server = tf.train.Server(cluster, job_name=FLAGS.job, task_index=FLAGS.task)
    print('/job:%s/task:%d listening on %s' % (FLAGS.job, FLAGS.task, server.target), flush=True)
    if FLAGS.job == 'ps':
        server.join()
        return
    workers = cluster.num_tasks('worker')
    to_aggregate = FLAGS.replicas_to_aggregate or workers
    is_chief = FLAGS.task == 0
    train_file = os.path.join(FLAGS.data, 'train.tfrecords')
    steps_per_epoch = max(1, count_records(train_file) // (FLAGS.batch_size * to_aggregate))
    max_steps = FLAGS.max_steps or int(FLAGS.epochs * steps_per_epoch + 0.5)
    with tf.Graph().as_default():
        if FLAGS.seed:
            tf.set_random_seed(FLAGS.seed)
        setter = tf.train.replica_device_setter(worker_device='/job:worker/task:%d' % FLAGS.task, cluster=cluster)
        train_op, loss, global_step, sync_opt = replica_model(setter, train_file, steps_per_epoch, is_chief,
                                                              FLAGS.sync, to_aggregate, workers)
        final_step = tf.train.FinalOpsHook(global_step)
        hooks = [tf.train.StopAtStepHook(last_step=max_steps), final_step]
        if sync_opt is not None:
            hooks.append(sync_opt.make_session_run_hook(is_chief))
        mine = window = 0
        # The worker's sessions reach the ps tasks and this worker alone, so they neither wait for
        # nor depend on the other workers.
        config = tf.ConfigProto(device_filters=['/job:ps', '/job:worker/task:%d' % FLAGS.task])
        with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, checkpoint_dir=FLAGS.out,
                                               config=config,
                                               hooks=hooks, save_checkpoint_steps=FLAGS.save_every or None,
                                               save_checkpoint_secs=None if FLAGS.save_every else 600,
                                               save_summaries_steps=FLAGS.summary_every or None,
                                               log_step_count_steps=None) as sess:
            print('worker %d of %d (%s), %d examples per step each; to step %d'
                  % (FLAGS.task, workers, 'synchronous' if FLAGS.sync else 'asynchronous', FLAGS.batch_size,
                     max_steps), flush=True)
            t_start = t_window = time.time()
            while not sess.should_stop():
                _, loss_value, step = sess.run([train_op, loss, global_step])
                mine += 1
                window += 1
                if np.isnan(loss_value):
                    raise SystemExit('Model diverged with loss = NaN at step %d' % step)
                if mine % FLAGS.log_every == 0:
                    now = time.time()
                    sec_per_batch = (now - t_window) / window
                    print('%s: worker %d: step %d, loss = %.2f (%.1f examples/sec; %.3f sec/batch)'
                          % (datetime.now(), FLAGS.task, step + 1, loss_value, FLAGS.batch_size / sec_per_batch,
                             sec_per_batch), flush=True)
                    t_window, window = now, 0
        wall = time.time() - t_start
        print('worker %d: ran %d steps in %.1f s (%.1f examples/sec), global step %d'
              % (FLAGS.task, mine, wall, mine * FLAGS.batch_size / wall if wall > 0 else 0.0,
                 final_step.final_ops_values), flush=True)
    if is_chief and FLAGS.eval:
        evaluate()


def evaluate():
    """The moving averages of the latest checkpoint's weights classify the test images once."""
    test_file = os.path.join(FLAGS.data, 'test.tfrecords')
    count_records(test_file)
    with tf.Graph().as_default(), tf.device('/cpu:0'):
        images, labels = inputs(test_file, EVAL_BATCH, train=False)
        logits = inference(images, 1.0)
        top_k_op = tf.nn.in_top_k(logits, labels, 1)
        variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY)
        saver = tf.train.Saver(variable_averages.variables_to_restore())
        ckpt = tf.train.get_checkpoint_state(FLAGS.out)
        if not (ckpt and ckpt.model_checkpoint_path):
            raise SystemExit('no checkpoint in %s to evaluate' % FLAGS.out)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())  # string_input_producer's epoch counter
            saver.restore(sess, ckpt.model_checkpoint_path)
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            true_count = total = 0
            try:
                while not coord.should_stop():
                    correct = sess.run(top_k_op)
                    true_count += int(np.sum(correct))
                    total += correct.shape[0]
            except tf.errors.OutOfRangeError:
                pass  # the test file is done
            finally:
                coord.request_stop()
            coord.join(threads)
            print('%s: precision @ 1 = %.4f (%d of %d test images, moving averages of %s)'
                  % (datetime.now(), true_count / max(total, 1), true_count, total, ckpt.model_checkpoint_path))


def main(argv=None):
    if not os.path.isdir(FLAGS.out):
        os.makedirs(FLAGS.out)
    if FLAGS.cluster:
        train_cluster()
        return
    train()
    if FLAGS.eval:
        evaluate()


if __name__ == '__main__':
    tf.app.run()
