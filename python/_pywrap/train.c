/* tfc._pywrap training builders: include/tfc/train.h called from Python.
 *
 * Design: the Python package keeps the graph-building context (name scope, device stack,
 * control dependencies) per thread; a builder call takes it as a Scope, made here from
 * (graph, exact name prefix, device, control ops): the prefix is a name Python already took
 * from the shared table of names in use (TFC_GraphUniqueName), so the scope re-enters it
 * verbatim (TFC_NewSubScope with a trailing '/') and never uniquifies it again. The builders
 * then add their nodes to the C graph directly; the Python Graph wraps the new operations
 * afterwards (graph_ops_since). Everything else here is argument conversion:
 *
 * - operations are handles (ints, graph.c's encoding); outputs are (op, index) pairs;
 * - a variable is the triple (variable op, initializer op, (read op, 0));
 * - a builder's non-OK status raises the class registered for its code (pywrap_raise_status);
 *   the Python layer turns INVALID_ARGUMENT into ValueError as TensorFlow does while building.
 *
 * Scope and Optimizer objects own their C handles (freed in tp_dealloc). A Scope holds a
 * reference to its Python graph object, so the TF_Graph outlives it. An Optimizer keeps
 * per-graph slot caches keyed by TF_Graph pointers; the Python optimizer object is what keeps
 * the slots' Python wrappers.
 */
#include "pywrap.h"
#include "tfc/input.h" /* TFC_LocalVariables */
#include "tfc/train.h"

/* ---------------- Scope ---------------- */

typedef struct {
  PyObject_HEAD
  PyObject *graph; /* the _pywrap.Graph (owned reference) */
  TFC_Scope *scope;
  PyObject *device_fn; /* the scope's Python device function (owned), or NULL */
} PyTFScope;

