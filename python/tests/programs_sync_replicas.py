"""TF 1.x programs of tf.train.SyncReplicasOptimizer, run under TensorFlow
(gen_expectations.py programs_sync_replicas records them) and under tfc (test_differential.py):
the graph apply_gradients adds under replica_device_setter (names, types, devices; with
variable_averages, the moving averages' nodes and the chief queue runner's op), training
in one process through the optimizer's session hook (the values after N steps, the local
step, what ready_for_local_init_op reports), and TF's argument errors.

Two differences are normalized here: TF 2.x pins queues to "/device:CPU:*" (tfc's placer does
not take it), and tfc's tokens read the global step through a node of their own, "Fill/read"
(include/tfc/sync_replicas.h), left out of the node list; ready_for_local_init_op's nodes,
which tfc's Python adds after the C builder's, are listed apart.
"""
from programs import _val


def _model(tf):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(0.5, name="b")
    x = tf.constant([3.0, 4.0], name="x")
    loss = tf.reduce_sum(w * x * w) + b
    return gs, w, b, loss


def sync_graph_under_device_setter(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:1")):
        gs, w, b, loss = _model(tf)
        opt = tf.train.SyncReplicasOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), replicas_to_aggregate=2,
                                             total_num_replicas=3)
        gv = opt.compute_gradients(loss)
        n0 = len(tf.get_default_graph().get_operations())
        train_op = opt.apply_gradients(gv, global_step=gs)
        tokens = opt.get_init_tokens_op(4)
    made = [[op.name, op.type, op.device.replace("/device:CPU:*", "")]
            for op in tf.get_default_graph().get_operations()[n0:] if op.name != "Fill/read"]
    report = [m for m in made if m[0].startswith("report_uninitialized_variables/")]
    qr = opt.get_chief_queue_runner()
    return {"ops": [m for m in made if m not in report], "ready_for_local_init_ops": report, "train_op": train_op.name, "tokens": tokens.name,
            "chief_init_op": opt.chief_init_op.name, "local_step_init_op": opt.local_step_init_op.name,
            "ready_for_local_init_op": opt.ready_for_local_init_op.name,
            "queue_runner": [qr.name, [op.name for op in qr.enqueue_ops], qr.close_op.name, qr.cancel_op.name],
            "slots": opt.get_slot_names(), "slot": opt.get_slot(w, "momentum").op.name}


def sync_graph_with_variable_averages(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
        gs, w, b, loss = _model(tf)
        ema = tf.train.ExponentialMovingAverage(0.9, num_updates=gs)
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2,
                                             variable_averages=ema, variables_to_average=[w, b])
        gv = opt.compute_gradients(loss)
        opt.apply_gradients(gv, global_step=gs)
    g = tf.get_default_graph()
    qr = opt.get_chief_queue_runner()
    sync_op = qr.enqueue_ops[0]
    averages = [[op.name, op.type, op.device] for op in g.get_operations()
                if "ExponentialMovingAverage" in op.name and not op.name.startswith("report_")
                and op.type != "IsVariableInitialized"  # TF 2.x's initialized_value conds:
                and not any(part.startswith("cond") for part in op.name.split("/"))
                # The update math inside AssignMovingAvg: TF 1.15 colocates it with the shadow
                # (tfc does), TF 2.x leaves its device to the device function.
                and not (op.type != "AssignSub" and "/AssignMovingAvg" in op.name)]
    return {"sync_op": [sync_op.name, sync_op.type, sync_op.device],
            "sync_op_control_inputs": sorted(c.name for c in sync_op.control_inputs),
            "averages": sorted(averages), "average_of_w": ema.average(w).op.name}


def sync_training_in_one_process(tf):
    gs, w, b, loss = _model(tf)
    opt = tf.train.SyncReplicasOptimizer(tf.train.MomentumOptimizer(0.05, 0.9), replicas_to_aggregate=1)
    train_op = opt.minimize(loss, global_step=gs)
    local_step = [v for v in tf.local_variables() if v.op.name == "sync_rep_local_step"][0]
    final = tf.train.FinalOpsHook([gs, w, b, local_step])
    hooks = [opt.make_session_run_hook(True), tf.train.StopAtStepHook(last_step=5), final]
    seen = []
    with tf.train.MonitoredTrainingSession(hooks=hooks, save_checkpoint_secs=None, save_summaries_steps=None,
                                           log_step_count_steps=None) as sess:
        ready = sess._tf_sess().run(opt.ready_for_local_init_op)
        while not sess.should_stop():
            seen.append(int(sess.run(train_op)))
    step, wv, bv, ls = final.final_ops_values
    return {"returned_local_steps": seen, "global_step": _val(step), "w": [round(float(v), 4) for v in wv],
            "b": round(float(bv), 4), "local_step": _val(ls), "not_ready_after_init": _val(ready)}


def sync_errors(tf):
    gs, w, b, loss = _model(tf)
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2,
                                         total_num_replicas=4)
    out = {}
    for what, fn in (("no_vars", lambda: opt.apply_gradients([], global_step=gs)),
                     ("no_step", lambda: opt.apply_gradients(opt.compute_gradients(loss))),
                     ("runner_early", opt.get_chief_queue_runner),
                     ("tokens_early", opt.get_init_tokens_op),
                     ("hook_early", lambda: opt.make_session_run_hook(True).begin())):
        try:
            fn()
            out[what] = None
        except ValueError as e:
            out[what] = ["ValueError", str(e)]
    opt.apply_gradients(opt.compute_gradients(loss), global_step=gs)
    try:
        opt.get_init_tokens_op(-3)
    except ValueError as e:
        out["too_few_tokens"] = ["ValueError", str(e)]
    out["enough_tokens"] = opt.get_init_tokens_op(-2).name
    out["no_tokens"] = opt.get_init_tokens_op(0).name
    return out


PROGRAMS = [sync_graph_under_device_setter, sync_graph_with_variable_averages, sync_training_in_one_process,
            sync_errors]
