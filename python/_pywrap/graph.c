/* tfc._pywrap graph functions: the Graph handle, building one op, and reading ops back.
 *
 * finish_op(graph, type, name, device, inputs, attrs, control_inputs) makes one op with
 * TF_NewOperation .. TF_FinishOperation. inputs is a list whose items are (op, index) pairs or
 * lists of them (a list input); attrs is a list of (name, kind, value) where kind is the OpDef
 * attr type ("int", "list(type)", "shape", "tensor", ...) or "proto" for serialized AttrValue
 * bytes. Shapes are None (unknown rank) or sequences of int/None. Errors from TF_FinishOperation
 * (shape inference, bad attrs) raise the registered class for their code; the Python layer turns
 * them into ValueError as TensorFlow does while building. Operation handles are ints (pywrap.h). */
#include "pywrap.h"
#include "tfc/train.h"

static PyObject *graph_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyTFGraph *g = (PyTFGraph *)type->tp_alloc(type, 0);
  if (!g) return NULL;
  g->graph = TF_NewGraph();
  if (!g->graph) {
    Py_DECREF(g);
    return PyErr_NoMemory();
  }
  return (PyObject *)g;
}

static void graph_dealloc(PyTFGraph *g) {
  if (g->graph) TF_DeleteGraph(g->graph); /* sessions over it keep it alive in the library */
  Py_TYPE(g)->tp_free((PyObject *)g);
}

PyTypeObject PyTFGraph_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Graph",
    .tp_basicsize = sizeof(PyTFGraph),
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = graph_new,
    .tp_doc = "A TF_Graph.",
};

static TF_Graph *graph_arg(PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFGraph_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a _pywrap.Graph");
    return NULL;
  }
  return ((PyTFGraph *)o)->graph;
}

TF_Operation *pywrap_op(PyObject *o) {
  void *p = PyLong_Check(o) ? PyLong_AsVoidPtr(o) : NULL;
  if (!p) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "expected an operation handle");
    return NULL;
  }
  return (TF_Operation *)p;
}

int pywrap_output(PyObject *o, TF_Output *out) {
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
    PyErr_SetString(PyExc_TypeError, "expected an (op, index) pair");
    return -1;
  }
  out->oper = pywrap_op(PyTuple_GET_ITEM(o, 0));
  if (!out->oper) return -1;
  out->index = (int)PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
  return out->index == -1 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *op_handle(TF_Operation *op) { return PyLong_FromVoidPtr(op); }

/* dims from None / a sequence of int-or-None; *n = -1 for None. Returns a malloc'd array (NULL
 * with n >= 0 only for rank 0) or NULL with an exception. */
static int64_t *read_dims(PyObject *v, int *n, int *err) {
  *err = 0;
  if (v == Py_None) {
    *n = -1;
    return NULL;
  }
  PyObject *seq = PySequence_Fast(v, "a shape must be None or a sequence");
  if (!seq) {
    *err = 1;
    return NULL;
  }
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  int64_t *dims = malloc(sizeof(int64_t) * (len ? len : 1));
  if (!dims) {
    Py_DECREF(seq);
    *err = 1;
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject *d = PySequence_Fast_GET_ITEM(seq, i);
    dims[i] = d == Py_None ? -1 : PyLong_AsLongLong(d);
    if (dims[i] == -1 && PyErr_Occurred()) {
      free(dims);
      Py_DECREF(seq);
      *err = 1;
      return NULL;
    }
  }
  Py_DECREF(seq);
  *n = (int)len;
  return dims;
}

