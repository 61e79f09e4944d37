/*
 * device_setter.c — _pywrap.ReplicaDeviceSetter, a TFC_ReplicaDeviceSetter
 * (include/tfc/device_setter.h) for tf.train.replica_device_setter and
 * tf.contrib.training.GreedyLoadBalancingStrategy (python/tfc/training/device_setter.py).
 *
 * Python places an op before it exists (Graph._device_for calls device functions with a
 * _PendingOp), so device(op) hands the setter the op's type, name and requested device and no
 * TF_Operation. A Python strategy or load function (use_strategy / use_greedy) is reached
 * through a C trampoline that calls it with that same op object: device() keeps it in the
 * setter object for the length of the call. An exception raised there stops the C call (the
 * trampoline reports an error status) and is re-raised as it is.
 */
#include "pywrap.h"
#include "tfc/device_setter.h"

typedef struct {
  PyObject_HEAD
  TFC_ReplicaDeviceSetter *setter;
  PyObject *strategy; /* use_strategy's callable, or NULL */
  PyObject *load_fn;  /* use_greedy's callable, or NULL (the byte size, which needs the op) */
  PyObject *current;  /* the op being placed (borrowed, during device()/choose_task()) */
} PyTFReplicaDeviceSetter;

static void rds_dealloc(PyTFReplicaDeviceSetter *o) {
  TFC_DeleteReplicaDeviceSetter(o->setter);
  Py_XDECREF(o->strategy);
  Py_XDECREF(o->load_fn);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

/* A trampoline's Python error: the exception stays set; the status only stops the C call. */
static void py_failed(TF_Status *status) { TF_SetStatus(status, TF_UNKNOWN, "Python exception"); }

static int strategy_tramp(void *ctx, const char *op_type, const char *op_name, TF_Operation *op, TF_Status *status) {
  (void)op_type, (void)op_name, (void)op;
  PyTFReplicaDeviceSetter *o = ctx;
  PyObject *r = PyObject_CallFunctionObjArgs(o->strategy, o->current ? o->current : Py_None, NULL);
  long task = -1;
  if (r) {
    PyObject *i = PyNumber_Index(r);
    if (i) task = PyLong_AsLong(i);
    Py_XDECREF(i);
    Py_DECREF(r);
  }
  if (PyErr_Occurred()) {
    py_failed(status);
    return 0;
  }
  if (task > INT32_MAX) task = INT32_MAX;
  return (int)task;
}

static double load_tramp(void *ctx, const char *op_type, const char *op_name, TF_Operation *op, TF_Status *status) {
  (void)op_type, (void)op_name, (void)op;
  PyTFReplicaDeviceSetter *o = ctx;
  PyObject *r = PyObject_CallFunctionObjArgs(o->load_fn, o->current ? o->current : Py_None, NULL);
  double load = r ? PyFloat_AsDouble(r) : 0;
  Py_XDECREF(r);
  if (PyErr_Occurred()) py_failed(status);
  return load;
}

/* The op-like object's type, name and device (strings; device may be None). */
static int op_fields(PyObject *op, PyObject **type, PyObject **name, PyObject **device) {
  *type = PyObject_GetAttrString(op, "type");
  *name = *type ? PyObject_GetAttrString(op, "name") : NULL;
  *device = *name ? PyObject_GetAttrString(op, "device") : NULL;
  if (*device && (!PyUnicode_Check(*type) || !PyUnicode_Check(*name) ||
                  (*device != Py_None && !PyUnicode_Check(*device)))) {
    PyErr_SetString(PyExc_TypeError, "a device function takes an op with string type, name and device");
  }
  if (PyErr_Occurred()) {
    Py_XDECREF(*type), Py_XDECREF(*name), Py_XDECREF(*device);
    return -1;
  }
  return 0;
}

/* device(op) -> the device string for op (an Operation or the graph's pending op). */
static PyObject *rds_device(PyTFReplicaDeviceSetter *o, PyObject *op) {
  PyObject *type, *name, *dev;
  if (op_fields(op, &type, &name, &dev) < 0) return NULL;
  const char *d = dev == Py_None ? "" : PyUnicode_AsUTF8(dev);
  const char *t = PyUnicode_AsUTF8(type), *n = PyUnicode_AsUTF8(name);
  PyObject *r = NULL;
  if (d && t && n) {
    TF_Status *s = TF_NewStatus();
    o->current = op;
    TF_Buffer *b = TFC_ReplicaDeviceSetterFunction(o->setter, t, n, d, NULL, s);
    o->current = NULL;
    if (!PyErr_Occurred() && !pywrap_raise_status(s))
      r = PyUnicode_FromStringAndSize(b && b->data ? b->data : "", b ? (Py_ssize_t)b->length : 0);
    TF_DeleteBuffer(b);
    TF_DeleteStatus(s);
  }
  Py_DECREF(type), Py_DECREF(name), Py_DECREF(dev);
  return r;
}

/* choose_task(op) -> the strategy's task for op. */
static PyObject *rds_choose_task(PyTFReplicaDeviceSetter *o, PyObject *op) {
  PyObject *type, *name, *dev;
  if (op_fields(op, &type, &name, &dev) < 0) return NULL;
  const char *t = PyUnicode_AsUTF8(type), *n = PyUnicode_AsUTF8(name);
  PyObject *r = NULL;
  if (t && n) {
    TF_Status *s = TF_NewStatus();
    o->current = op;
    int task = TFC_ReplicaDeviceSetterChooseTask(o->setter, t, n, NULL, s);
    o->current = NULL;
    if (!PyErr_Occurred() && !pywrap_raise_status(s)) r = PyLong_FromLong(task);
    TF_DeleteStatus(s);
  }
  Py_DECREF(type), Py_DECREF(name), Py_DECREF(dev);
  return r;
}

/* use_greedy(num_tasks, load_fn or None) */
static PyObject *rds_use_greedy(PyTFReplicaDeviceSetter *o, PyObject *args) {
  int n;
  PyObject *fn;
  if (!PyArg_ParseTuple(args, "iO", &n, &fn)) return NULL;
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "load_fn must be callable");
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetterUseGreedyStrategy(o->setter, n, fn == Py_None ? NULL : load_tramp, o, s);
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  Py_XDECREF(o->strategy);
  o->strategy = NULL;
  Py_XSETREF(o->load_fn, fn == Py_None ? NULL : (Py_INCREF(fn), fn));
  Py_RETURN_NONE;
}

