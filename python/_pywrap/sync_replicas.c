/* tfc._pywrap SyncReplicas: include/tfc/sync_replicas.h called from Python
 * (tfc/training/sync_replicas_optimizer.py's tf.train.SyncReplicasOptimizer).
 *
 * Design: a SyncReplicas object owns one TFC_SyncReplicasOptimizer and holds a reference to
 * the _pywrap.Optimizer whose TFC_Optimizer it wraps (the C optimizer borrows it). Its methods
 * are the builder calls and the getters, with train.c's conventions: operations are handles,
 * a variable is the (variable op, initializer op, (read op, 0)) triple, a non-OK status raises
 * its registered class. hook() returns TFC_SyncReplicasHook's hook as a capsule
 * (PYWRAP_HOOK_CAPSULE) for monitored_session.c: the hook points into the C optimizer, so the
 * capsule holds a reference to this object. */
#include "pywrap.h"
#include "tfc/sync_replicas.h"

typedef struct {
  PyObject_HEAD
  TFC_SyncReplicasOptimizer *sync;
  PyObject *opt; /* the wrapped _pywrap.Optimizer (owned reference) */
} PyTFSyncReplicas;

static void sync_dealloc(PyTFSyncReplicas *o) {
  TFC_DeleteSyncReplicasOptimizer(o->sync);
  Py_XDECREF(o->opt);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

/* SyncReplicas(optimizer, replicas_to_aggregate, total_num_replicas, name) */
static PyObject *sync_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *opt;
  int to_aggregate, total;
  const char *name;
  if (!PyArg_ParseTuple(args, "O!iis", &PyTFOptimizer_Type, &opt, &to_aggregate, &total, &name)) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_SyncReplicasOptimizer *sync = TFC_NewSyncReplicasOptimizer(pywrap_optimizer(opt), to_aggregate, total, name, s);
  int failed = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (failed) return NULL;
  PyTFSyncReplicas *o = (PyTFSyncReplicas *)type->tp_alloc(type, 0);
  if (!o) {
    TFC_DeleteSyncReplicasOptimizer(sync);
    return NULL;
  }
  o->sync = sync;
  Py_INCREF(opt);
  o->opt = opt;
  return (PyObject *)o;
}

static PyObject *op_or_none(TF_Operation *op) {
  if (op) return PyLong_FromVoidPtr(op);
  Py_RETURN_NONE;
}

/* Returns r, or NULL with the status's exception when it is not OK (then r is released). */
static PyObject *checked(TF_Status *s, PyObject *r) {
  if (pywrap_raise_status(s)) Py_CLEAR(r);
  TF_DeleteStatus(s);
  return r;
}

/* apply_gradients(scope, [grad or None, ...], [var, ...], global step var) -> train op */
static PyObject *sync_apply_gradients(PyTFSyncReplicas *o, PyObject *args) {
  PyObject *so, *go, *vo, *stepo;
  if (!PyArg_ParseTuple(args, "OOOO", &so, &go, &vo, &stepo)) return NULL;
  const TFC_Scope *sc = pywrap_scope(so);
  TFC_Variable step;
  if (!sc || pywrap_variable_arg(stepo, &step) < 0) return NULL;
  Py_ssize_t ng, nv;
  TF_Output *gs = pywrap_outputs_arg(go, &ng, 1);
  if (!gs) return NULL;
  TFC_Variable *vs = pywrap_variables_arg(vo, &nv);
  PyObject *r = NULL;
  if (vs && ng != nv) {
    PyErr_SetString(PyExc_ValueError, "apply_gradients: as many gradients as variables are needed");
  } else if (vs) {
    TF_Status *s = TF_NewStatus();
    TF_Operation *op = TFC_SyncReplicasApplyGradients(o->sync, sc, gs, vs, (int)nv, &step, s);
    r = checked(s, TF_GetCode(s) == TF_OK ? PyLong_FromVoidPtr(op) : NULL);
  }
  free(gs);
  free(vs);
  return r;
}

/* parts() -> (chief_init_op, local_step_init_op, local step var, sync op, close op, cancel op),
 * or None before apply_gradients. */