static void scope_dealloc(PyTFScope *s) {
  TFC_DeleteScope(s->scope);
  Py_XDECREF(s->graph);
  Py_XDECREF(s->device_fn);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

/* The items of sequence o (`what` names it in the TypeError) converted by conv, each into
 * elem_size bytes of a malloc'd array (with allow_none, None items stay zeroed); *n the count.
 * NULL with an exception on failure. */
static void *seq_array(PyObject *o, const char *what, size_t elem_size, int allow_none,
                       int (*conv)(PyObject *item, void *dst), Py_ssize_t *n) {
  PyObject *seq = PySequence_Fast(o, what);
  if (!seq) return NULL;
  *n = PySequence_Fast_GET_SIZE(seq);
  char *arr = calloc((size_t)(*n ? *n : 1), elem_size);
  if (!arr) PyErr_NoMemory();
  for (Py_ssize_t i = 0; arr && i < *n; i++) {
    PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
    if (allow_none && it == Py_None) continue;
    if (conv(it, arr + (size_t)i * elem_size) < 0) {
      free(arr);
      arr = NULL;
    }
  }
  Py_DECREF(seq);
  return arr;
}

static int op_conv(PyObject *o, void *dst) { return (*(TF_Operation **)dst = pywrap_op(o)) ? 0 : -1; }

/* A list of operations as a malloc'd array; *n its length. NULL with an exception. */
static TF_Operation **ops_arg(PyObject *o, Py_ssize_t *n) {
  return seq_array(o, "expected a sequence of operations", sizeof(TF_Operation *), 0, op_conv, n);
}

/* The C side of a scope's Python device function (TFC_DeviceFunction; ctx: the callable,
 * which the Scope holds): fn(op_type, op_name, requested_device, op handle) -> device str or
 * None. Builders run with the GIL held; a Python exception stays set for the glue to re-raise
 * (pywrap_raise_status keeps it) and also becomes the status, so the call rolls back. */
static TF_Buffer *scope_device_fn(void *ctx, const char *op_type, const char *op_name, const char *device,
                                  TF_Operation *op, TF_Status *status) {
  PyGILState_STATE gil = PyGILState_Ensure();
  TF_Buffer *b = NULL;
  PyObject *h = op ? PyLong_FromVoidPtr(op) : (Py_INCREF(Py_None), Py_None);
  PyObject *r = h ? PyObject_CallFunction((PyObject *)ctx, "sssO", op_type, op_name, device ? device : "", h) : NULL;
  Py_XDECREF(h);
  if (r && r != Py_None) {
    Py_ssize_t n;
    const char *str = PyUnicode_Check(r) ? PyUnicode_AsUTF8AndSize(r, &n) : NULL;
    if (!str && !PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a device function must return a string");
    if (str && !(b = TF_NewBufferFromString(str, (size_t)n))) PyErr_NoMemory();
  }
  Py_XDECREF(r);
  if (PyErr_Occurred()) TF_SetStatus(status, TF_UNKNOWN, "Python device function failed");
  PyGILState_Release(gil);
  return b;
}

/* Scope(graph, name_prefix, device, [control op, ...][, builder name][, parent scope][, device
 * function]): with a parent (a cond branch's or loop's callback scope), the new scope derives
 * from it and keeps its control-flow context and control dependencies. With a device function
 * (see scope_device_fn) the scope places each node through it, the device string and the
 * parent's device functions set aside (the function sees the whole device stack). */
static PyObject *scope_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *g, *controls, *parent = Py_None, *device_fn = Py_None;
  const char *name, *device, *builder_name = NULL;
  if (!PyArg_ParseTuple(args, "O!ssO!|zOO", &PyTFGraph_Type, &g, &name, &device, &PyList_Type, &controls,
                        &builder_name, &parent, &device_fn))
    return NULL;
  if (parent != Py_None && !PyObject_TypeCheck(parent, &PyTFScope_Type)) {
    PyErr_SetString(PyExc_TypeError, "parent must be a _pywrap.Scope or None");
    return NULL;
  }
  if (device_fn != Py_None && !PyCallable_Check(device_fn)) {
    PyErr_SetString(PyExc_TypeError, "device function must be callable");
    return NULL;
  }
  TF_Graph *graph = ((PyTFGraph *)g)->graph;
  Py_ssize_t n;
  TF_Operation **ops = ops_arg(controls, &n);
  if (!ops) return NULL;
  TFC_Scope *sc = parent == Py_None ? TFC_NewRootScope(graph)
                                     : TFC_ScopeWithControlDependencies(((PyTFScope *)parent)->scope, NULL, 0),
            *t;
  if (sc && name[0]) {
    size_t len = strlen(name);
    char *exact = malloc(len + 2);
    t = NULL;
    if (exact) {
      memcpy(exact, name, len);
      exact[len] = '/';
      exact[len + 1] = 0;
      t = TFC_NewSubScope(sc, exact);
      free(exact);
    }
    TFC_DeleteScope(sc);
    sc = t;
  }
  if (sc && device_fn != Py_None) {
    t = TFC_ScopeWithDevice(sc, NULL);
    TFC_DeleteScope(sc);
    sc = t ? TFC_ScopeWithDeviceFunction(t, scope_device_fn, device_fn) : NULL;
    TFC_DeleteScope(t);
  } else if (sc && device[0]) {
    t = TFC_ScopeWithDevice(sc, device);
    TFC_DeleteScope(sc);
    sc = t;
  }
  if (sc && n) {
    t = TFC_ScopeWithControlDependencies(sc, ops, (int)n);
    TFC_DeleteScope(sc);
    sc = t;
  }
  free(ops);
  if (sc && builder_name && builder_name[0]) {
    t = TFC_ScopeWithBuilderName(sc, builder_name);
    TFC_DeleteScope(sc);
    sc = t;
  }
  if (!sc) return PyErr_NoMemory();
  PyTFScope *s = (PyTFScope *)type->tp_alloc(type, 0);
  if (!s) {
    TFC_DeleteScope(sc);
    return NULL;
  }
  Py_INCREF(g);
  s->graph = g;
  s->scope = sc;
  if (device_fn != Py_None) {
    Py_INCREF(device_fn);
    s->device_fn = device_fn;
  }
  return (PyObject *)s;
}

static PyObject *scope_name(PyTFScope *s, void *unused) { return PyUnicode_FromString(TFC_ScopeName(s->scope)); }

static PyGetSetDef scope_getset[] = {{"name", (getter)scope_name, NULL, "The name prefix.", NULL},
                                     {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject PyTFScope_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Scope",
    .tp_basicsize = sizeof(PyTFScope),
    .tp_dealloc = (destructor)scope_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = scope_new,
    .tp_getset = scope_getset,
    .tp_doc = "A TFC_Scope: (graph, exact name prefix, device, control dependencies).",
};

PyObject *pywrap_scope_wrap(PyObject *graph, TFC_Scope *sc) {
  if (!sc) return PyErr_NoMemory();
  PyTFScope *s = PyObject_New(PyTFScope, &PyTFScope_Type);
  if (!s) {
    TFC_DeleteScope(sc);
    return NULL;
  }
  Py_INCREF(graph);
  s->graph = graph;
  s->scope = sc;
  s->device_fn = NULL;
  return (PyObject *)s;
}

PyObject *pywrap_scope_graph(PyObject *o) { return ((PyTFScope *)o)->graph; }

static const TFC_Scope *scope_arg(PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFScope_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a _pywrap.Scope");
    return NULL;
  }
  return ((PyTFScope *)o)->scope;
}

const TFC_Scope *pywrap_scope(PyObject *o) { return scope_arg(o); }

/* ---------------- conversions ---------------- */

static PyObject *output_obj(TF_Output o) { return Py_BuildValue("(Ni)", PyLong_FromVoidPtr(o.oper), o.index); }

PyObject *pywrap_variable_obj(TFC_Variable v) {
  return Py_BuildValue("(NNN)", PyLong_FromVoidPtr(v.variable), PyLong_FromVoidPtr(v.initializer),
                       output_obj(v.value));
}

int pywrap_variable_arg(PyObject *o, TFC_Variable *v) {
  PyObject *var, *init, *value;
  if (!PyArg_ParseTuple(o, "OOO", &var, &init, &value)) return -1;
  if (!(v->variable = pywrap_op(var)) || !(v->initializer = pywrap_op(init))) return -1;
  return pywrap_output(value, &v->value);
}

static int output_conv(PyObject *o, void *dst) { return pywrap_output(o, dst); }
static int variable_conv(PyObject *o, void *dst) { return pywrap_variable_arg(o, dst); }

/* A list of outputs (or, with allow_none, None entries: {NULL, 0}). malloc'd. */
TF_Output *pywrap_outputs_arg(PyObject *o, Py_ssize_t *n, int allow_none) {
  return seq_array(o, "expected a sequence of outputs", sizeof(TF_Output), allow_none, output_conv, n);
}

TFC_Variable *pywrap_variables_arg(PyObject *o, Py_ssize_t *n) {
  return seq_array(o, "expected a sequence of variables", sizeof(TFC_Variable), 0, variable_conv, n);
}

/* Returns r, or NULL with the status's exception when it is not OK (then r is released). */
static PyObject *checked(TF_Status *s, PyObject *r) {
  if (pywrap_raise_status(s)) Py_CLEAR(r);
  TF_DeleteStatus(s);
  return r;
}

/* ---------------- graph-level ---------------- */

/* graph_ops_since(graph, pos) -> ([op, ...], new pos): the operations added after position
 * pos of TF_GraphNextOperation's walk. */
static PyObject *graph_ops_since(PyObject *self, PyObject *args) {
  PyObject *g;
  Py_ssize_t start;
  if (!PyArg_ParseTuple(args, "O!n", &PyTFGraph_Type, &g, &start)) return NULL;
  /* pos stays at the last operation returned: past the end the walk moves it beyond ids not
   * handed out yet. */
  size_t pos = (size_t)start, next = pos;
  PyObject *l = PyList_New(0);
  TF_Operation *op;
  while (l && (op = TF_GraphNextOperation(((PyTFGraph *)g)->graph, &next))) {
    PyObject *h = PyLong_FromVoidPtr(op);
    if (!h || PyList_Append(l, h) < 0) Py_CLEAR(l);
    Py_XDECREF(h);
    pos = next;
  }
  if (!l) return NULL;
  return Py_BuildValue("(Nn)", l, (Py_ssize_t)pos);
}

static PyObject *set_random_seed(PyObject *self, PyObject *args) {
  PyObject *g;
  long long seed;
  if (!PyArg_ParseTuple(args, "O!L", &PyTFGraph_Type, &g, &seed)) return NULL;
  TFC_SetRandomSeed(((PyTFGraph *)g)->graph, seed);
  Py_RETURN_NONE;
}

/* list_variables(graph, which): which 0 global, 1 trainable, 2 local. */
static PyObject *list_variables(PyObject *self, PyObject *args) {
  PyObject *g;
  int which;
  if (!PyArg_ParseTuple(args, "O!i", &PyTFGraph_Type, &g, &which)) return NULL;
  TF_Graph *graph = ((PyTFGraph *)g)->graph;
  int (*fn)(TF_Graph *, TFC_Variable *, int) =
      which == 0 ? TFC_GlobalVariables : which == 1 ? TFC_TrainableVariables : TFC_LocalVariables;
  int n = fn(graph, NULL, 0);
  TFC_Variable *vs = calloc((size_t)(n ? n : 1), sizeof *vs);
  if (!vs) return PyErr_NoMemory();
  n = fn(graph, vs, n);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *v = pywrap_variable_obj(vs[i]);
    if (!v) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, v);
  }
  free(vs);
  return l;
}

