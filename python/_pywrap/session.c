/* tfc._pywrap Session and Runner.
 *
 * Session(graph, target, config) is TF_NewSession over a _pywrap.Graph (which it keeps alive),
 * with TF_SetTarget when target is not None and TF_SetConfig with the serialized ConfigProto.
 * close() closes the TF_Session at once (idempotent); the handle is deleted only when the
 * object dies, so a run still in flight on another thread never sees freed memory.
 *
 * make_runner(feeds, fetches, targets) prepares one call shape: feeds and fetches are lists of
 * (op, index) pairs and targets a list of ops. Calling the Runner with a sequence of feed
 * values (one per feed, converted to the feed's dtype) runs TF_SessionRun with the GIL
 * released and returns the list of fetched values (numpy arrays, numpy scalars, bytes).
 * runner(values, run_options_bytes, want_metadata) returns (values, metadata_bytes or None).
 * A closed session raises RuntimeError('Attempted to use a closed Session.'); a failed run
 * raises the class registered for the status code. On the main thread, Ctrl-C ends a run at
 * once with KeyboardInterrupt and leaves the session usable (interrupt.c).
 *
 * The same type also stands for a monitored session and for the raw sessions it lends out
 * (pywrap.h's PyTFSession; monitored_session.c makes those): a monitored session's Runners
 * run TFC_MonitoredSessionRun (not interruptible by Ctrl-C: the step ends first). */
#include "pywrap.h"
#include "tfc/monitored_session.h"
#include "tfc/tfc.h"

typedef struct {
  PyObject_HEAD
  PyTFSession *sess;
  int nfeeds, nfetches, ntargets;
  TF_Output *feeds;    /* nfeeds */
  TF_DataType *types;  /* nfeeds */
  TF_Output *fetches;  /* nfetches */
  TF_Operation **targets;
} PyTFRunner;

static PyObject *session_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *graph, *target;
  const char *config;
  Py_ssize_t config_len;
  if (!PyArg_ParseTuple(args, "O!Oy#", &PyTFGraph_Type, &graph, &target, &config, &config_len)) return NULL;
  if (target != Py_None && !PyUnicode_Check(target)) {
    PyErr_SetString(PyExc_TypeError, "target must be a str or None");
    return NULL;
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Status *s = TF_NewStatus();
  if (target != Py_None) TF_SetTarget(opts, PyUnicode_AsUTF8(target));
  TF_SetConfig(opts, config, (size_t)config_len, s);
  TF_Session *sess = NULL;
  if (TF_GetCode(s) == TF_OK) sess = TF_NewSession(((PyTFGraph *)graph)->graph, opts, s);
  TF_DeleteSessionOptions(opts);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  PyTFSession *self = (PyTFSession *)type->tp_alloc(type, 0);
  if (!self) {
    TF_Status *s2 = TF_NewStatus();
    TF_CloseSession(sess, s2);
    TF_DeleteSession(sess, s2);
    TF_DeleteStatus(s2);
    return NULL;
  }
  self->session = sess;
  Py_INCREF(graph);
  self->graph = graph;
  return (PyObject *)self;
}

static void session_close_now(PyTFSession *self) {
  if (self->closed) return;
  self->closed = 1;
  if (self->borrowed || !self->session) return;
  TF_Status *s = TF_NewStatus();
  Py_BEGIN_ALLOW_THREADS
  TF_CloseSession(self->session, s);
  Py_END_ALLOW_THREADS
  TF_DeleteStatus(s);
}

static void session_dealloc(PyTFSession *self) {
  if (self->monitored) {
    pywrap_monitored_delete(self);
  } else if (self->session && !self->borrowed) {
    session_close_now(self);
    TF_Status *s = TF_NewStatus();
    TF_DeleteSession(self->session, s);
    TF_DeleteStatus(s);
  }
  Py_XDECREF(self->graph);
  Py_XDECREF(self->callbacks);
  Py_XDECREF(self->c_hooks); /* after the monitored session that ran them is gone */
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *session_close(PyTFSession *self, PyObject *unused) {
  if (self->monitored) return pywrap_monitored_close(self);
  session_close_now(self);
  Py_RETURN_NONE;
}

static PyObject *closed_error(void) {
  PyErr_SetString(PyExc_RuntimeError, "Attempted to use a closed Session.");
  return NULL;
}

TF_Session *pywrap_session(PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFSession_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a _pywrap.Session");
    return NULL;
  }
  PyTFSession *self = (PyTFSession *)o;
  TF_Session *sess = self->closed ? NULL : self->monitored ? TFC_MonitoredSessionRawSession(self->monitored) : self->session;
  if (!sess) return (TF_Session *)closed_error();
  return sess;
}