static PyObject *sync_parts(PyTFSyncReplicas *o, PyObject *unused) {
  if (!TFC_SyncReplicasChiefInitOp(o->sync)) Py_RETURN_NONE;
  return Py_BuildValue("(NNNNNN)", op_or_none(TFC_SyncReplicasChiefInitOp(o->sync)),
                       op_or_none(TFC_SyncReplicasLocalStepInitOp(o->sync)),
                       pywrap_variable_obj(TFC_SyncReplicasLocalStep(o->sync)),
                       op_or_none(TFC_SyncReplicasSyncOp(o->sync)),
                       op_or_none(TFC_SyncReplicasQueueRunnerCloseOp(o->sync, 0)),
                       op_or_none(TFC_SyncReplicasQueueRunnerCloseOp(o->sync, 1)));
}

/* init_tokens_op(scope, num_tokens) -> op */
static PyObject *sync_init_tokens_op(PyTFSyncReplicas *o, PyObject *args) {
  PyObject *so;
  int n;
  if (!PyArg_ParseTuple(args, "Oi", &so, &n)) return NULL;
  const TFC_Scope *sc = pywrap_scope(so);
  if (!sc) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TFC_SyncReplicasInitTokensOp(o->sync, sc, n, s);
  return checked(s, TF_GetCode(s) == TF_OK ? PyLong_FromVoidPtr(op) : NULL);
}

/* set_sync_op(op): TFC_SyncReplicasSetSyncOp (variable_averages' update after the sync op). */
static PyObject *sync_set_sync_op(PyTFSyncReplicas *o, PyObject *arg) {
  TF_Operation *op = pywrap_op(arg);
  if (!op) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_SyncReplicasSetSyncOp(o->sync, op, s);
  Py_INCREF(Py_None);
  return checked(s, Py_None);
}

/* The capsule's destructor: its context is the SyncReplicas object it keeps alive. */
static void hook_capsule_free(PyObject *cap) {
  free(PyCapsule_GetPointer(cap, PYWRAP_HOOK_CAPSULE));
  Py_XDECREF((PyObject *)PyCapsule_GetContext(cap));
}

/* hook(scope, is_chief, num_tokens) -> capsule of TFC_SyncReplicasHook's hook (the chief's
 * init tokens op is built now, in scope's graph). */
static PyObject *sync_hook(PyTFSyncReplicas *o, PyObject *args) {
  PyObject *so;
  int is_chief, n;
  if (!PyArg_ParseTuple(args, "Opi", &so, &is_chief, &n)) return NULL;
  const TFC_Scope *sc = pywrap_scope(so);
  if (!sc) return NULL;
  TFC_SessionRunHook *h = malloc(sizeof *h);
  if (!h) return PyErr_NoMemory();
  TF_Status *s = TF_NewStatus();
  *h = TFC_SyncReplicasHook(o->sync, sc, (unsigned char)is_chief, n, s);
  int failed = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  PyObject *cap = failed ? NULL : PyCapsule_New(h, PYWRAP_HOOK_CAPSULE, hook_capsule_free);
  if (!cap) {
    free(h);
    return NULL;
  }
  if (PyCapsule_SetContext(cap, o) < 0) {
    Py_DECREF(cap);
    return NULL;
  }
  Py_INCREF(o);
  return cap;
}

static PyMethodDef sync_methods[] = {
    {"apply_gradients", (PyCFunction)sync_apply_gradients, METH_VARARGS, "TFC_SyncReplicasApplyGradients."},
    {"parts", (PyCFunction)sync_parts, METH_NOARGS, "The ops apply_gradients made."},
    {"set_sync_op", (PyCFunction)sync_set_sync_op, METH_O, "TFC_SyncReplicasSetSyncOp."},
    {"init_tokens_op", (PyCFunction)sync_init_tokens_op, METH_VARARGS, "TFC_SyncReplicasInitTokensOp."},
    {"hook", (PyCFunction)sync_hook, METH_VARARGS, "TFC_SyncReplicasHook as a hook capsule."},
    {NULL, NULL, 0, NULL}};

PyTypeObject PyTFSyncReplicas_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.SyncReplicas",
    .tp_basicsize = sizeof(PyTFSyncReplicas),
    .tp_dealloc = (destructor)sync_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = sync_new,
    .tp_methods = sync_methods,
    .tp_doc = "A TFC_SyncReplicasOptimizer over a _pywrap.Optimizer.",
};