static int set_scalar_attr(TF_OperationDescription *d, const char *name, const char *kind, PyObject *v) {
  if (!strcmp(kind, "string") || !strcmp(kind, "func")) {
    char *buf;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(v, &buf, &len) < 0) return -1;
    if (kind[0] == 'f') TF_SetAttrFuncName(d, name, buf, (size_t)len);
    else TF_SetAttrString(d, name, buf, (size_t)len);
  } else if (!strcmp(kind, "int")) {
    long long i = PyLong_AsLongLong(v);
    if (i == -1 && PyErr_Occurred()) return -1;
    TF_SetAttrInt(d, name, i);
  } else if (!strcmp(kind, "float")) {
    double f = PyFloat_AsDouble(v);
    if (f == -1.0 && PyErr_Occurred()) return -1;
    TF_SetAttrFloat(d, name, (float)f);
  } else if (!strcmp(kind, "bool")) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return -1;
    TF_SetAttrBool(d, name, (unsigned char)b);
  } else if (!strcmp(kind, "type")) {
    long t = PyLong_AsLong(v);
    if (t == -1 && PyErr_Occurred()) return -1;
    TF_SetAttrType(d, name, (TF_DataType)t);
  } else if (!strcmp(kind, "shape")) {
    int n, err;
    int64_t *dims = read_dims(v, &n, &err);
    if (err) return -1;
    TF_SetAttrShape(d, name, dims, n);
    free(dims);
  } else {
    PyErr_Format(PyExc_ValueError, "attr '%s': unsupported kind '%s'", name, kind);
    return -1;
  }
  return 0;
}

/* A tensor attr value is a (TF dtype, ndarray) pair. */
static TF_Tensor *attr_tensor(PyObject *v) {
  int dt;
  PyObject *arr;
  if (!PyArg_ParseTuple(v, "iO", &dt, &arr)) return NULL;
  return pywrap_tensor_from_ndarray(arr, (TF_DataType)dt);
}

static int set_list_attr(TF_OperationDescription *d, const char *name, const char *kind, PyObject *v) {
  PyObject *seq = PySequence_Fast(v, "a list attr value must be a sequence");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject **items = PySequence_Fast_ITEMS(seq);
  int rc = -1;
  void *vals = calloc(n ? n : 1, sizeof(int64_t) > sizeof(void *) ? sizeof(int64_t) : sizeof(void *));
  size_t *lens = calloc(n ? n : 1, sizeof(size_t));
  int *ranks = calloc(n ? n : 1, sizeof(int));
  Py_ssize_t filled = 0;
  if (!vals || !lens || !ranks) {
    PyErr_NoMemory();
    goto out;
  }
  for (; filled < n; filled++) {
    PyObject *it = items[filled];
    if (!strcmp(kind, "int")) {
      ((int64_t *)vals)[filled] = PyLong_AsLongLong(it);
      if (((int64_t *)vals)[filled] == -1 && PyErr_Occurred()) goto out;
    } else if (!strcmp(kind, "float")) {
      ((float *)vals)[filled] = (float)PyFloat_AsDouble(it);
      if (PyErr_Occurred()) goto out;
    } else if (!strcmp(kind, "bool")) {
      int b = PyObject_IsTrue(it);
      if (b < 0) goto out;
      ((unsigned char *)vals)[filled] = (unsigned char)b;
    } else if (!strcmp(kind, "type")) {
      ((TF_DataType *)vals)[filled] = (TF_DataType)PyLong_AsLong(it);
      if (PyErr_Occurred()) goto out;
    } else if (!strcmp(kind, "string")) {
      char *buf;
      Py_ssize_t len;
      if (PyBytes_AsStringAndSize(it, &buf, &len) < 0) goto out;
      ((const void **)vals)[filled] = buf;
      lens[filled] = (size_t)len;
    } else if (!strcmp(kind, "shape")) {
      int err;
      ((int64_t **)vals)[filled] = read_dims(it, &ranks[filled], &err);
      if (err) goto out;
    } else if (!strcmp(kind, "tensor")) {
      ((TF_Tensor **)vals)[filled] = attr_tensor(it);
      if (!((TF_Tensor **)vals)[filled]) goto out;
    } else {
      PyErr_Format(PyExc_ValueError, "attr '%s': unsupported kind 'list(%s)'", name, kind);
      goto out;
    }
  }
  if (!strcmp(kind, "int")) TF_SetAttrIntList(d, name, vals, (int)n);
  else if (!strcmp(kind, "float")) TF_SetAttrFloatList(d, name, vals, (int)n);
  else if (!strcmp(kind, "bool")) TF_SetAttrBoolList(d, name, vals, (int)n);
  else if (!strcmp(kind, "type")) TF_SetAttrTypeList(d, name, vals, (int)n);
  else if (!strcmp(kind, "string")) TF_SetAttrStringList(d, name, vals, lens, (int)n);
  else if (!strcmp(kind, "shape")) TF_SetAttrShapeList(d, name, (const int64_t *const *)vals, ranks, (int)n);
  else if (!strcmp(kind, "tensor")) {
    TF_Status *s = TF_NewStatus();
    TF_SetAttrTensorList(d, name, vals, (int)n, s);
    int bad = pywrap_raise_status(s);
    TF_DeleteStatus(s);
    if (bad) goto out;
  }
  rc = 0;
out:
  if (vals && !strcmp(kind, "shape"))
    for (Py_ssize_t i = 0; i < filled; i++) free(((int64_t **)vals)[i]);
  if (vals && !strcmp(kind, "tensor"))
    for (Py_ssize_t i = 0; i < filled; i++) TF_DeleteTensor(((TF_Tensor **)vals)[i]);
  free(vals);
  free(lens);
  free(ranks);
  Py_DECREF(seq);
  return rc;
}

