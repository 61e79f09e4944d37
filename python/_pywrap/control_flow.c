/* tfc._pywrap control flow: include/tfc/control_flow.h's builders with Python callbacks.
 *
 * Design: cond(), case() and while_loop() call TFC_CondDynamic, TFC_CaseDynamic and
 * TFC_WhileLoop; each C callback wraps its borrowed callback scope in a new _pywrap.Scope (an
 * owned copy that keeps the control-flow context, so a Scope kept past the call only fails its
 * captures) and calls the Python function with it. The Python layer
 * (tfc/ops/control_flow_ops.py) runs the user's function with that scope as the thread's
 * control-flow scope, so Graph._create_op makes the function's ops inside the branch or loop,
 * bringing outside tensors in with capture() (TFC_Capture).
 *
 * Callbacks return outputs as (op handle, index) pairs. A Python exception in a callback is
 * kept, the callback's status is set (CANCELLED) so that the builder rolls the graph back, and
 * the kept exception is raised again when the builder returns: the caller sees the very
 * exception its function raised. A builder error with no Python exception raises the class
 * registered for its code. Everything runs with the GIL held (the callbacks run synchronously
 * on the calling thread).
 */
#include "pywrap.h"
#include "tfc/control_flow.h"

#define MAX_OUTPUTS 4096

typedef struct {
  PyObject *graph; /* the _pywrap.Graph (borrowed) */
  PyObject *exc_type, *exc_value, *exc_tb; /* the first exception a callback raised */
} cf_call;

typedef struct {
  cf_call *call;
  PyObject *fn; /* borrowed */
} cf_fn;

static void keep_exception(cf_call *c, TF_Status *st) {
  if (!c->exc_type) PyErr_Fetch(&c->exc_type, &c->exc_value, &c->exc_tb);
  else PyErr_Clear();
  TF_SetStatus(st, TF_CANCELLED, "a Python callback raised an exception");
}

/* Raises the kept exception or the status's; NULL. Or returns NULL-free success (0). */
static int finish_call(cf_call *c, TF_Status *st) {
  if (c->exc_type) {
    PyErr_Restore(c->exc_type, c->exc_value, c->exc_tb);
    c->exc_type = c->exc_value = c->exc_tb = NULL;
    return -1;
  }
  return pywrap_raise_status(st) ? -1 : 0;
}

static PyObject *scope_copy(cf_call *c, const TFC_Scope *sc) {
  return pywrap_scope_wrap(c->graph, TFC_ScopeWithControlDependencies(sc, NULL, 0));
}

static PyObject *outputs_list(const TF_Output *o, int n) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *t = Py_BuildValue("(Ni)", PyLong_FromVoidPtr(o[i].oper), o[i].index);
    if (!t) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, t);
  }
  return l;
}

/* Fills outs[0, max) from a sequence of (op, index); -1 with an exception set. */
static int fill_outputs(PyObject *r, TF_Output *outs, int max, int exact) {
  PyObject *seq = PySequence_Fast(r, "a control-flow callback must return a sequence of outputs");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > max || (exact && n != max)) {
    PyErr_Format(PyExc_ValueError, "a control-flow callback returned %zd outputs, expected %s%d", n,
                 exact ? "" : "at most ", max);
    Py_DECREF(seq);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (pywrap_output(PySequence_Fast_GET_ITEM(seq, i), &outs[i]) < 0) {
      Py_DECREF(seq);
      return -1;
    }
  Py_DECREF(seq);
  return 0;
}

static void branch_cb(const TFC_Scope *sc, void *arg, TF_Output *outputs, TF_Status *st) {
  cf_fn *f = arg;
  if (f->call->exc_type) { /* an earlier callback failed: build nothing more */
    TF_SetStatus(st, TF_CANCELLED, "a Python callback raised an exception");
    return;
  }
  PyObject *s = scope_copy(f->call, sc), *r = NULL;
  if (s) r = PyObject_CallFunctionObjArgs(f->fn, s, NULL);
  Py_XDECREF(s);
  if (!r || fill_outputs(r, outputs, MAX_OUTPUTS, 0) < 0) keep_exception(f->call, st);
  Py_XDECREF(r);
}

