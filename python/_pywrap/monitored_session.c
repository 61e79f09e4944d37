/* tfc._pywrap monitored sessions: tfc/training/monitored_session.py's MonitoredSession over
 * include/tfc/monitored_session.h.
 *
 * Design: monitored_session(graph, ..., callbacks) makes a _pywrap.Session of the monitored
 * kind (pywrap.h's PyTFSession): its Runners run TFC_MonitoredSessionRun, so Python's
 * Session.run machinery (fetch structures, feeds, options, metadata) serves it unchanged.
 * Creation, restore, waiting, the built-in hooks and recovery are the C session's; Python adds
 * its hooks' before_run/after_run around each run itself, and hears of session creation and
 * close through one C hook whose functions call back into Python (taking the GIL: the C calls
 * run with it released):
 * - after_create_session -> on_create(raw, coord): raw is a borrowed _pywrap.Session over the
 *   new TF_Session, coord a "coordinator" Handle over its TFC_Coordinator that frees nothing;
 * - end -> on_end();
 * - session_closing -> on_closing(): Python marks raw closed and closes coord's handle there,
 *   before the C side closes or replaces them, so neither is ever used once freed.
 *
 * Errors: an exception of on_create or on_end fails the C call with the code of the OpError
 * (else UNKNOWN) and stays the Python error the call raises (pywrap_raise_status keeps it), so
 * hooks' exceptions keep their class. An exception of on_closing is reported as unraisable (the
 * C call has no status there). A pending exception of an earlier creation attempt that the C
 * side retried (a preemption) is dropped when the next attempt reaches on_create. */
#include "pywrap.h"
#include "tfc/monitored_session.h"

/* Sets status from the pending Python exception (kept pending). */
static void status_from_exception(TF_Status *status) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  int code = TF_UNKNOWN;
  PyObject *c = value ? PyObject_GetAttrString(value, "error_code") : NULL;
  if (c && PyLong_Check(c)) {
    long v = PyLong_AsLong(c);
    if (v > 0 && v < 17) code = (int)v;
  }
  Py_XDECREF(c);
  PyErr_Clear();
  PyObject *str = value ? PyObject_Str(value) : NULL;
  const char *msg = str ? PyUnicode_AsUTF8(str) : NULL;
  PyErr_Clear();
  TF_SetStatus(status, (TF_Code)code, msg ? msg : "a Python hook failed");
  Py_XDECREF(str);
  PyErr_Restore(type, value, tb);
}

static PyObject *callback(PyTFSession *self, int i) {
  return self->callbacks && PyTuple_Check(self->callbacks) && PyTuple_GET_SIZE(self->callbacks) > i
             ? PyTuple_GET_ITEM(self->callbacks, i)
             : NULL;
}

static void on_create(void *arg, TF_Session *sess, TFC_Coordinator *coord, TF_Status *status) {
  PyGILState_STATE g = PyGILState_Ensure();
  PyTFSession *self = arg;
  PyErr_Clear(); /* an earlier attempt's error: the C side is trying again */
  PyObject *cb = callback(self, 0);
  if (cb && cb != Py_None) {
    PyTFSession *raw = (PyTFSession *)PyTFSession_Type.tp_alloc(&PyTFSession_Type, 0);
    PyObject *co = raw ? pywrap_borrowed_coordinator(coord) : NULL;
    PyObject *r = NULL;
    if (co) {
      raw->session = sess;
      raw->borrowed = 1;
      Py_INCREF(self->graph);
      raw->graph = self->graph;
      r = PyObject_CallFunctionObjArgs(cb, (PyObject *)raw, co, NULL);
    }
    Py_XDECREF(co);
    Py_XDECREF((PyObject *)raw);
    if (!r) status_from_exception(status);
    Py_XDECREF(r);
  }
  PyGILState_Release(g);
}

static void on_end(void *arg, TF_Session *sess, TF_Status *status) {
  (void)sess;
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *cb = callback(arg, 1);
  if (cb && cb != Py_None) {
    PyObject *r = PyObject_CallNoArgs(cb);
    if (!r) status_from_exception(status);
    Py_XDECREF(r);
  }
  PyGILState_Release(g);
}