/* list_devices() -> [(name, type, memory_limit_bytes, incarnation), ...] */
static PyObject *session_list_devices(PyTFSession *self, PyObject *unused) {
  TF_Session *sess = pywrap_session((PyObject *)self);
  if (!sess) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_DeviceList *l = TF_SessionListDevices(sess, s);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  int n = TF_DeviceListCount(l);
  PyObject *r = PyList_New(n);
  for (int i = 0; r && i < n; i++) {
    PyObject *t = Py_BuildValue("(ssLK)", TF_DeviceListName(l, i, s), TF_DeviceListType(l, i, s),
                                (long long)TF_DeviceListMemoryBytes(l, i, s),
                                (unsigned long long)TF_DeviceListIncarnation(l, i, s));
    if (!t) Py_CLEAR(r);
    else PyList_SET_ITEM(r, i, t);
  }
  TF_DeleteDeviceList(l);
  TF_DeleteStatus(s);
  return r;
}

static int read_outputs(PyObject *list, TF_Output **out, int *n) {
  PyObject *seq = PySequence_Fast(list, "expected a list of (op, index) pairs");
  if (!seq) return -1;
  *n = (int)PySequence_Fast_GET_SIZE(seq);
  *out = PyMem_Malloc(sizeof(TF_Output) * (*n ? *n : 1));
  if (!*out) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (int i = 0; i < *n; i++)
    if (pywrap_output(PySequence_Fast_GET_ITEM(seq, i), &(*out)[i]) < 0) {
      Py_DECREF(seq);
      return -1;
    }
  Py_DECREF(seq);
  return 0;
}

static PyObject *session_make_runner(PyTFSession *self, PyObject *args) {
  PyObject *feeds, *fetches, *targets;
  if (!PyArg_ParseTuple(args, "OOO", &feeds, &fetches, &targets)) return NULL;
  PyTFRunner *r = PyObject_New(PyTFRunner, &PyTFRunner_Type);
  if (!r) return NULL;
  Py_INCREF(self);
  r->sess = self;
  r->feeds = r->fetches = NULL;
  r->types = NULL;
  r->targets = NULL;
  r->nfeeds = r->nfetches = r->ntargets = 0;
  if (read_outputs(feeds, &r->feeds, &r->nfeeds) < 0 || read_outputs(fetches, &r->fetches, &r->nfetches) < 0) goto fail;
  r->types = PyMem_Malloc(sizeof(TF_DataType) * (r->nfeeds ? r->nfeeds : 1));
  if (!r->types) goto fail;
  for (int i = 0; i < r->nfeeds; i++) r->types[i] = TF_OperationOutputType(r->feeds[i]);
  PyObject *seq = PySequence_Fast(targets, "targets must be a list of ops");
  if (!seq) goto fail;
  r->ntargets = (int)PySequence_Fast_GET_SIZE(seq);
  r->targets = PyMem_Malloc(sizeof(TF_Operation *) * (r->ntargets ? r->ntargets : 1));
  for (int i = 0; r->targets && i < r->ntargets; i++)
    if (!(r->targets[i] = pywrap_op(PySequence_Fast_GET_ITEM(seq, i)))) {
      Py_DECREF(seq);
      goto fail;
    }
  Py_DECREF(seq);
  if (!r->targets) goto fail;
  return (PyObject *)r;
fail:
  if (!PyErr_Occurred()) PyErr_NoMemory();
  Py_DECREF(r);
  return NULL;
}

