/* tfc._pywrap ndarray <-> TF_Tensor conversions.
 *
 * To the runtime: a numeric array already of the tensor's numpy type, C-contiguous and aligned
 * for the runtime (TF_NewTensor copies misaligned memory at once) is lent: TF_NewTensor gets its
 * data and a deallocator that releases the array. The runtime may free a tensor on any thread;
 * when that thread does not hold the GIL the array is queued and released at the next call that
 * holds it (pywrap_drain_released). Small arrays are copied, which is cheaper than the
 * bookkeeping. Strings (numpy bytes/str/object arrays) are encoded in TF 1.x's layout (offset
 * table, then varint-length strings).
 *
 * From the runtime: rank 0 becomes a numpy scalar (as PyArray_Return would give); a tensor whose
 * buffer the runtime gives up (TF_TensorMaybeMove) is wrapped without a copy, the ndarray's base
 * being a TensorOwner that deletes the TF_Tensor; anything else is copied. String tensors give
 * object arrays of bytes (a bytes object for rank 0). */
#include <pthread.h>

#include "pywrap.h"

enum { TFC_PY_ALIGN = 64, LEND_MIN_BYTES = 4096 };

int pywrap_npy_type(TF_DataType dt) {
  switch (dt) {
    case TF_FLOAT: return NPY_FLOAT32;
    case TF_DOUBLE: return NPY_FLOAT64;
    case TF_INT32: case TF_QINT32: return NPY_INT32;
    case TF_UINT8: case TF_QUINT8: return NPY_UINT8;
    case TF_INT16: case TF_QINT16: return NPY_INT16;
    case TF_INT8: case TF_QINT8: return NPY_INT8;
    case TF_STRING: return NPY_OBJECT;
    case TF_COMPLEX64: return NPY_COMPLEX64;
    case TF_INT64: return NPY_INT64;
    case TF_BOOL: return NPY_BOOL;
    case TF_UINT16: case TF_QUINT16: case TF_BFLOAT16: return NPY_UINT16;
    case TF_COMPLEX128: return NPY_COMPLEX128;
    case TF_HALF: return NPY_FLOAT16;
    case TF_UINT32: return NPY_UINT32;
    case TF_UINT64: return NPY_UINT64;
    default: return -1;
  }
}

/* ---- arrays lent to the runtime ---- */

static pthread_mutex_t released_mu = PTHREAD_MUTEX_INITIALIZER;
static PyObject **released;
static size_t n_released, cap_released;

static void release_array(void *data, size_t len, void *arg) {
  if (PyGILState_Check()) {
    Py_DECREF((PyObject *)arg);
    return;
  }
  pthread_mutex_lock(&released_mu);
  if (n_released == cap_released) {
    size_t cap = cap_released ? 2 * cap_released : 16;
    PyObject **p = realloc(released, cap * sizeof *p);
    if (p) {
      released = p;
      cap_released = cap;
    }
  }
  if (n_released < cap_released) released[n_released++] = arg; /* else leaked, never freed early */
  pthread_mutex_unlock(&released_mu);
}

void pywrap_drain_released(void) {
  if (!n_released) return; /* a racy peek; a late entry waits for the next call */
  pthread_mutex_lock(&released_mu);
  PyObject **items = released;
  size_t n = n_released;
  released = NULL;
  n_released = cap_released = 0;
  pthread_mutex_unlock(&released_mu);
  for (size_t i = 0; i < n; i++) Py_DECREF(items[i]);
  free(items);
}