static int set_attr(TF_OperationDescription *d, PyObject *item) {
  const char *name, *kind;
  PyObject *v;
  if (!PyArg_ParseTuple(item, "ssO", &name, &kind, &v)) return -1;
  if (!strcmp(kind, "proto") || !strcmp(kind, "tensor")) {
    TF_Status *s = TF_NewStatus();
    if (kind[0] == 'p') {
      char *buf;
      Py_ssize_t len;
      if (PyBytes_AsStringAndSize(v, &buf, &len) < 0) {
        TF_DeleteStatus(s);
        return -1;
      }
      TF_SetAttrValueProto(d, name, buf, (size_t)len, s);
    } else {
      TF_Tensor *t = attr_tensor(v);
      if (!t) {
        TF_DeleteStatus(s);
        return -1;
      }
      TF_SetAttrTensor(d, name, t, s);
      TF_DeleteTensor(t);
    }
    int bad = pywrap_raise_status(s);
    TF_DeleteStatus(s);
    return bad ? -1 : 0;
  }
  if (!strncmp(kind, "list(", 5)) {
    char inner[16];
    size_t len = strlen(kind + 5);
    if (len < 2 || len > sizeof inner) {
      PyErr_Format(PyExc_ValueError, "attr '%s': bad kind '%s'", name, kind);
      return -1;
    }
    memcpy(inner, kind + 5, len - 1);
    inner[len - 1] = 0;
    return set_list_attr(d, name, inner, v);
  }
  return set_scalar_attr(d, name, kind, v);
}