static PyObject *set_variable_collections(PyObject *self, PyObject *args) {
  PyObject *g, *vo;
  int flags;
  TFC_Variable v;
  if (!PyArg_ParseTuple(args, "O!Oi", &PyTFGraph_Type, &g, &vo, &flags) || pywrap_variable_arg(vo, &v) < 0) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_SetVariableCollections(((PyTFGraph *)g)->graph, &v, flags, s);
  Py_INCREF(Py_None);
  return checked(s, Py_None);
}

/* add_to_collection(graph, name, [op, ...]): one entry of a builders' collection. */
static PyObject *add_to_collection(PyObject *self, PyObject *args) {
  PyObject *g, *lo;
  const char *name;
  if (!PyArg_ParseTuple(args, "O!sO!", &PyTFGraph_Type, &g, &name, &PyList_Type, &lo)) return NULL;
  Py_ssize_t n;
  TF_Operation **ops = ops_arg(lo, &n);
  if (!ops) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_AddToCollection(((PyTFGraph *)g)->graph, name, ops, (int)n, s);
  free(ops);
  Py_INCREF(Py_None);
  return checked(s, Py_None);
}

/* collection_entries(graph, name) -> [[op, ...], ...] in the order added. */
static PyObject *collection_entries(PyObject *self, PyObject *args) {
  PyObject *g;
  const char *name;
  if (!PyArg_ParseTuple(args, "O!s", &PyTFGraph_Type, &g, &name)) return NULL;
  TF_Graph *graph = ((PyTFGraph *)g)->graph;
  int n = TFC_CollectionSize(graph, name);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    int k = TFC_CollectionEntry(graph, name, i, NULL, 0);
    TF_Operation **ops = malloc(sizeof *ops * (size_t)(k ? k : 1));
    if (!ops) {
      Py_CLEAR(l);
      return PyErr_NoMemory();
    }
    k = TFC_CollectionEntry(graph, name, i, ops, k);
    PyObject *e = PyList_New(k);
    for (int j = 0; e && j < k; j++) {
      PyObject *h = PyLong_FromVoidPtr(ops[j]);
      if (!h) Py_CLEAR(e);
      else PyList_SET_ITEM(e, j, h);
    }
    free(ops);
    if (!e) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, e);
  }
  return l;
}