static void on_closing(void *arg, TF_Session *sess, TFC_Coordinator *coord) {
  (void)sess, (void)coord;
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *cb = callback(arg, 2);
  if (cb && cb != Py_None) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb); /* the error the C call is failing with, if any */
    PyObject *r = PyObject_CallNoArgs(cb);
    if (!r) PyErr_WriteUnraisable(cb);
    Py_XDECREF(r);
    PyErr_Restore(type, value, tb);
  }
  PyGILState_Release(g);
}

/* Raises the status's error (or a hook's exception); clears a stray exception when OK. */
static int finish(TF_Status *s) {
  if (TF_GetCode(s) == TF_OK) {
    PyErr_Clear();
    return 0;
  }
  return pywrap_raise_status(s);
}

static const char *opt_str(PyObject *o) { return o == Py_None ? NULL : PyUnicode_AsUTF8(o); }

/* monitored_session(graph, master, is_chief, checkpoint_dir, save_checkpoint_steps,
 *   save_checkpoint_secs, last_step, max_wait_secs, recovery_wait_secs, config_bytes,
 *   summary_dir, save_summaries_steps, log_step_count_steps, save_summaries_secs, callbacks
 *   [, c_hooks]) -> Session.
 * Strings may be None; numbers follow TFC_MonitoredSessionOptions (0: TF's default). callbacks
 * is (on_create, on_end, on_closing), each callable or None; c_hooks a tuple of hook capsules. */
static PyObject *monitored_session(PyObject *unused, PyObject *args) {
  PyObject *graph, *master, *ckpt, *sdir, *callbacks, *c_hooks = NULL;
  int is_chief, save_steps, summary_steps, count_steps;
  double save_secs, max_wait, recovery_wait, summary_secs;
  long long last_step;
  const char *config;
  Py_ssize_t config_len;
  if (!PyArg_ParseTuple(args, "O!OpOidLddy#OiidO!|O!", &PyTFGraph_Type, &graph, &master, &is_chief, &ckpt,
                        &save_steps, &save_secs, &last_step, &max_wait, &recovery_wait, &config, &config_len, &sdir,
                        &summary_steps, &count_steps, &summary_secs, &PyTuple_Type, &callbacks, &PyTuple_Type,
                        &c_hooks))
    return NULL;
  Py_ssize_t n_c = c_hooks ? PyTuple_GET_SIZE(c_hooks) : 0;
  TFC_SessionRunHook *hooks = calloc((size_t)n_c + 1, sizeof *hooks);
  if (!hooks) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n_c; i++) {
    const TFC_SessionRunHook *h = PyCapsule_GetPointer(PyTuple_GET_ITEM(c_hooks, i), PYWRAP_HOOK_CAPSULE);
    if (!h) {
      free(hooks);
      return NULL;
    }
    hooks[1 + i] = *h;
  }
  for (PyObject **o = (PyObject *[]){master, ckpt, sdir, NULL}; *o; o++)
    if (*o != Py_None && !PyUnicode_Check(*o)) {
      PyErr_SetString(PyExc_TypeError, "master, checkpoint_dir and summary_dir must be str or None");
      free(hooks);
      return NULL;
    }
  PyTFSession *self = (PyTFSession *)PyTFSession_Type.tp_alloc(&PyTFSession_Type, 0);
  if (!self) {
    free(hooks);
    return NULL;
  }
  Py_INCREF(graph);
  self->graph = graph;
  Py_INCREF(callbacks);
  self->callbacks = callbacks;
  Py_XINCREF(c_hooks);
  self->c_hooks = c_hooks;
  hooks[0] = (TFC_SessionRunHook){self, on_create, NULL, NULL, on_end, on_closing};
  TFC_MonitoredSessionOptions o = {0};
  o.master = opt_str(master);
  o.is_chief = (unsigned char)is_chief;
  o.checkpoint_dir = opt_str(ckpt);
  o.save_checkpoint_steps = save_steps;
  o.save_checkpoint_secs = save_secs;
  o.last_step = (int64_t)last_step;
  o.max_wait_secs = max_wait;
  o.recovery_wait_secs = recovery_wait;
  o.config = config_len ? config : NULL;
  o.config_len = (size_t)config_len;
  o.hooks = hooks;
  o.num_hooks = 1 + (int)n_c;
  o.summary_dir = opt_str(sdir);
  o.save_summaries_steps = summary_steps;
  o.log_step_count_steps = count_steps;
  o.save_summaries_secs = summary_secs;
  if (PyErr_Occurred()) {
    free(hooks);
    Py_DECREF(self);
    return NULL;
  }
  TF_Graph *g = ((PyTFGraph *)graph)->graph;
  TF_Status *s = TF_NewStatus();
  TFC_MonitoredSession *ms;
  Py_BEGIN_ALLOW_THREADS
  ms = TFC_NewMonitoredSession(g, &o, s);
  Py_END_ALLOW_THREADS
  free(hooks);
  if (finish(s)) {
    TF_DeleteStatus(s);
    self->closed = 1;
    Py_DECREF(self);
    return NULL;
  }
  TF_DeleteStatus(s);
  self->monitored = ms;
  return (PyObject *)self;
}