static int add_input(TF_OperationDescription *d, PyObject *in) {
  if (PyList_Check(in)) {
    Py_ssize_t n = PyList_GET_SIZE(in);
    TF_Output *outs = malloc(sizeof(TF_Output) * (n ? n : 1));
    if (!outs) {
      PyErr_NoMemory();
      return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
      if (pywrap_output(PyList_GET_ITEM(in, i), &outs[i]) < 0) {
        free(outs);
        return -1;
      }
    TF_AddInputList(d, outs, (int)n);
    free(outs);
    return 0;
  }
  TF_Output o;
  if (pywrap_output(in, &o) < 0) return -1;
  TF_AddInput(d, o);
  return 0;
}

static PyObject *finish_op(PyObject *self, PyObject *args) {
  PyObject *g, *inputs, *attrs, *controls;
  const char *type, *name, *device;
  if (!PyArg_ParseTuple(args, "OsssO!O!O!", &g, &type, &name, &device, &PyList_Type, &inputs,
                        &PyList_Type, &attrs, &PyList_Type, &controls))
    return NULL;
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  TF_OperationDescription *d = TF_NewOperation(graph, type, name);
  int bad = 0;
  if (device[0]) TF_SetDevice(d, device);
  for (Py_ssize_t i = 0; !bad && i < PyList_GET_SIZE(inputs); i++) bad = add_input(d, PyList_GET_ITEM(inputs, i)) < 0;
  for (Py_ssize_t i = 0; !bad && i < PyList_GET_SIZE(attrs); i++) bad = set_attr(d, PyList_GET_ITEM(attrs, i)) < 0;
  for (Py_ssize_t i = 0; !bad && i < PyList_GET_SIZE(controls); i++) {
    TF_Operation *c = pywrap_op(PyList_GET_ITEM(controls, i));
    if (!c) bad = 1;
    else TF_AddControlInput(d, c);
  }
  if (bad) {
    /* The description must still be consumed: a shape attr of rank 1 with no dims marks it
     * failed, so TF_FinishOperation frees it and adds nothing to the graph. */
    TF_Status *s = TF_NewStatus();
    TF_SetAttrShape(d, "_", NULL, 1);
    TF_Operation *op = TF_FinishOperation(d, s);
    (void)op;
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  return bad ? NULL : op_handle(op);
}

#define OP_ARG(args, op)                              \
  TF_Operation *op;                                   \
  do {                                                \
    op = pywrap_op(args);                             \
    if (!op) return NULL;                             \
  } while (0)

static PyObject *op_name(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  return PyUnicode_FromString(TF_OperationName(op));
}
static PyObject *op_type(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  return PyUnicode_FromString(TF_OperationOpType(op));
}
static PyObject *op_device(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  return PyUnicode_FromString(TF_OperationDevice(op));
}

/* op_outputs(op) -> [dtype, ...] */
static PyObject *op_outputs(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  int n = TF_OperationNumOutputs(op);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *t = PyLong_FromLong(TF_OperationOutputType((TF_Output){op, i}));
    if (!t) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, t);
  }
  return l;
}

/* op_inputs(op) -> [(op, index), ...] */
static PyObject *op_inputs(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  int n = TF_OperationNumInputs(op);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    TF_Output in = TF_OperationInput((TF_Input){op, i});
    PyObject *t = Py_BuildValue("(Ni)", op_handle(in.oper), in.index);
    if (!t) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, t);
  }
  return l;
}

static PyObject *op_list(TF_Operation **ops, int n) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *h = op_handle(ops[i]);
    if (!h) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, h);
  }
  return l;
}

static PyObject *op_control_inputs(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  int n = TF_OperationNumControlInputs(op);
  TF_Operation **ops = malloc(sizeof *ops * (n ? n : 1));
  if (!ops) return PyErr_NoMemory();
  n = TF_OperationGetControlInputs(op, ops, n);
  PyObject *l = op_list(ops, n);
  free(ops);
  return l;
}

/* op_consumers(op, index) -> [consumer op, ...] */
static PyObject *op_consumers(PyObject *self, PyObject *args) {
  PyObject *o;
  int index;
  if (!PyArg_ParseTuple(args, "Oi", &o, &index)) return NULL;
  OP_ARG(o, op);
  if (index < 0 || index >= TF_OperationNumOutputs(op)) return PyErr_Format(PyExc_IndexError, "output %d out of range", index);
  TF_Output out = {op, index};
  int n = TF_OperationOutputNumConsumers(out);
  TF_Input *ins = malloc(sizeof *ins * (n ? n : 1));
  if (!ins) return PyErr_NoMemory();
  n = TF_OperationOutputConsumers(out, ins, n);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *h = op_handle(ins[i].oper);
    if (!h) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, h);
  }
  free(ins);
  return l;
}

/* What a call that filled b with status s gave: the buffer's bytes, or NULL with the status
 * raised. Deletes b and s. */