/* cond(scope, pred, true_fn, false_fn, name) -> [merge output, ...]; fn(scope) -> [output, ...] */
static PyObject *py_cond(PyObject *self, PyObject *args) {
  PyObject *scope, *pred, *tfn, *ffn;
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "OOOO|z", &scope, &pred, &tfn, &ffn, &name)) return NULL;
  const TFC_Scope *sc = pywrap_scope(scope);
  TF_Output p;
  if (!sc || pywrap_output(pred, &p) < 0) return NULL;
  cf_call c = {pywrap_scope_graph(scope), NULL, NULL, NULL};
  cf_fn t = {&c, tfn}, f = {&c, ffn};
  TF_Output *outs = calloc(MAX_OUTPUTS, sizeof *outs);
  if (!outs) return PyErr_NoMemory();
  TF_Status *st = TF_NewStatus();
  int n = 0;
  TFC_CondDynamic(sc, p, branch_cb, &t, branch_cb, &f, MAX_OUTPUTS, &n, name, outs, st);
  PyObject *r = finish_call(&c, st) < 0 ? NULL : outputs_list(outs, n);
  TF_DeleteStatus(st);
  free(outs);
  return r;
}

/* case(scope, [(pred, fn), ...], default_fn, name) -> [merge output, ...] */
static PyObject *py_case(PyObject *self, PyObject *args) {
  PyObject *scope, *pairs, *dfn;
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "OOO|z", &scope, &pairs, &dfn, &name)) return NULL;
  const TFC_Scope *sc = pywrap_scope(scope);
  if (!sc) return NULL;
  PyObject *seq = PySequence_Fast(pairs, "case takes a sequence of (pred, fn) pairs");
  if (!seq) return NULL;
  Py_ssize_t nb = PySequence_Fast_GET_SIZE(seq);
  cf_call c = {pywrap_scope_graph(scope), NULL, NULL, NULL};
  TFC_CaseBranch *br = calloc((size_t)nb + 1, sizeof *br);
  cf_fn *fns = calloc((size_t)nb + 1, sizeof *fns);
  TF_Output *outs = calloc(MAX_OUTPUTS, sizeof *outs);
  PyObject *r = NULL;
  if (!br || !fns || !outs) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < nb; i++) {
    PyObject *pair = PySequence_Fast_GET_ITEM(seq, i), *pred, *fn;
    if (!PyArg_ParseTuple(pair, "OO", &pred, &fn) || pywrap_output(pred, &br[i].pred) < 0) goto done;
    fns[i] = (cf_fn){&c, fn};
    br[i].fn = branch_cb;
    br[i].arg = &fns[i];
  }
  cf_fn d = {&c, dfn};
  TF_Status *st = TF_NewStatus();
  int n = 0;
  TFC_CaseDynamic(sc, br, (int)nb, branch_cb, &d, MAX_OUTPUTS, &n, name, outs, st);
  r = finish_call(&c, st) < 0 ? NULL : outputs_list(outs, n);
  TF_DeleteStatus(st);
done:
  free(br);
  free(fns);
  free(outs);
  Py_DECREF(seq);
  return r;
}

typedef struct {
  cf_call *call;
  PyObject *cond, *body; /* borrowed */
  int n;
} loop_fns;

static void loop_cond_cb(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *st) {
  loop_fns *f = arg;
  PyObject *s = scope_copy(f->call, sc), *v = s ? outputs_list(vars, f->n) : NULL, *r = NULL;
  if (v) r = PyObject_CallFunctionObjArgs(f->cond, s, v, NULL);
  Py_XDECREF(s);
  Py_XDECREF(v);
  if (!r || pywrap_output(r, out) < 0) keep_exception(f->call, st);
  Py_XDECREF(r);
}

static void loop_body_cb(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *st) {
  loop_fns *f = arg;
  PyObject *s = scope_copy(f->call, sc), *v = s ? outputs_list(vars, f->n) : NULL, *r = NULL;
  if (v) r = PyObject_CallFunctionObjArgs(f->body, s, v, NULL);
  Py_XDECREF(s);
  Py_XDECREF(v);
  if (!r || fill_outputs(r, outs, f->n, 1) < 0) keep_exception(f->call, st);
  Py_XDECREF(r);
}

