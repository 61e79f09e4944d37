"""tf.train.SyncReplicasOptimizer (TF 1.15's training/sync_replicas_optimizer.py) over the C
builder of include/tfc/sync_replicas.h.

Design: the Python optimizer owns one _pywrap.SyncReplicas (a TFC_SyncReplicasOptimizer over
the wrapped optimizer's TFC_Optimizer, so the wrapped optimizer must be one of tfc's
tf.train optimizers). apply_gradients is one builder call making TF's graph node for node
(per-variable conditional accumulators, the local step, the sync token queue, the chief's
sync op and init op); Python adds the argument checks with TF's texts, the Python wrappers of
what the builder made, and ready_for_local_init_op (TF's report_uninitialized_variables of the
global variables that existed before apply_gradients, which tfc's C builder leaves out; a
Scaffold accepts it, as what the C monitored session's workers check anyway).

make_session_run_hook returns a SessionRunHook whose begin() asks the C builder for
TFC_SyncReplicasHook (the chief's init tokens op is built then, as TF builds it in begin());
the monitored session (monitored_session.py) hands that C hook to its C session, which runs it
after every session creation: the local init (the chief's: local step and accumulators' global
steps), and on the chief the init tokens and the chief queue runner under the session's
coordinator. The Python hook itself does nothing per step.

With variable_averages (an ExponentialMovingAverage), as TF: the averages of
variables_to_average are updated after the sync op, on the global step's device, and that
update is what the chief's queue runner runs (TFC_SyncReplicasSetSyncOp).

Errors: TF's ValueErrors ("Must supply at least one variable", "Global step is required to
check staleness", "Should be called after apply_gradients().", "get_init_tokens_op() should be
called after apply_gradients().", "Too few tokens to finish the first step: ...",
"SyncReplicasOptimizer.apply_gradient should be called before using the hook."); a wrapped
optimizer that is not a tfc optimizer is a TypeError.
"""
from tfc import _pywrap
from tfc import queue_runner
from tfc import tf_logging as logging
from tfc.framework import errors
from tfc.framework import ops
from tfc.ops import check_ops
from tfc.ops import variables
from tfc.training import optimizer as optimizer_lib
from tfc.training import session_run_hook


class SyncReplicasOptimizer(optimizer_lib.Optimizer):
    """Aggregates the gradients of replicas_to_aggregate replicas per step, then applies their
    mean with the wrapped optimizer (see the module comment)."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super(SyncReplicasOptimizer, self).__init__(use_locking, name)
        if not isinstance(opt, optimizer_lib.Optimizer) or not hasattr(opt, "_c"):
            raise TypeError("SyncReplicasOptimizer: the optimizer to wrap must be a tf.train optimizer of tfc, "
                            "got %r" % (opt,))
        logging.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s", replicas_to_aggregate,
                     total_num_replicas)
        try:
            self._c = _pywrap.SyncReplicas(opt._c, int(replicas_to_aggregate), int(total_num_replicas), name)
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._gradients_applied = False
        self._global_step = None
        self._graph = None
        self._chief_queue_runner = None
        self.chief_init_op = self.local_step_init_op = self.ready_for_local_init_op = None
        self._local_step = None

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's compute_gradients."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The train op: this worker's gradients into the accumulators, then a token from the
        sync token queue (the local step takes its value). name is unused, as in TF."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        for gr, v in grads_and_vars:
            if gr is not None and not isinstance(gr, ops.Tensor):
                raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or None: %s" % gr)
        g = grads_and_vars[0][1].graph
        # TF reports the global variables that exist before its optimizer adds its slots.
        global_vars = variables.global_variables()
        grads = [None if gr is None else ops.convert_to_tensor(gr)._as_tf_output() for gr, _ in grads_and_vars]
        vs = [optimizer_lib._var_triple(v) for _, v in grads_and_vars]
        sc = g._builder_scope("NoOp")
        h = variables.call_builder(g, self._c.apply_gradients, sc, grads, vs, optimizer_lib._var_triple(global_step))
        train_op = g._ops_by_handle[h]
        chief_init, local_init, local_step, sync_op, close_op, cancel_op = self._c.parts()
        self._graph, self._global_step = g, global_step
        self.chief_init_op = g._ops_by_handle[chief_init]
        self.local_step_init_op = g._ops_by_handle[local_init].outputs[0]
        self._local_step = variables._wrap(g, local_step)
        sync_op = g._ops_by_handle[sync_op]
        if self._variable_averages is not None:
            with ops.device(global_step.device), ops.name_scope(""), ops.control_dependencies([sync_op]):
                sync_op = self._variable_averages.apply(self._variables_to_average)
            self._c.set_sync_op(sync_op._c_op)
        close, cancel = g._ops_by_handle[close_op], g._ops_by_handle[cancel_op]
        self._chief_queue_runner = queue_runner.QueueRunner._from_ops([close.inputs[0].op, close, cancel, sync_op])
        self.ready_for_local_init_op = check_ops.report_uninitialized_variables(global_vars)
        # A Scaffold may take it: the C session's workers wait for the global variables anyway.
        self.ready_for_local_init_op._tfc_reports_global_variables = True
        self._gradients_applied = True
        return train_op.outputs[0]

    def get_chief_queue_runner(self):
        """The QueueRunner of the sync token queue whose enqueue op is the sync op (the chief's)."""
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """The op putting num_tokens tokens (-1: replicas_to_aggregate) into the sync token
        queue, for the chief to run once at the start."""
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        self._check_tokens(num_tokens)
        g = self._graph
        h = variables.call_builder(g, self._c.init_tokens_op, g._builder_scope("NoOp", prefix=""), int(num_tokens))
        return g._ops_by_handle[h]

    def _check_tokens(self, num_tokens):
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens != -1 and num_tokens < tokens_needed:
            raise ValueError("Too few tokens to finish the first step: %d (given) vs %d (needed)"
                             % (num_tokens, tokens_needed))

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """The hook that prepares each session of a MonitoredTrainingSession (see above)."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    """A SessionRunHook whose work is the C TFC_SyncReplicasHook (_c_hook, a capsule the
    monitored session passes to its C session)."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens
        self._c_hook = None

    def begin(self):
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        if self._is_chief:
            opt._check_tokens(self._num_tokens)
        g = opt._graph
        self._c_hook = variables.call_builder(g, opt._c.hook, g._builder_scope("NoOp", prefix=""),
                                              bool(self._is_chief), int(self._num_tokens))