static TF_Tensor *string_tensor(PyArrayObject *arr) {
  npy_intp n = PyArray_SIZE(arr);
  int nd = PyArray_NDIM(arr);
  int64_t dims[NPY_MAXDIMS];
  for (int i = 0; i < nd; i++) dims[i] = PyArray_DIM(arr, i);
  PyObject **items = (PyObject **)PyArray_DATA(arr);
  PyObject **enc = calloc(n ? n : 1, sizeof *enc);
  if (!enc) {
    PyErr_NoMemory();
    return NULL;
  }
  size_t total = (size_t)n * 8;
  TF_Tensor *t = NULL;
  for (npy_intp i = 0; i < n; i++) {
    PyObject *o = items[i];
    if (PyBytes_Check(o)) {
      Py_INCREF(o);
      enc[i] = o;
    } else if (PyUnicode_Check(o)) {
      enc[i] = PyUnicode_AsUTF8String(o);
      if (!enc[i]) goto out;
    } else {
      PyErr_Format(PyExc_TypeError, "Expected string, got %R of type '%s' instead.", o, Py_TYPE(o)->tp_name);
      goto out;
    }
    total += TF_StringEncodedSize((size_t)PyBytes_GET_SIZE(enc[i]));
  }
  t = TF_AllocateTensor(TF_STRING, dims, nd, total);
  if (!t) {
    PyErr_NoMemory();
    goto out;
  }
  {
    char *base = TF_TensorData(t);
    char *dst = base + (size_t)n * 8;
    size_t left = total - (size_t)n * 8;
    TF_Status *s = TF_NewStatus();
    for (npy_intp i = 0; i < n; i++) {
      uint64_t off = (uint64_t)(dst - (base + (size_t)n * 8));
      memcpy(base + 8 * i, &off, 8);
      size_t w = TF_StringEncode(PyBytes_AS_STRING(enc[i]), (size_t)PyBytes_GET_SIZE(enc[i]), dst, left, s);
      if (pywrap_raise_status(s)) {
        TF_DeleteTensor(t);
        t = NULL;
        break;
      }
      dst += w;
      left -= w;
    }
    TF_DeleteStatus(s);
  }
out:
  for (npy_intp i = 0; i < n; i++) Py_XDECREF(enc[i]);
  free(enc);
  return t;
}

TF_Tensor *pywrap_tensor_from_ndarray(PyObject *value, TF_DataType dt) {
  int npy = pywrap_npy_type(dt);
  if (npy < 0) {
    PyErr_Format(PyExc_TypeError, "cannot make a tensor of TF dtype %d from Python", (int)dt);
    return NULL;
  }
  PyArray_Descr *descr = PyArray_DescrFromType(npy); /* stolen by FromAny */
  PyArrayObject *arr = (PyArrayObject *)PyArray_FromAny(
      value, descr, 0, 0, NPY_ARRAY_CARRAY_RO | (npy == NPY_OBJECT ? 0 : NPY_ARRAY_FORCECAST), NULL);
  if (!arr) return NULL;
  TF_Tensor *t;
  if (dt == TF_STRING) {
    t = string_tensor(arr);
    Py_DECREF(arr);
    return t;
  }
  int nd = PyArray_NDIM(arr);
  int64_t dims[NPY_MAXDIMS];
  for (int i = 0; i < nd; i++) dims[i] = PyArray_DIM(arr, i);
  size_t nbytes = (size_t)PyArray_NBYTES(arr);
  void *data = PyArray_DATA(arr);
  if (nbytes >= LEND_MIN_BYTES && ((uintptr_t)data % TFC_PY_ALIGN) == 0) {
    /* release_array drops the reference we hold, whether the tensor is made or not */
    t = TF_NewTensor(dt, dims, nd, data, nbytes, release_array, arr);
    if (!t) PyErr_SetString(PyExc_MemoryError, "TF_NewTensor failed");
    return t;
  }
  t = TF_AllocateTensor(dt, dims, nd, nbytes);
  if (!t) {
    Py_DECREF(arr);
    PyErr_NoMemory();
    return NULL;
  }
  if (nbytes) memcpy(TF_TensorData(t), data, nbytes);
  Py_DECREF(arr);
  return t;
}

/* ---- tensors handed to numpy ---- */

typedef struct {
  PyObject_HEAD
  TF_Tensor *t;
} TensorOwner;

static void owner_dealloc(TensorOwner *o) {
  TF_DeleteTensor(o->t);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

PyTypeObject PyTFTensorOwner_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.TensorOwner",
    .tp_basicsize = sizeof(TensorOwner),
    .tp_dealloc = (destructor)owner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Keeps a TF_Tensor alive under the ndarray that wraps its memory.",
};