/* use_strategy(fn) */
static PyObject *rds_use_strategy(PyTFReplicaDeviceSetter *o, PyObject *fn) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "ps_strategy must be callable");
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetterUseStrategy(o->setter, strategy_tramp, o, s);
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  Py_INCREF(fn);
  Py_XSETREF(o->strategy, fn);
  Py_XDECREF(o->load_fn);
  o->load_fn = NULL;
  Py_RETURN_NONE;
}

static PyObject *rds_ps_tasks(PyTFReplicaDeviceSetter *o, void *unused) {
  (void)unused;
  return PyLong_FromLong(TFC_ReplicaDeviceSetterPsTasks(o->setter));
}

static PyMethodDef rds_methods[] = {
    {"device", (PyCFunction)rds_device, METH_O, "The device for an op (TFC_ReplicaDeviceSetterFunction)."},
    {"choose_task", (PyCFunction)rds_choose_task, METH_O, "The strategy's ps task for an op."},
    {"use_greedy", (PyCFunction)rds_use_greedy, METH_VARARGS, "TFC_ReplicaDeviceSetterUseGreedyStrategy."},
    {"use_strategy", (PyCFunction)rds_use_strategy, METH_O, "TFC_ReplicaDeviceSetterUseStrategy."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef rds_getset[] = {{"ps_tasks", (getter)rds_ps_tasks, NULL, "The number of ps tasks.", NULL},
                                   {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject PyTFReplicaDeviceSetter_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.ReplicaDeviceSetter",
    .tp_basicsize = sizeof(PyTFReplicaDeviceSetter),
    .tp_dealloc = (destructor)rds_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = rds_methods,
    .tp_getset = rds_getset,
    .tp_doc = "A TFC_ReplicaDeviceSetter (made by replica_device_setter()).",
};

/* replica_device_setter(ps_tasks, ps_device, worker_device, merge_devices, cluster_def bytes or
 * None, ps_ops list or None) -> ReplicaDeviceSetter, or None when there are no ps tasks. */
static PyObject *replica_device_setter(PyObject *self, PyObject *args) {
  (void)self;
  int ps_tasks, merge;
  const char *ps_device, *worker_device;
  PyObject *cd, *ops;
  if (!PyArg_ParseTuple(args, "izzpOO", &ps_tasks, &ps_device, &worker_device, &merge, &cd, &ops)) return NULL;
  if (cd != Py_None && !PyBytes_Check(cd)) {
    PyErr_SetString(PyExc_TypeError, "cluster_def must be bytes");
    return NULL;
  }
  const char **names = NULL;
  Py_ssize_t n = 0;
  PyObject *seq = NULL;
  if (ops != Py_None) {
    if (!(seq = PySequence_Fast(ops, "ps_ops must be a list of op type names"))) return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    names = calloc((size_t)n + 1, sizeof *names);
    if (!names) {
      Py_DECREF(seq);
      return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
      if (!PyUnicode_Check(it) || !(names[i] = PyUnicode_AsUTF8(it))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "ps_ops must be a list of op type names");
        free(names);
        Py_DECREF(seq);
        return NULL;
      }
    }
  }
  TF_Buffer buf = {NULL, 0, NULL}, *bufp = NULL;
  if (cd != Py_None) {
    buf.data = PyBytes_AS_STRING(cd);
    buf.length = (size_t)PyBytes_GET_SIZE(cd);
    bufp = &buf;
  }
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = TFC_NewReplicaDeviceSetter(ps_tasks, ps_device, worker_device, (unsigned char)merge,
                                                          bufp, NULL, names, (int)n, s);
  free(names);
  Py_XDECREF(seq);
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  if (!r) Py_RETURN_NONE;
  PyTFReplicaDeviceSetter *o = PyObject_New(PyTFReplicaDeviceSetter, &PyTFReplicaDeviceSetter_Type);
  if (!o) {
    TFC_DeleteReplicaDeviceSetter(r);
    return NULL;
  }
  o->setter = r;
  o->strategy = o->load_fn = o->current = NULL;
  return (PyObject *)o;
}

PyMethodDef pywrap_device_setter_methods[] = {
    {"replica_device_setter", replica_device_setter, METH_VARARGS, "TFC_NewReplicaDeviceSetter."},
    {NULL, NULL, 0, NULL}};