/* while_loop(scope, cond, body, [var, ...], parallel_iterations, back_prop, maximum_iterations
 * (int, -1 for none), maximum_iterations tensor or None, name) -> [exit output, ...];
 * cond(scope, vars) -> output; body(scope, vars) -> [output, ...] */
static PyObject *py_while_loop(PyObject *self, PyObject *args) {
  PyObject *scope, *cond, *body, *vars, *max_t;
  int par, back_prop;
  long long max_n;
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "OOOOipLO|z", &scope, &cond, &body, &vars, &par, &back_prop, &max_n, &max_t, &name))
    return NULL;
  const TFC_Scope *sc = pywrap_scope(scope);
  if (!sc) return NULL;
  PyObject *seq = PySequence_Fast(vars, "loop_vars must be a sequence of outputs");
  if (!seq) return NULL;
  int n = (int)PySequence_Fast_GET_SIZE(seq);
  TF_Output *in = calloc((size_t)n + 1, sizeof *in), *outs = calloc((size_t)n + 1, sizeof *outs);
  PyObject *r = NULL;
  TFC_WhileOptions o = TFC_DefaultWhileOptions();
  o.parallel_iterations = par;
  o.back_prop = (unsigned char)back_prop;
  o.maximum_iterations = max_n;
  if (!in || !outs) {
    PyErr_NoMemory();
    goto done;
  }
  if (max_t != Py_None && pywrap_output(max_t, &o.maximum_iterations_tensor) < 0) goto done;
  if (fill_outputs(seq, in, n, 1) < 0) goto done;
  cf_call c = {pywrap_scope_graph(scope), NULL, NULL, NULL};
  loop_fns f = {&c, cond, body, n};
  TF_Status *st = TF_NewStatus();
  TFC_WhileLoop(sc, loop_cond_cb, loop_body_cb, &f, in, n, &o, name, outs, st);
  r = finish_call(&c, st) < 0 ? NULL : outputs_list(outs, n);
  TF_DeleteStatus(st);
done:
  free(in);
  free(outs);
  Py_DECREF(seq);
  return r;
}

/* capture(scope, output, op_name or None) -> output (TFC_Capture) */
static PyObject *py_capture(PyObject *self, PyObject *args) {
  PyObject *scope, *value;
  const char *op_name = NULL;
  if (!PyArg_ParseTuple(args, "OO|z", &scope, &value, &op_name)) return NULL;
  const TFC_Scope *sc = pywrap_scope(scope);
  TF_Output v;
  if (!sc || pywrap_output(value, &v) < 0) return NULL;
  TF_Status *st = TF_NewStatus();
  TF_Output r = TFC_Capture(sc, v, op_name, st);
  PyObject *res = pywrap_raise_status(st) ? NULL : Py_BuildValue("(Ni)", PyLong_FromVoidPtr(r.oper), r.index);
  TF_DeleteStatus(st);
  return res;
}

/* mark_outside(graph, op): TFC_MarkOutsideControlFlow */
static PyObject *py_mark_outside(PyObject *self, PyObject *args) {
  PyObject *g, *op;
  if (!PyArg_ParseTuple(args, "O!O", &PyTFGraph_Type, &g, &op)) return NULL;
  TF_Operation *o = pywrap_op(op);
  if (!o) return NULL;
  TF_Status *st = TF_NewStatus();
  TFC_MarkOutsideControlFlow(((PyTFGraph *)g)->graph, o, st);
  int bad = pywrap_raise_status(st);
  TF_DeleteStatus(st);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

PyMethodDef pywrap_cf_methods[] = {
    {"mark_outside", py_mark_outside, METH_VARARGS, "TFC_MarkOutsideControlFlow."},
    {"cond", py_cond, METH_VARARGS, "TFC_CondDynamic with Python branches."},
    {"case", py_case, METH_VARARGS, "TFC_CaseDynamic with Python branches."},
    {"while_loop", py_while_loop, METH_VARARGS, "TFC_WhileLoop with a Python cond and body."},
    {"capture", py_capture, METH_VARARGS, "TFC_Capture."},
    {NULL, NULL, 0, NULL}};