/* ---------------- builders ---------------- */

/* new_variable(scope, name, initial value, flags) -> variable */
static PyObject *new_variable(PyObject *self, PyObject *args) {
  PyObject *so, *io;
  const char *name;
  int flags;
  TF_Output init;
  if (!PyArg_ParseTuple(args, "OsOi", &so, &name, &io, &flags)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(io, &init) < 0) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_Variable v = TFC_NewVariableWithFlags(sc, name, init, flags, s);
  return checked(s, TF_GetCode(s) == TF_OK ? pywrap_variable_obj(v) : NULL);
}

/* group(scope, [op, ...], name) -> op */
static PyObject *group(PyObject *self, PyObject *args) {
  PyObject *so, *lo;
  const char *name;
  if (!PyArg_ParseTuple(args, "OO!s", &so, &PyList_Type, &lo, &name)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc) return NULL;
  Py_ssize_t n;
  TF_Operation **ops = ops_arg(lo, &n);
  if (!ops) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TFC_Group(sc, ops, (int)n, name, s);
  free(ops);
  return checked(s, TF_GetCode(s) == TF_OK ? PyLong_FromVoidPtr(op) : NULL);
}

/* gradients(scope, ys, xs, grad_ys or None, tuples) -> [output or None, ...] */
static PyObject *gradients(PyObject *self, PyObject *args) {
  PyObject *so, *yo, *xo, *go;
  int tuples;
  if (!PyArg_ParseTuple(args, "OOOOp", &so, &yo, &xo, &go, &tuples)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc) return NULL;
  Py_ssize_t ny, nx, ng = 0;
  TF_Output *ys = pywrap_outputs_arg(yo, &ny, 0), *xs = NULL, *gys = NULL, *dxs = NULL;
  PyObject *r = NULL;
  if (!ys || !(xs = pywrap_outputs_arg(xo, &nx, 0))) goto out;
  if (go != Py_None && !(gys = pywrap_outputs_arg(go, &ng, 1))) goto out;
  if (gys && ng != ny) {
    PyErr_SetString(PyExc_ValueError, "grad_ys must have as many entries as ys");
    goto out;
  }
  if (!(dxs = calloc((size_t)(nx ? nx : 1), sizeof *dxs))) {
    PyErr_NoMemory();
    goto out;
  }
  TF_Status *s = TF_NewStatus();
  TFC_Gradients(sc, ys, (int)ny, xs, (int)nx, gys, (unsigned char)tuples, dxs, s);
  if (TF_GetCode(s) == TF_OK) {
    r = PyList_New(nx);
    for (Py_ssize_t i = 0; r && i < nx; i++) {
      PyObject *d;
      if (dxs[i].oper) d = output_obj(dxs[i]);
      else {
        Py_INCREF(Py_None);
        d = Py_None;
      }
      if (!d) Py_CLEAR(r);
      else PyList_SET_ITEM(r, i, d);
    }
  }
  r = checked(s, r);
out:
  free(ys);
  free(xs);
  free(gys);
  free(dxs);
  return r;
}