static PyObject *buffer_result(TF_Buffer *b, TF_Status *s) {
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  PyObject *r = bad ? NULL : PyBytes_FromStringAndSize(b->data, (Py_ssize_t)b->length);
  TF_DeleteBuffer(b);
  return r;
}

/* op_attr(op, name) -> serialized AttrValue bytes */
static PyObject *op_attr(PyObject *self, PyObject *args) {
  PyObject *o;
  const char *name;
  if (!PyArg_ParseTuple(args, "Os", &o, &name)) return NULL;
  OP_ARG(o, op);
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_OperationGetAttrValueProto(op, name, b, s);
  return buffer_result(b, s);
}

static PyObject *op_node_def(PyObject *self, PyObject *a) {
  OP_ARG(a, op);
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_OperationToNodeDef(op, b, s);
  return buffer_result(b, s);
}

/* tensor_shape(graph, op, index) -> None (unknown rank) or [int or None, ...] */
static PyObject *tensor_shape(PyObject *self, PyObject *args) {
  PyObject *g, *o;
  int index;
  if (!PyArg_ParseTuple(args, "OOi", &g, &o, &index)) return NULL;
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  OP_ARG(o, op);
  TF_Status *s = TF_NewStatus();
  TF_Output out = {op, index};
  int n = TF_GraphGetTensorNumDims(graph, out, s);
  int64_t dims[64];
  if (TF_GetCode(s) == TF_OK && n > 64) n = -1;
  if (TF_GetCode(s) == TF_OK && n > 0) TF_GraphGetTensorShape(graph, out, dims, n, s);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  if (n < 0) Py_RETURN_NONE;
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *d;
    if (dims[i] < 0) {
      Py_INCREF(Py_None);
      d = Py_None;
    } else if (!(d = PyLong_FromLongLong(dims[i]))) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, d);
  }
  return l;
}

/* set_tensor_shape(graph, op, index, dims or None) */
static PyObject *set_tensor_shape(PyObject *self, PyObject *args) {
  PyObject *g, *o, *v;
  int index, n, err;
  if (!PyArg_ParseTuple(args, "OOiO", &g, &o, &index, &v)) return NULL;
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  OP_ARG(o, op);
  int64_t *dims = read_dims(v, &n, &err);
  if (err) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_GraphSetTensorShape(graph, (TF_Output){op, index}, dims, n, s);
  free(dims);
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

static PyObject *graph_to_graph_def(PyObject *self, PyObject *g) {
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_GraphToGraphDef(graph, b, s);
  return buffer_result(b, s);
}

/* Adds import_graph_def's options to o from the options tuple (uniquify_names, input_map,
 * control_map, return_outputs, return_ops): input_map a sequence of (src name, src index, dst
 * op handle, dst index), control_map of (src name, dst op handle), return_outputs of (name,
 * index), return_ops of names. Returns 0, or -1 with a Python TypeError set. */
static int import_options(TF_ImportGraphDefOptions *o, PyObject *options) {
  int uniquify;
  PyObject *in_map, *ctl_map, *ret_out, *ret_ops;
  if (!PyArg_ParseTuple(options, "pOOOO", &uniquify, &in_map, &ctl_map, &ret_out, &ret_ops)) return -1;
  TF_ImportGraphDefOptionsSetUniquifyNames(o, (unsigned char)uniquify);
  PyObject *seqs[4] = {in_map, ctl_map, ret_out, ret_ops};
  for (int k = 0; k < 4; k++) {
    PyObject *f = PySequence_Fast(seqs[k], "import options must be sequences");
    if (!f) return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f); i++) {
      PyObject *it = PySequence_Fast_GET_ITEM(f, i);
      const char *name;
      int idx, didx;
      PyObject *dst;
      int ok = 1;
      if (k == 0 && (ok = PyArg_ParseTuple(it, "siOi", &name, &idx, &dst, &didx))) {
        TF_Operation *op = PyLong_AsVoidPtr(dst);
        if (!op) ok = 0;
        else TF_ImportGraphDefOptionsAddInputMapping(o, name, idx, (TF_Output){op, didx});
      } else if (k == 1 && (ok = PyArg_ParseTuple(it, "sO", &name, &dst))) {
        TF_Operation *op = PyLong_AsVoidPtr(dst);
        if (!op) ok = 0;
        else TF_ImportGraphDefOptionsRemapControlDependency(o, name, op);
      } else if (k == 2 && (ok = PyArg_ParseTuple(it, "si", &name, &idx))) {
        TF_ImportGraphDefOptionsAddReturnOutput(o, name, idx);
      } else if (k == 3) {
        name = PyUnicode_AsUTF8(it);
        if (!name) ok = 0;
        else TF_ImportGraphDefOptionsAddReturnOperation(o, name);
      }
      if (!ok) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "bad import option");
        Py_DECREF(f);
        return -1;
      }
    }
    Py_DECREF(f);
  }
  return 0;
}