static PyMethodDef session_methods[] = {
    {"close", (PyCFunction)session_close, METH_NOARGS, NULL},
    {"list_devices", (PyCFunction)session_list_devices, METH_NOARGS, NULL},
    {"make_runner", (PyCFunction)session_make_runner, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyObject *session_get_closed(PyTFSession *self, void *unused) { return PyBool_FromLong(self->closed); }

static PyGetSetDef session_getset[] = {{"closed", (getter)session_get_closed, NULL, NULL, NULL}, {NULL}};

PyTypeObject PyTFSession_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Session",
    .tp_basicsize = sizeof(PyTFSession),
    .tp_dealloc = (destructor)session_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = session_new,
    .tp_methods = session_methods,
    .tp_getset = session_getset,
    .tp_doc = "A TF_Session.",
};

static void runner_dealloc(PyTFRunner *r) {
  PyMem_Free(r->feeds);
  PyMem_Free(r->types);
  PyMem_Free(r->fetches);
  PyMem_Free(r->targets);
  Py_XDECREF(r->sess);
  PyObject_Free(r);
}

enum { SMALL = 8 };

static PyObject *runner_call(PyTFRunner *r, PyObject *args, PyObject *kw) {
  PyObject *values, *options = Py_None;
  int want_meta = 0;
  if (kw || !PyArg_ParseTuple(args, "O|Op", &values, &options, &want_meta)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Runner takes (values, options=None, want_metadata=False)");
    return NULL;
  }
  pywrap_drain_released();
  if (r->sess->closed) return closed_error();
  PyObject *seq = PySequence_Fast(values, "feed values must be a sequence");
  if (!seq) return NULL;
  if (PySequence_Fast_GET_SIZE(seq) != r->nfeeds) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "expected %d feed values, got %zd", r->nfeeds, PySequence_Fast_GET_SIZE(seq));
  }
  TF_Tensor *in_small[SMALL], *out_small[SMALL];
  TF_Tensor **in = r->nfeeds <= SMALL ? in_small : PyMem_Calloc(r->nfeeds, sizeof *in);
  TF_Tensor **out = r->nfetches <= SMALL ? out_small : PyMem_Calloc(r->nfetches, sizeof *out);
  PyObject *result = NULL;
  TF_Buffer *opts = NULL, *meta = NULL;
  int nin = 0;
  if (!in || !out) {
    PyErr_NoMemory();
    goto out;
  }
  for (; nin < r->nfeeds; nin++)
    if (!(in[nin] = pywrap_tensor_from_ndarray(PySequence_Fast_GET_ITEM(seq, nin), r->types[nin]))) goto out;
  for (int i = 0; i < r->nfetches; i++) out[i] = NULL;
  if (options != Py_None) {
    char *buf;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(options, &buf, &len) < 0) goto out;
    opts = TF_NewBufferFromString(buf, (size_t)len);
  }
  if (want_meta) meta = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_CancellationManager *cancel = NULL;
  if (r->sess->monitored) {
    pywrap_monitored_run(r->sess, opts, r->feeds, in, r->nfeeds, r->fetches, out, r->nfetches,
                         (const TF_Operation *const *)r->targets, r->ntargets, meta, s);
  } else {
    cancel = pywrap_interrupt_begin();
    Py_BEGIN_ALLOW_THREADS
    TFC_SessionRunWithCancellation(r->sess->session, opts, r->feeds, in, r->nfeeds, r->fetches, out, r->nfetches,
                                   (const TF_Operation *const *)r->targets, r->ntargets, meta, cancel, s);
    Py_END_ALLOW_THREADS
  }
  /* Ctrl-C: Python's handler runs now (KeyboardInterrupt); the run's results are dropped. */
  if (pywrap_interrupt_end(cancel) && PyErr_CheckSignals() < 0) {
    TF_DeleteStatus(s);
    for (int i = 0; i < r->nfetches; i++) TF_DeleteTensor(out[i]);
    goto out;
  }
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    for (int i = 0; i < r->nfetches; i++) TF_DeleteTensor(out[i]);
    goto out;
  }
  TF_DeleteStatus(s);
  result = PyList_New(r->nfetches);
  for (int i = 0; i < r->nfetches; i++) {
    PyObject *v = NULL;
    if (result && out[i]) v = pywrap_ndarray_from_tensor(out[i]);
    else if (result) v = pywrap_raise_code(TF_INTERNAL, "a fetch produced no tensor");
    else TF_DeleteTensor(out[i]);
    if (result && !v) Py_CLEAR(result);
    if (result) PyList_SET_ITEM(result, i, v);
  }
  if (result && want_meta) {
    PyObject *m = PyBytes_FromStringAndSize(meta->data, (Py_ssize_t)meta->length);
    PyObject *pair = m ? PyTuple_Pack(2, result, m) : NULL;
    Py_XDECREF(m);
    Py_SETREF(result, pair);
  }
out:
  for (int i = 0; i < nin; i++) TF_DeleteTensor(in[i]);
  if (in != in_small) PyMem_Free(in);
  if (out != out_small) PyMem_Free(out);
  if (opts) TF_DeleteBuffer(opts);
  if (meta) TF_DeleteBuffer(meta);
  Py_DECREF(seq);
  return result;
}

PyTypeObject PyTFRunner_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Runner",
    .tp_basicsize = sizeof(PyTFRunner),
    .tp_dealloc = (destructor)runner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_call = (ternaryfunc)runner_call,
    .tp_doc = "One prepared TF_SessionRun call shape.",
};
