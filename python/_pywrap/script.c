/* tfc._pywrap script callback: runs the Python functions of PyFunc / PyFuncStateless.
 *
 * set_script_dispatcher(fn) keeps fn and installs py_script_callback as the process's script
 * callback (TFC_SetScriptCallback). The callback runs on the session's threads while the
 * calling thread waits in TF_SessionRun with the GIL released: it takes the GIL, converts the
 * inputs to numpy (copies: the runtime keeps its tensors), calls
 * fn(token, [arrays], [output dtype enums]) and reads its result:
 *   - a list of (array, dtype enum) pairs, one per output, each made a TF_Tensor of that
 *     dtype (the kernel checks it against Tout), or
 *   - a (code, message) pair: the status to fail the run with (tfc/ops/script_ops.py maps the
 *     Python exception to TF's code and formats TF's message).
 * Anything else, or an exception escaping fn, fails the run with UNKNOWN and the exception's
 * text; the interpreter is never left with a pending exception.
 */
#include "pywrap.h"
#include "tfc/tfc.h"

static PyObject *dispatcher; /* owned; set once per import of the package */

static void fail_from_exception(TF_Status *status) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject *s = value ? PyObject_Str(value) : NULL;
  const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
  if (!msg) PyErr_Clear();
  TF_SetStatus(status, TF_UNKNOWN, msg ? msg : "script callback failed");
  Py_XDECREF(s);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
}

static int fill_outputs(PyObject *r, TF_Tensor **outputs, int noutputs, TF_Status *status) {
  if (PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2 && PyLong_Check(PyTuple_GET_ITEM(r, 0))) {
    long code = PyLong_AsLong(PyTuple_GET_ITEM(r, 0));
    PyObject *m = PyTuple_GET_ITEM(r, 1);
    const char *msg = PyUnicode_Check(m) ? PyUnicode_AsUTF8(m) : NULL;
    if (!msg) PyErr_Clear();
    TF_SetStatus(status, code > 0 && code < 17 ? (TF_Code)code : TF_UNKNOWN, msg ? msg : "");
    return -1;
  }
  if (!PyList_Check(r) || PyList_GET_SIZE(r) != noutputs) {
    TF_SetStatus(status, TF_INTERNAL, "the script dispatcher returned a malformed result");
    return -1;
  }
  for (int i = 0; i < noutputs; i++) {
    PyObject *pair = PyList_GET_ITEM(r, i);
    long dt;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || (dt = PyLong_AsLong(PyTuple_GET_ITEM(pair, 1))) < 0) {
      PyErr_Clear();
      TF_SetStatus(status, TF_INTERNAL, "the script dispatcher returned a malformed result");
      return -1;
    }
    outputs[i] = pywrap_tensor_from_ndarray(PyTuple_GET_ITEM(pair, 0), (TF_DataType)dt);
    if (!outputs[i]) {
      fail_from_exception(status);
      return -1;
    }
  }
  return 0;
}

static void py_script_callback(void *ctx, const char *token, TF_Tensor *const *inputs, int ninputs,
                               const TF_DataType *output_types, TF_Tensor **outputs, int noutputs,
                               TF_Status *status) {
  (void)ctx;
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *args = PyList_New(ninputs), *types = PyList_New(noutputs), *r = NULL;
  int i = 0;
  if (!args || !types) goto error;
  for (; i < ninputs; i++) {
    PyObject *a = pywrap_ndarray_from_tensor(inputs[i]); /* takes the tensor */
    if (!a) {
      i++;
      goto error;
    }
    PyList_SET_ITEM(args, i, a);
  }
  for (int k = 0; k < noutputs; k++) {
    PyObject *t = PyLong_FromLong((long)output_types[k]);
    if (!t) goto error;
    PyList_SET_ITEM(types, k, t);
  }
  if (!dispatcher) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION, "no Python dispatcher for script ops");
    goto done;
  }
  r = PyObject_CallFunction(dispatcher, "sOO", token, args, types);
  if (!r) goto error;
  fill_outputs(r, outputs, noutputs, status);
  goto done;
error:
  for (; i < ninputs; i++) TF_DeleteTensor(inputs[i]);
  fail_from_exception(status);
done:
  Py_XDECREF(r);
  Py_XDECREF(args);
  Py_XDECREF(types);
  pywrap_drain_released();
  PyGILState_Release(g);
}

static PyObject *set_script_dispatcher(PyObject *self, PyObject *fn) {
  (void)self;
  if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "the script dispatcher must be callable");
  Py_INCREF(fn);
  Py_XSETREF(dispatcher, fn);
  TFC_SetScriptCallback(py_script_callback, NULL);
  Py_RETURN_NONE;
}

PyMethodDef pywrap_script_methods[] = {
    {"set_script_dispatcher", set_script_dispatcher, METH_O,
     "fn(token, arrays, dtype_enums) runs PyFunc / PyFuncStateless (see python/_pywrap/script.c)."},
    {NULL, NULL, 0, NULL}};