/* The (return outputs [(op, index)], return ops [op], missing unused input keys ["x:0", "^y"])
 * of an import; NULL with a Python error on failure. */
static PyObject *import_results(TF_ImportGraphDefResults *r) {
  int n_out, n_ops, n_miss;
  TF_Output *outs;
  TF_Operation **ops;
  const char **names;
  int *idx;
  TF_ImportGraphDefResultsReturnOutputs(r, &n_out, &outs);
  TF_ImportGraphDefResultsReturnOperations(r, &n_ops, &ops);
  TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n_miss, &names, &idx);
  PyObject *lo = PyList_New(n_out), *lp = PyList_New(n_ops), *lm = PyList_New(n_miss);
  if (!lo || !lp || !lm) goto fail;
  for (int i = 0; i < n_out; i++) {
    PyObject *t = Py_BuildValue("(Ni)", op_handle(outs[i].oper), outs[i].index);
    if (!t) goto fail;
    PyList_SET_ITEM(lo, i, t);
  }
  for (int i = 0; i < n_ops; i++) {
    PyObject *h = op_handle(ops[i]);
    if (!h) goto fail;
    PyList_SET_ITEM(lp, i, h);
  }
  for (int i = 0; i < n_miss; i++) {
    PyObject *m = idx[i] == -1 ? PyUnicode_FromFormat("^%s", names[i])
                               : PyUnicode_FromFormat("%s:%d", names[i], idx[i]);
    if (!m) goto fail;
    PyList_SET_ITEM(lm, i, m);
  }
  return Py_BuildValue("(NNN)", lo, lp, lm);
fail:
  Py_XDECREF(lo);
  Py_XDECREF(lp);
  Py_XDECREF(lm);
  return NULL;
}

/* graph_import(graph, graph_def bytes, prefix[, options]): without options, the list of the
 * new ops in the graph's order; with the options tuple of import_options (tf.import_graph_def),
 * import_results' tuple (the caller wraps the new ops itself). Errors: the import's status as
 * the exception of its code; bad options TypeError. */
static PyObject *graph_import(PyObject *self, PyObject *args) {
  PyObject *g, *options = Py_None;
  const char *data, *prefix;
  Py_ssize_t len;
  if (!PyArg_ParseTuple(args, "Oy#s|O", &g, &data, &len, &prefix, &options)) return NULL;
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  size_t pos = 0, before = 0;
  TF_Operation *op;
  while ((op = TF_GraphNextOperation(graph, &pos))) before++;
  TF_ImportGraphDefOptions *opts = TF_NewImportGraphDefOptions();
  if (prefix[0]) TF_ImportGraphDefOptionsSetPrefix(opts, prefix);
  if (options != Py_None && import_options(opts, options) < 0) {
    TF_DeleteImportGraphDefOptions(opts);
    return NULL;
  }
  TF_Buffer *b = TF_NewBufferFromString(data, (size_t)len);
  TF_Status *s = TF_NewStatus();
  TF_ImportGraphDefResults *r = TF_GraphImportGraphDefWithResults(graph, b, opts, s);
  TF_DeleteImportGraphDefOptions(opts);
  TF_DeleteBuffer(b);
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) {
    TF_DeleteImportGraphDefResults(r);
    return NULL;
  }
  if (options != Py_None) {
    PyObject *res = import_results(r);
    TF_DeleteImportGraphDefResults(r);
    return res;
  }
  TF_DeleteImportGraphDefResults(r);
  PyObject *l = PyList_New(0);
  pos = 0;
  for (size_t i = 0; l && (op = TF_GraphNextOperation(graph, &pos)); i++) {
    if (i < before) continue;
    PyObject *h = op_handle(op);
    if (!h || PyList_Append(l, h) < 0) Py_CLEAR(l);
    Py_XDECREF(h);
  }
  return l;
}