void pywrap_monitored_run(PyTFSession *self, const TF_Buffer *opts, const TF_Output *feeds, TF_Tensor *const *in,
                          int nfeeds, const TF_Output *fetches, TF_Tensor **out, int nfetches,
                          const TF_Operation *const *targets, int ntargets, TF_Buffer *meta, TF_Status *s) {
  Py_BEGIN_ALLOW_THREADS
  TFC_MonitoredSessionRun(self->monitored, opts, feeds, in, nfeeds, fetches, out, nfetches, targets, ntargets, meta, s);
  Py_END_ALLOW_THREADS
  if (TF_GetCode(s) == TF_OK) PyErr_Clear();
}

PyObject *pywrap_monitored_close(PyTFSession *self) {
  if (self->closed) Py_RETURN_NONE;
  self->closed = 1;
  TF_Status *s = TF_NewStatus();
  Py_BEGIN_ALLOW_THREADS
  TFC_MonitoredSessionClose(self->monitored, s);
  Py_END_ALLOW_THREADS
  if (finish(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  Py_RETURN_NONE;
}

void pywrap_monitored_delete(PyTFSession *self) {
  /* A monitored session dropped unclosed: closed without calling back into Python (its
   * objects may be half torn down), then freed. */
  Py_CLEAR(self->callbacks);
  self->closed = 1;
  TFC_MonitoredSession *ms = self->monitored;
  self->monitored = NULL;
  Py_BEGIN_ALLOW_THREADS
  TFC_DeleteMonitoredSession(ms);
  Py_END_ALLOW_THREADS
}

/* monitored_request_stop(session) / monitored_should_stop(session) -> bool /
 * monitored_global_step(session) -> int (-1 without a global step). */
static TFC_MonitoredSession *get(PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFSession_Type) || !((PyTFSession *)o)->monitored) {
    PyErr_SetString(PyExc_TypeError, "expected a monitored _pywrap.Session");
    return NULL;
  }
  return ((PyTFSession *)o)->monitored;
}

static PyObject *monitored_request_stop(PyObject *unused, PyObject *o) {
  TFC_MonitoredSession *ms = get(o);
  if (!ms) return NULL;
  TFC_MonitoredSessionRequestStop(ms);
  Py_RETURN_NONE;
}

static PyObject *monitored_should_stop(PyObject *unused, PyObject *o) {
  TFC_MonitoredSession *ms = get(o);
  return ms ? PyBool_FromLong(TFC_MonitoredSessionShouldStop(ms)) : NULL;
}

static PyObject *monitored_global_step(PyObject *unused, PyObject *o) {
  TFC_MonitoredSession *ms = get(o);
  return ms ? PyLong_FromLongLong((long long)TFC_MonitoredSessionGlobalStep(ms)) : NULL;
}

PyMethodDef pywrap_monitored_methods[] = {
    {"monitored_session", monitored_session, METH_VARARGS, NULL},
    {"monitored_request_stop", monitored_request_stop, METH_O, NULL},
    {"monitored_should_stop", monitored_should_stop, METH_O, NULL},
    {"monitored_global_step", monitored_global_step, METH_O, NULL},
    {NULL, NULL, 0, NULL}};