static PyObject *global_step(PyObject *self, PyObject *so) {
  const TFC_Scope *sc = scope_arg(so);
  if (!sc) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_Variable v = TFC_GetOrCreateGlobalStep(sc, s);
  return checked(s, TF_GetCode(s) == TF_OK ? pywrap_variable_obj(v) : NULL);
}

/* exponential_decay(scope, lr, step, decay_steps, decay_rate, staircase) -> output */
static PyObject *exponential_decay(PyObject *self, PyObject *args) {
  PyObject *so, *stepo;
  double lr, steps, rate;
  int staircase;
  TF_Output step;
  if (!PyArg_ParseTuple(args, "OdOddp", &so, &lr, &stepo, &steps, &rate, &staircase)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(stepo, &step) < 0) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Output o = TFC_ExponentialDecay(sc, lr, step, steps, rate, (unsigned char)staircase, s);
  return checked(s, TF_GetCode(s) == TF_OK ? output_obj(o) : NULL);
}

/* decay(kind, scope, step, lr, a, b, c, d) -> output: the other schedules of train.h by kind
 * ("natural_exp" a steps, b rate, c staircase; "polynomial" a steps, b end, c power, d cycle;
 * "inverse_time" as natural_exp; "cosine" a steps, b alpha; "restarts" a first steps, b t_mul,
 * c m_mul, d alpha; "linear_cosine" a steps, b num_periods, c alpha, d beta). */
static PyObject *decay(PyObject *self, PyObject *args) {
  PyObject *so, *stepo;
  const char *kind;
  double lr, a = 0, b = 0, c = 0, d = 0;
  TF_Output step;
  if (!PyArg_ParseTuple(args, "sOOd|dddd", &kind, &so, &stepo, &lr, &a, &b, &c, &d)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(stepo, &step) < 0) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Output o = {NULL, 0};
  if (!strcmp(kind, "natural_exp")) o = TFC_NaturalExpDecay(sc, lr, step, a, b, c != 0, s);
  else if (!strcmp(kind, "polynomial")) o = TFC_PolynomialDecay(sc, lr, step, a, b, c, d != 0, s);
  else if (!strcmp(kind, "inverse_time")) o = TFC_InverseTimeDecay(sc, lr, step, a, b, c != 0, s);
  else if (!strcmp(kind, "cosine")) o = TFC_CosineDecay(sc, lr, step, a, b, s);
  else if (!strcmp(kind, "restarts")) o = TFC_CosineDecayRestarts(sc, lr, step, a, b, c, d, s);
  else if (!strcmp(kind, "linear_cosine")) o = TFC_LinearCosineDecay(sc, lr, step, a, b, c, d, s);
  else {
    TF_DeleteStatus(s);
    return PyErr_Format(PyExc_ValueError, "unknown decay '%s'", kind);
  }
  return checked(s, TF_GetCode(s) == TF_OK ? output_obj(o) : NULL);
}

static int double_conv(PyObject *o, void *dst) {
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) return -1;
  *(double *)dst = v;
  return 0;
}