/* graph_versions(graph) -> serialized VersionDef (TF_GraphVersions). */
static PyObject *graph_versions(PyObject *self, PyObject *g) {
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_GraphVersions(graph, b, s);
  return buffer_result(b, s);
}

/* unique_name(graph, full_name, mark_as_used) -> str: TFC_GraphUniqueName, the one table of
 * names in use that the C builders share. */
static PyObject *unique_name(PyObject *self, PyObject *args) {
  PyObject *g;
  const char *name;
  int mark;
  if (!PyArg_ParseTuple(args, "Osp", &g, &name, &mark)) return NULL;
  TF_Graph *graph = graph_arg(g);
  if (!graph) return NULL;
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_GraphUniqueName(graph, name, (unsigned char)mark, b, s);
  PyObject *r = pywrap_raise_status(s) ? NULL : PyUnicode_FromStringAndSize(b->data, (Py_ssize_t)b->length);
  TF_DeleteStatus(s);
  TF_DeleteBuffer(b);
  return r;
}

/* merge_device(outer, inner) -> str: TFC_MergeDeviceSpec (nested tf.device strings). */
static PyObject *merge_device(PyObject *self, PyObject *args) {
  const char *outer, *inner;
  if (!PyArg_ParseTuple(args, "ss", &outer, &inner)) return NULL;
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_MergeDeviceSpec(outer, inner, b, s);
  PyObject *r = pywrap_raise_status(s) ? NULL : PyUnicode_FromStringAndSize(b->data, (Py_ssize_t)b->length);
  TF_DeleteStatus(s);
  TF_DeleteBuffer(b);
  return r;
}

PyMethodDef pywrap_graph_methods[] = {
    {"merge_device", merge_device, METH_VARARGS, "inner merged onto outer, canonical."},
    {"unique_name", unique_name, METH_VARARGS, "A unique name from the graph's names in use."},
    {"finish_op", finish_op, METH_VARARGS, "Builds one op; returns its handle."},
    {"op_name", op_name, METH_O, NULL},
    {"op_type", op_type, METH_O, NULL},
    {"op_device", op_device, METH_O, NULL},
    {"op_outputs", op_outputs, METH_O, "Output dtypes."},
    {"op_inputs", op_inputs, METH_O, "Inputs as (op, index) pairs."},
    {"op_control_inputs", op_control_inputs, METH_O, NULL},
    {"op_consumers", op_consumers, METH_VARARGS, NULL},
    {"op_attr", op_attr, METH_VARARGS, "Serialized AttrValue."},
    {"op_node_def", op_node_def, METH_O, "Serialized NodeDef."},
    {"tensor_shape", tensor_shape, METH_VARARGS, NULL},
    {"set_tensor_shape", set_tensor_shape, METH_VARARGS, NULL},
    {"graph_to_graph_def", graph_to_graph_def, METH_O, "Serialized GraphDef."},
    {"graph_import", graph_import, METH_VARARGS, "Imports a serialized GraphDef."},
    {"graph_versions", graph_versions, METH_O, "Serialized VersionDef."},
    {NULL, NULL, 0, NULL}};