static PyObject *strings_to_numpy(TF_Tensor *t, int nd, npy_intp *dims) {
  int64_t n = TF_TensorElementCount(t);
  const char *base = TF_TensorData(t);
  size_t size = TF_TensorByteSize(t);
  if ((size_t)n * 8 > size) {
    TF_DeleteTensor(t);
    return pywrap_raise_code(TF_INTERNAL, "malformed string tensor");
  }
  const char *strs = base + n * 8;
  size_t strs_len = size - (size_t)n * 8;
  PyObject *arr = nd ? PyArray_SimpleNew(nd, dims, NPY_OBJECT) : NULL;
  if (nd && !arr) {
    TF_DeleteTensor(t);
    return NULL;
  }
  PyObject *result = arr;
  TF_Status *s = TF_NewStatus();
  for (int64_t i = 0; i < n; i++) {
    uint64_t off;
    memcpy(&off, base + 8 * i, 8);
    const char *dst = NULL;
    size_t dst_len = 0;
    PyObject *b = NULL;
    if (off > strs_len) TF_SetStatus(s, TF_INTERNAL, "malformed string tensor");
    else TF_StringDecode(strs + off, strs_len - off, &dst, &dst_len, s);
    if (!pywrap_raise_status(s)) b = PyBytes_FromStringAndSize(dst, (Py_ssize_t)dst_len);
    if (!b) {
      Py_XDECREF(arr);
      result = NULL;
      break;
    }
    if (!nd) {
      result = b;
      break;
    }
    PyObject **slot = (PyObject **)PyArray_DATA((PyArrayObject *)arr) + i;
    Py_XSETREF(*slot, b);
  }
  if (!nd && n == 0 && !PyErr_Occurred()) result = pywrap_raise_code(TF_INTERNAL, "empty scalar string tensor");
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return result;
}

PyObject *pywrap_ndarray_from_tensor(TF_Tensor *t) {
  TF_DataType dt = TF_TensorType(t);
  int npy = pywrap_npy_type(dt);
  int nd = TF_NumDims(t);
  npy_intp dims[NPY_MAXDIMS];
  if (npy < 0 || nd > NPY_MAXDIMS) {
    TF_DeleteTensor(t);
    return PyErr_Format(PyExc_TypeError, "cannot fetch a tensor of TF dtype %d into numpy", (int)dt);
  }
  for (int i = 0; i < nd; i++) dims[i] = (npy_intp)TF_Dim(t, i);
  if (dt == TF_STRING) return strings_to_numpy(t, nd, dims);
  PyArray_Descr *descr = PyArray_DescrFromType(npy);
  if (nd == 0) {
    PyObject *r = PyArray_Scalar(TF_TensorData(t), descr, NULL);
    Py_DECREF(descr);
    TF_DeleteTensor(t);
    return r;
  }
  size_t nbytes = TF_TensorByteSize(t);
  if (nbytes >= LEND_MIN_BYTES && TF_TensorMaybeMove(t)) {
    TensorOwner *owner = PyObject_New(TensorOwner, &PyTFTensorOwner_Type);
    if (!owner) {
      Py_DECREF(descr);
      TF_DeleteTensor(t);
      return NULL;
    }
    owner->t = t;
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, TF_TensorData(t),
                                         NPY_ARRAY_CARRAY, NULL);
    if (!arr) {
      Py_DECREF(owner);
      return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)owner) < 0) {
      Py_DECREF(arr);
      return NULL;
    }
    return arr;
  }
  PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, NULL, 0, NULL);
  if (arr && nbytes) memcpy(PyArray_DATA((PyArrayObject *)arr), TF_TensorData(t), nbytes);
  TF_DeleteTensor(t);
  return arr;
}

/* tensor_roundtrip(dtype, value): value through a TF_Tensor and back (tests the conversions). */
static PyObject *tensor_roundtrip(PyObject *self, PyObject *args) {
  int dt;
  PyObject *v;
  if (!PyArg_ParseTuple(args, "iO", &dt, &v)) return NULL;
  TF_Tensor *t = pywrap_tensor_from_ndarray(v, (TF_DataType)dt);
  return t ? pywrap_ndarray_from_tensor(t) : NULL;
}

PyMethodDef pywrap_ndarray_methods[] = {
    {"tensor_roundtrip", tensor_roundtrip, METH_VARARGS, "value -> TF_Tensor -> numpy."},
    {NULL, NULL, 0, NULL}};