/* piecewise_constant(scope, x, [boundary, ...], [value, ...], value dtype) -> output */
static PyObject *piecewise_constant(PyObject *self, PyObject *args) {
  PyObject *so, *xo, *bo, *vo;
  int dtype;
  TF_Output x;
  if (!PyArg_ParseTuple(args, "OOOOi", &so, &xo, &bo, &vo, &dtype)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(xo, &x) < 0) return NULL;
  Py_ssize_t nb, nv;
  double *b = seq_array(bo, "boundaries must be a sequence of numbers", sizeof(double), 0, double_conv, &nb);
  if (!b) return NULL;
  double *v = seq_array(vo, "values must be a sequence of numbers", sizeof(double), 0, double_conv, &nv);
  if (!v) {
    free(b);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TF_Output o = TFC_PiecewiseConstant(sc, x, b, (int)nb, v, (int)nv, (TF_DataType)dtype, s);
  free(b);
  free(v);
  return checked(s, TF_GetCode(s) == TF_OK ? output_obj(o) : NULL);
}

/* moving_average(scope, decay, num_updates or None, [var, ...]) -> (op, [average var, ...]) */
static PyObject *moving_average(PyObject *self, PyObject *args) {
  PyObject *so, *no, *vo;
  double decay;
  TF_Output num = {NULL, 0};
  if (!PyArg_ParseTuple(args, "OdOO", &so, &decay, &no, &vo)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || (no != Py_None && pywrap_output(no, &num) < 0)) return NULL;
  Py_ssize_t n;
  TFC_Variable *vs = pywrap_variables_arg(vo, &n), *avgs = NULL;
  if (!vs) return NULL;
  if (!(avgs = calloc((size_t)(n ? n : 1), sizeof *avgs))) {
    free(vs);
    return PyErr_NoMemory();
  }
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TFC_ExponentialMovingAverage(sc, decay, num, vs, (int)n, avgs, s);
  PyObject *r = NULL;
  if (TF_GetCode(s) == TF_OK) {
    PyObject *l = PyList_New(n);
    for (Py_ssize_t i = 0; l && i < n; i++) {
      PyObject *v = pywrap_variable_obj(avgs[i]);
      if (!v) Py_CLEAR(l);
      else PyList_SET_ITEM(l, i, v);
    }
    if (l) r = Py_BuildValue("(NN)", PyLong_FromVoidPtr(op), l);
  }
  free(vs);
  free(avgs);
  return checked(s, r);
}

/* l2_regularizer(scope, scale, weights) -> output, or None (scale 0) */
static PyObject *l2_regularizer(PyObject *self, PyObject *args) {
  PyObject *so, *wo;
  double scale;
  TF_Output w;
  if (!PyArg_ParseTuple(args, "OdO", &so, &scale, &wo)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(wo, &w) < 0) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Output o = TFC_L2Regularizer(sc, scale, w, s);
  PyObject *r = NULL;
  if (TF_GetCode(s) == TF_OK) {
    if (o.oper) r = output_obj(o);
    else {
      Py_INCREF(Py_None);
      r = Py_None;
    }
  }
  return checked(s, r);
}

/* ---------------- Optimizer ---------------- */

typedef struct {
  PyObject_HEAD
  TFC_Optimizer *opt;
} PyTFOptimizer;

static void optimizer_dealloc(PyTFOptimizer *o) {
  TFC_DeleteOptimizer(o->opt);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

/* Optimizer(kind, name, learning_rate, a, b, c, flag, d, e): kind "GradientDescent", "Momentum"
 * (a momentum, flag use_nesterov), "Adam" (a beta1, b beta2, c epsilon), "Adagrad" (a
 * initial_accumulator_value), "RMSProp" (a decay, b momentum, c epsilon, flag centered),
 * "Adadelta" (a rho, b epsilon), "Ftrl" (a learning_rate_power, b initial_accumulator_value,
 * c l1, d l2, e l2_shrinkage), "ProximalGradientDescent" (a l1, b l2), "ProximalAdagrad" (a
 * initial_accumulator_value, b l1, c l2). */
static PyObject *optimizer_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  const char *kind, *name;
  double lr, a = 0, b = 0, c = 0, d = 0, e = 0;
  int flag = 0;
  if (!PyArg_ParseTuple(args, "ssd|dddpdd", &kind, &name, &lr, &a, &b, &c, &flag, &d, &e)) return NULL;
  TFC_Optimizer *opt = NULL;
  if (!strcmp(kind, "GradientDescent")) opt = TFC_NewGradientDescentOptimizer(lr, name);
  else if (!strcmp(kind, "Momentum")) opt = TFC_NewMomentumOptimizer(lr, a, (unsigned char)flag, name);
  else if (!strcmp(kind, "Adam")) opt = TFC_NewAdamOptimizer(lr, a, b, c, name);
  else if (!strcmp(kind, "Adagrad")) opt = TFC_NewAdagradOptimizer(lr, a, name);
  else if (!strcmp(kind, "RMSProp")) opt = TFC_NewRMSPropOptimizer(lr, a, b, c, (unsigned char)flag, name);
  else if (!strcmp(kind, "Adadelta")) opt = TFC_NewAdadeltaOptimizer(lr, a, b, name);
  else if (!strcmp(kind, "Ftrl")) opt = TFC_NewFtrlOptimizer(lr, a, b, c, d, e, name);
  else if (!strcmp(kind, "ProximalGradientDescent")) opt = TFC_NewProximalGradientDescentOptimizer(lr, a, b, name);
  else if (!strcmp(kind, "ProximalAdagrad")) opt = TFC_NewProximalAdagradOptimizer(lr, a, b, c, name);
  else return PyErr_Format(PyExc_ValueError, "unknown optimizer kind '%s'", kind);
  if (!opt) return PyErr_NoMemory();
  PyTFOptimizer *o = (PyTFOptimizer *)type->tp_alloc(type, 0);
  if (!o) {
    TFC_DeleteOptimizer(opt);
    return NULL;
  }
  o->opt = opt;
  return (PyObject *)o;
}

TFC_Optimizer *pywrap_optimizer(PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFOptimizer_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a _pywrap.Optimizer");
    return NULL;
  }
  return ((PyTFOptimizer *)o)->opt;
}

