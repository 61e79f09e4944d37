/* tfc._pywrap module: initialisation and the status -> exception mapping.
 *
 * tfc.errors registers its OpError subclasses by code (set_error_classes); until then, and for a
 * code with no class, a status raises RuntimeError("<CODE>: message"). The functions of the
 * other files are gathered into one method table here. See pywrap.h for the design. */
#define TFC_PYWRAP_MAIN
#include "pywrap.h"

static PyObject *error_classes; /* dict: int code -> exception class (owned) */

PyObject *pywrap_raise_code(int code, const char *msg) {
  PyObject *cls = NULL;
  if (error_classes) {
    PyObject *key = PyLong_FromLong(code);
    if (!key) return NULL;
    cls = PyDict_GetItemWithError(error_classes, key);
    Py_DECREF(key);
    if (!cls && PyErr_Occurred()) return NULL;
    if (!cls) {
      key = PyLong_FromLong(2); /* an unknown code is Unknown */
      if (!key) return NULL;
      cls = PyDict_GetItemWithError(error_classes, key);
      Py_DECREF(key);
    }
  }
  if (!cls) {
    PyErr_Format(PyExc_RuntimeError, "error code %d: %s", code, msg);
    return NULL;
  }
  PyObject *exc = PyObject_CallFunction(cls, "OOs", Py_None, Py_None, msg);
  if (exc) {
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
  }
  return NULL;
}

int pywrap_raise_status(TF_Status *s) {
  if (TF_GetCode(s) == TF_OK) return 0;
  /* A Python callback the call ran (a device function) failed: its exception is the error. */
  if (!PyErr_Occurred()) pywrap_raise_code((int)TF_GetCode(s), TF_Message(s));
  return 1;
}

static PyObject *set_error_classes(PyObject *self, PyObject *arg) {
  if (!PyDict_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "set_error_classes takes a dict");
    return NULL;
  }
  Py_INCREF(arg);
  Py_XSETREF(error_classes, arg);
  Py_RETURN_NONE;
}

static PyObject *version(PyObject *self, PyObject *unused) { return PyUnicode_FromString(TF_Version()); }

static PyMethodDef module_methods[] = {
    {"set_error_classes", set_error_classes, METH_O, "Registers {code: OpError subclass}."},
    {"version", version, METH_NOARGS, "TF_Version()."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_pywrap", "tfc's C API binding", -1,
                                       NULL, NULL, NULL, NULL, NULL};

static int add_methods(PyObject *m, PyMethodDef *defs) {
  for (PyMethodDef *d = defs; d->ml_name; d++) {
    PyObject *f = PyCFunction_NewEx(d, NULL, NULL);
    if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) {
      Py_XDECREF(f);
      return -1;
    }
  }
  return 0;
}

PyMODINIT_FUNC PyInit__pywrap(void) {
  import_array();
  PyObject *m = PyModule_Create(&moduledef);
  if (!m) return NULL;
  PyTypeObject *types[] = {&PyTFGraph_Type, &PyTFSession_Type, &PyTFRunner_Type, &PyTFTensorOwner_Type,
                           &PyTFScope_Type, &PyTFOptimizer_Type, &PyTFHandle_Type, &PyTFSaver_Type,
                           &PyTFReader_Type, &PyTFReplicaDeviceSetter_Type, &PyTFSyncReplicas_Type};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    if (PyType_Ready(types[i]) < 0) goto fail;
    const char *dot = strrchr(types[i]->tp_name, '.');
    Py_INCREF(types[i]);
    if (PyModule_AddObject(m, dot ? dot + 1 : types[i]->tp_name, (PyObject *)types[i]) < 0) {
      Py_DECREF(types[i]);
      goto fail;
    }
  }
  if (pywrap_interrupt_init() || add_methods(m, module_methods) || add_methods(m, pywrap_graph_methods) ||
      add_methods(m, pywrap_oplist_methods) || add_methods(m, pywrap_ndarray_methods) ||
      add_methods(m, pywrap_train_methods) || add_methods(m, pywrap_io_methods) || add_methods(m, pywrap_cf_methods) ||
      add_methods(m, pywrap_saver_methods) || add_methods(m, pywrap_script_methods) ||
      add_methods(m, pywrap_device_setter_methods) || add_methods(m, pywrap_monitored_methods))
    goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