static PyObject *opt_set_learning_rate(PyTFOptimizer *o, PyObject *arg) {
  TF_Output lr;
  if (pywrap_output(arg, &lr) < 0) return NULL;
  TFC_OptimizerSetLearningRate(o->opt, lr);
  Py_RETURN_NONE;
}

/* compute_gradients(scope, loss, [var, ...]) -> ([var, ...], [grad or None, ...]); an empty
 * list means every trainable variable. */
static PyObject *opt_compute_gradients(PyTFOptimizer *o, PyObject *args) {
  PyObject *so, *lo, *vo;
  TF_Output loss;
  if (!PyArg_ParseTuple(args, "OOO", &so, &lo, &vo)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(lo, &loss) < 0) return NULL;
  Py_ssize_t n;
  TFC_Variable *given = pywrap_variables_arg(vo, &n);
  if (!given) return NULL;
  int cap = n ? (int)n : TFC_TrainableVariables(TFC_ScopeGraph(sc), NULL, 0);
  TFC_Variable *vs = calloc((size_t)(cap ? cap : 1), sizeof *vs);
  TF_Output *gs = calloc((size_t)(cap ? cap : 1), sizeof *gs);
  PyObject *r = NULL;
  if (!vs || !gs) {
    PyErr_NoMemory();
  } else {
    memcpy(vs, given, sizeof *vs * (size_t)n);
    TF_Status *s = TF_NewStatus();
    TFC_ComputeGradients(o->opt, sc, loss, vs, (int)n, gs, s);
    if (TF_GetCode(s) == TF_OK) {
      PyObject *vl = PyList_New(cap), *gl = PyList_New(cap);
      for (int i = 0; vl && gl && i < cap; i++) {
        PyObject *v = pywrap_variable_obj(vs[i]), *g;
        if (gs[i].oper) g = output_obj(gs[i]);
        else {
          Py_INCREF(Py_None);
          g = Py_None;
        }
        if (!v || !g) {
          Py_XDECREF(v);
          Py_XDECREF(g);
          Py_CLEAR(vl);
          break;
        }
        PyList_SET_ITEM(vl, i, v);
        PyList_SET_ITEM(gl, i, g);
      }
      if (vl && gl) r = Py_BuildValue("(OO)", vl, gl);
      Py_XDECREF(vl);
      Py_XDECREF(gl);
    }
    r = checked(s, r);
  }
  free(given);
  free(vs);
  free(gs);
  return r;
}

/* apply_gradients(scope, [grad or None, ...], [var, ...], global step var or None, name or
 * None) -> op */
static PyObject *opt_apply_gradients(PyTFOptimizer *o, PyObject *args) {
  PyObject *so, *go, *vo, *stepo, *nameo;
  if (!PyArg_ParseTuple(args, "OOOOO", &so, &go, &vo, &stepo, &nameo)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc) return NULL;
  const char *name = nameo == Py_None ? NULL : PyUnicode_AsUTF8(nameo);
  if (nameo != Py_None && !name) return NULL;
  TFC_Variable step, *stepp = NULL;
  if (stepo != Py_None) {
    if (pywrap_variable_arg(stepo, &step) < 0) return NULL;
    stepp = &step;
  }
  Py_ssize_t ng, nv;
  TF_Output *gs = pywrap_outputs_arg(go, &ng, 1);
  if (!gs) return NULL;
  TFC_Variable *vs = pywrap_variables_arg(vo, &nv);
  if (!vs) {
    free(gs);
    return NULL;
  }
  PyObject *r = NULL;
  if (ng != nv) {
    PyErr_SetString(PyExc_ValueError, "apply_gradients: as many gradients as variables are needed");
  } else {
    TF_Status *s = TF_NewStatus();
    TF_Operation *op = TFC_ApplyGradients(o->opt, sc, gs, vs, (int)nv, stepp, name, s);
    r = checked(s, TF_GetCode(s) == TF_OK ? PyLong_FromVoidPtr(op) : NULL);
  }
  free(gs);
  free(vs);
  return r;
}

/* minimize(scope, loss, global step var or None, name or None) -> op */
static PyObject *opt_minimize(PyTFOptimizer *o, PyObject *args) {
  PyObject *so, *lo, *stepo, *nameo;
  TF_Output loss;
  if (!PyArg_ParseTuple(args, "OOOO", &so, &lo, &stepo, &nameo)) return NULL;
  const TFC_Scope *sc = scope_arg(so);
  if (!sc || pywrap_output(lo, &loss) < 0) return NULL;
  const char *name = nameo == Py_None ? NULL : PyUnicode_AsUTF8(nameo);
  if (nameo != Py_None && !name) return NULL;
  TFC_Variable step, *stepp = NULL;
  if (stepo != Py_None) {
    if (pywrap_variable_arg(stepo, &step) < 0) return NULL;
    stepp = &step;
  }
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TFC_Minimize(o->opt, sc, loss, stepp, name, s);
  return checked(s, TF_GetCode(s) == TF_OK ? PyLong_FromVoidPtr(op) : NULL);
}

/* get_slot(graph, variable op, name) -> variable or None */
static PyObject *opt_get_slot(PyTFOptimizer *o, PyObject *args) {
  PyObject *g, *vo;
  const char *name;
  if (!PyArg_ParseTuple(args, "O!Os", &PyTFGraph_Type, &g, &vo, &name)) return NULL;
  TF_Operation *var = pywrap_op(vo);
  if (!var) return NULL;
  TFC_Variable slot;
  if (!TFC_OptimizerGetSlot(o->opt, ((PyTFGraph *)g)->graph, var, name, &slot)) Py_RETURN_NONE;
  return pywrap_variable_obj(slot);
}

static PyMethodDef optimizer_methods[] = {
    {"get_slot", (PyCFunction)opt_get_slot, METH_VARARGS, NULL},
    {"set_learning_rate", (PyCFunction)opt_set_learning_rate, METH_O, NULL},
    {"compute_gradients", (PyCFunction)opt_compute_gradients, METH_VARARGS, NULL},
    {"apply_gradients", (PyCFunction)opt_apply_gradients, METH_VARARGS, NULL},
    {"minimize", (PyCFunction)opt_minimize, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyTypeObject PyTFOptimizer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Optimizer",
    .tp_basicsize = sizeof(PyTFOptimizer),
    .tp_dealloc = (destructor)optimizer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = optimizer_new,
    .tp_methods = optimizer_methods,
    .tp_doc = "A TFC_Optimizer.",
};

PyMethodDef pywrap_train_methods[] = {
    {"graph_ops_since", graph_ops_since, METH_VARARGS, "Operations added after a walk position."},
    {"set_random_seed", set_random_seed, METH_VARARGS, "TFC_SetRandomSeed."},
    {"list_variables", list_variables, METH_VARARGS, "The global (0), trainable (1) or local (2) variables."},
    {"set_variable_collections", set_variable_collections, METH_VARARGS, "TFC_SetVariableCollections."},
    {"add_to_collection", add_to_collection, METH_VARARGS, "TFC_AddToCollection."},
    {"collection_entries", collection_entries, METH_VARARGS, "The entries of a builders' collection."},
    {"new_variable", new_variable, METH_VARARGS, "TFC_NewVariableWithFlags."},
    {"group", group, METH_VARARGS, "TFC_Group."},
    {"gradients", gradients, METH_VARARGS, "TFC_Gradients."},
    {"global_step", global_step, METH_O, "TFC_GetOrCreateGlobalStep."},
    {"exponential_decay", exponential_decay, METH_VARARGS, "TFC_ExponentialDecay."},
    {"decay", decay, METH_VARARGS, "The other learning-rate schedules of train.h."},
    {"piecewise_constant", piecewise_constant, METH_VARARGS, "TFC_PiecewiseConstant."},
    {"moving_average", moving_average, METH_VARARGS, "TFC_ExponentialMovingAverage."},
    {"l2_regularizer", l2_regularizer, METH_VARARGS, "TFC_L2Regularizer."},
    {NULL, NULL, 0, NULL}};
