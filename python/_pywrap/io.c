/* tfc._pywrap input pipelines, records, summaries, coordinators and servers: thin calls into
 * include/tfc/record.h, input.h, summary.h, queue_runner.h, server.h and the TF_Server API.
 *
 * Design: the Python modules (tfc/python_io.py, tfc/training/input.py, tfc/summary.py,
 * tfc/training/coordinator.py, tfc/training/server_lib.py) keep the API objects; this file
 * only converts arguments and calls the C builders and objects, so the graph logic exists
 * once (in src/builders/).
 *
 * - Handle: one C object (record writer or reader, event writer, coordinator, server) with its
 *   free function. close() frees it at once (idempotent); a dead Handle frees what is left.
 *   `keep` holds Python objects the C object borrows (a coordinator keeps the sessions its
 *   threads run, so a session is never freed under a running thread: the coordinator is
 *   deleted, which joins its threads, before the sessions are released).
 * - Builders take (graph, scope) where scope is a _pywrap.Scope (train.c; Graph._builder_scope
 *   makes it from the Python context); the Python Graph wraps the new nodes afterwards
 *   (Graph._sync_c_ops) and reads the builders' collections through its bridges.
 * - Errors: a non-OK TF_Status raises the class registered for its code (pywrap.h); bad
 *   argument types raise TypeError. Blocking calls (coordinator join, server join) release
 *   the GIL. */
#include "pywrap.h"
#include "tfc/input.h"
#include "tfc/queue_runner.h"
#include "tfc/record.h"
#include "tfc/server.h"
#include "tfc/summary.h"
#include "tfc/train.h"

/* ---------------------------------------------------------------- Handle */

typedef void (*handle_free_fn)(void *);

typedef struct {
  PyObject_HEAD
  void *p;
  handle_free_fn free_fn;
  const char *kind;
  PyObject *keep; /* list or NULL */
} PyTFHandle;

static void handle_release(PyTFHandle *h) {
  if (!h->p) return;
  void *p = h->p;
  h->p = NULL;
  Py_BEGIN_ALLOW_THREADS
  h->free_fn(p);
  Py_END_ALLOW_THREADS
}

static void handle_dealloc(PyTFHandle *h) {
  handle_release(h);
  Py_XDECREF(h->keep);
  Py_TYPE(h)->tp_free((PyObject *)h);
}

PyTypeObject PyTFHandle_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Handle",
    .tp_basicsize = sizeof(PyTFHandle),
    .tp_dealloc = (destructor)handle_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A C object of the runtime (record file, event writer, coordinator, server).",
};

static PyObject *handle_new(void *p, handle_free_fn f, const char *kind) {
  PyTFHandle *h = PyObject_New(PyTFHandle, &PyTFHandle_Type);
  if (!h) {
    f(p);
    return NULL;
  }
  h->p = p;
  h->free_fn = f;
  h->kind = kind;
  h->keep = NULL;
  return (PyObject *)h;
}

/* The live C object of a Handle of `kind`; NULL with an exception when closed or another kind.
 * closed_msg: the text of the FAILED_PRECONDITION raised for a closed handle. */
static void *handle_get(PyObject *o, const char *kind, const char *closed_msg) {
  if (!PyObject_TypeCheck(o, &PyTFHandle_Type) || strcmp(((PyTFHandle *)o)->kind, kind) != 0) {
    PyErr_Format(PyExc_TypeError, "expected a %s handle", kind);
    return NULL;
  }
  PyTFHandle *h = (PyTFHandle *)o;
  if (!h->p) {
    pywrap_raise_code(TF_FAILED_PRECONDITION, closed_msg);
    return NULL;
  }
  return h->p;
}

static PyObject *status_result(TF_Status *s, PyObject *ok) {
  if (pywrap_raise_status(s)) {
    Py_XDECREF(ok);
    ok = NULL;
  }
  TF_DeleteStatus(s);
  return ok;
}

static PyObject *handle_close(PyObject *self, PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFHandle_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a handle");
    return NULL;
  }
  handle_release((PyTFHandle *)o);
  Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- records */

static void record_writer_free(void *p) {
  TF_Status *s = TF_NewStatus();
  TFC_CloseRecordWriter((TFC_RecordWriter *)p, s);
  TF_DeleteStatus(s);
}

static void record_reader_free(void *p) { TFC_DeleteRecordReader((TFC_RecordReader *)p); }

/* record_writer(path, compression_type) -> Handle */
static PyObject *record_writer(PyObject *self, PyObject *args) {
  const char *path, *comp;
  if (!PyArg_ParseTuple(args, "ss", &path, &comp)) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_RecordWriter *w = TFC_NewRecordWriter(path, comp, s);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  return handle_new(w, record_writer_free, "record writer");
}

#define CLOSED_WRITER "Writer is closed."

/* record_writer_write(handle, bytes) */
static PyObject *record_writer_write(PyObject *self, PyObject *args) {
  PyObject *h;
  Py_buffer buf;
  if (!PyArg_ParseTuple(args, "Oy*", &h, &buf)) return NULL;
  TFC_RecordWriter *w = handle_get(h, "record writer", CLOSED_WRITER);
  if (!w) {
    PyBuffer_Release(&buf);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TFC_RecordWriterWrite(w, buf.buf, (size_t)buf.len, s);
  PyBuffer_Release(&buf);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

static PyObject *record_writer_flush(PyObject *self, PyObject *h) {
  TFC_RecordWriter *w = handle_get(h, "record writer", CLOSED_WRITER);
  if (!w) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_RecordWriterFlush(w, s);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* record_writer_close(handle): closes and reports the final write's error. Idempotent. */
static PyObject *record_writer_close(PyObject *self, PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFHandle_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a handle");
    return NULL;
  }
  PyTFHandle *h = (PyTFHandle *)o;
  if (!h->p) Py_RETURN_NONE;
  TFC_RecordWriter *w = h->p;
  h->p = NULL;
  TF_Status *s = TF_NewStatus();
  TFC_CloseRecordWriter(w, s);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* record_reader(path, compression_type) -> Handle */
static PyObject *record_reader(PyObject *self, PyObject *args) {
  const char *path, *comp;
  if (!PyArg_ParseTuple(args, "ss", &path, &comp)) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_RecordReader *r = TFC_NewRecordReader(path, comp, s);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  return handle_new(r, record_reader_free, "record reader");
}

/* record_reader_next(handle) -> bytes, or None at the end of the file */
static PyObject *record_reader_next(PyObject *self, PyObject *h) {
  TFC_RecordReader *r = handle_get(h, "record reader", "Reader is closed.");
  if (!r) return NULL;
  TF_Status *s = TF_NewStatus();
  const char *data = NULL;
  size_t len = 0;
  int got;
  Py_BEGIN_ALLOW_THREADS
  got = TFC_RecordReaderRead(r, &data, &len, s);
  Py_END_ALLOW_THREADS
  if (got) {
    TF_DeleteStatus(s);
    return PyBytes_FromStringAndSize(data, (Py_ssize_t)len);
  }
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* ---------------------------------------------------------------- scopes and graphs */

static TF_Graph *graph_of(PyObject *o) {
  if (!PyObject_TypeCheck(o, &PyTFGraph_Type)) {
    PyErr_SetString(PyExc_TypeError, "expected a _pywrap.Graph");
    return NULL;
  }
  return ((PyTFGraph *)o)->graph;
}

static PyObject *output_tuple(TF_Output o) { return Py_BuildValue("(Ni)", PyLong_FromVoidPtr(o.oper), o.index); }

static PyObject *output_list(const TF_Output *o, int n) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *t = output_tuple(o[i]);
    if (!t) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, t);
  }
  return l;
}

/* A malloc'd array of the (op, index) pairs of a list; NULL with an exception (n set). */
static TF_Output *outputs_of(PyObject *list, int *n) {
  if (!PyList_Check(list)) {
    PyErr_SetString(PyExc_TypeError, "expected a list of outputs");
    return NULL;
  }
  *n = (int)PyList_GET_SIZE(list);
  TF_Output *o = malloc(sizeof(TF_Output) * (size_t)(*n > 0 ? *n : 1));
  if (!o) {
    PyErr_NoMemory();
    return NULL;
  }
  for (int i = 0; i < *n; i++) {
    if (pywrap_output(PyList_GET_ITEM(list, i), &o[i]) < 0) {
      free(o);
      return NULL;
    }
  }
  return o;
}

/* Parses (graph, scope) at the front of a builder's arguments. */
#define BUILDER_PROLOGUE(go, spec)           \
  if (!graph_of(go)) return NULL;            \
  const TFC_Scope *sc = pywrap_scope(spec);  \
  if (!sc) return NULL;                      \
  TF_Status *s = TF_NewStatus()

static const char *opt_str(PyObject *o) { return o == Py_None ? NULL : PyUnicode_AsUTF8(o); }

/* b_string_input_producer(graph, scope, [filename, ...], num_epochs, shuffle, seed, capacity,
 * name or None) -> queue output */
static PyObject *b_string_input_producer(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *files, *name;
  long long epochs, seed;
  int shuffle, capacity;
  if (!PyArg_ParseTuple(args, "OOO!LpLiO", &go, &spec, &PyList_Type, &files, &epochs, &shuffle, &seed,
                        &capacity, &name))
    return NULL;
  int n = (int)PyList_GET_SIZE(files);
  const char **names = malloc(sizeof(char *) * (size_t)(n > 0 ? n : 1));
  if (!names) return PyErr_NoMemory();
  for (int i = 0; i < n; i++) {
    PyObject *f = PyList_GET_ITEM(files, i);
    names[i] = PyBytes_Check(f) ? PyBytes_AS_STRING(f) : PyUnicode_AsUTF8(f);
    if (!names[i]) {
      free(names);
      return NULL;
    }
  }
  const TFC_Scope *sc = graph_of(go) ? pywrap_scope(spec) : NULL;
  if (!sc) {
    free(names);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TF_Output q = TFC_StringInputProducer(sc, names, n, (int64_t)epochs, (unsigned char)shuffle, (int64_t)seed,
                                        capacity, opt_str(name), s);
  free(names);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(q) : NULL);
}

/* b_input_producer(graph, scope, input, element dims or None, num_epochs, shuffle, seed,
 * capacity, summary name or None, name or None) -> queue output */
static PyObject *b_input_producer(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *io, *dimso, *summary, *name;
  long long epochs, seed;
  int shuffle, capacity;
  TF_Output in;
  if (!PyArg_ParseTuple(args, "OOOOLpLiOO", &go, &spec, &io, &dimso, &epochs, &shuffle, &seed, &capacity, &summary,
                        &name))
    return NULL;
  if (pywrap_output(io, &in) < 0) return NULL;
  int64_t dims[32];
  int nd = -1;
  if (dimso != Py_None) {
    PyObject *seq = PySequence_Fast(dimso, "element_shape must be a sequence of ints");
    if (!seq) return NULL;
    nd = (int)PySequence_Fast_GET_SIZE(seq);
    if (nd > 32) {
      Py_DECREF(seq);
      return PyErr_Format(PyExc_ValueError, "element_shape has %d dims", nd);
    }
    for (int i = 0; i < nd; i++) {
      PyObject *d = PySequence_Fast_GET_ITEM(seq, i);
      dims[i] = d == Py_None ? -1 : PyLong_AsLongLong(d);
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) return NULL;
  }
  const TFC_Scope *sc = graph_of(go) ? pywrap_scope(spec) : NULL;
  if (!sc) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Output q = TFC_InputProducer(sc, in, dims, nd, (int64_t)epochs, (unsigned char)shuffle, (int64_t)seed, capacity,
                                  opt_str(summary), opt_str(name), s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(q) : NULL);
}

/* b_range_input_producer(graph, scope, limit tensor or int, num_epochs, shuffle, seed, capacity,
 * name or None) -> queue output */
static PyObject *b_range_input_producer(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *lo, *name;
  long long epochs, seed;
  int shuffle, capacity;
  if (!PyArg_ParseTuple(args, "OOOLpLiO", &go, &spec, &lo, &epochs, &shuffle, &seed, &capacity, &name)) return NULL;
  TF_Output lim = {NULL, 0};
  long long limit_value = 0;
  if (PyLong_Check(lo)) {
    limit_value = PyLong_AsLongLong(lo);
    if (PyErr_Occurred()) return NULL;
  } else if (pywrap_output(lo, &lim) < 0) {
    return NULL;
  }
  const TFC_Scope *sc = graph_of(go) ? pywrap_scope(spec) : NULL;
  if (!sc) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Output q = TFC_RangeInputProducer(sc, lim, (int64_t)limit_value, (int64_t)epochs, (unsigned char)shuffle,
                                       (int64_t)seed, capacity, opt_str(name), s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(q) : NULL);
}

/* b_limit_epochs(graph, scope, tensor, num_epochs) -> output */
static PyObject *b_limit_epochs(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *to;
  long long epochs;
  TF_Output t;
  if (!PyArg_ParseTuple(args, "OOOL", &go, &spec, &to, &epochs)) return NULL;
  if (pywrap_output(to, &t) < 0) return NULL;
  const TFC_Scope *sc = graph_of(go) ? pywrap_scope(spec) : NULL;
  if (!sc) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Output r = TFC_LimitEpochs(sc, t, (int64_t)epochs, s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(r) : NULL);
}

/* b_tfrecord_reader_read(graph, scope, queue, compression, name or None) -> (key, value) */
static PyObject *b_tfrecord_reader_read(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *qo, *name;
  const char *comp;
  if (!PyArg_ParseTuple(args, "OOOsO", &go, &spec, &qo, &comp, &name)) return NULL;
  TF_Output q;
  if (pywrap_output(qo, &q) < 0) return NULL;
  BUILDER_PROLOGUE(go, spec);
  TF_Output kv[2];
  TFC_TFRecordReaderRead(sc, q, comp, opt_str(name), &kv[0], &kv[1], s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_list(kv, 2) : NULL);
}

/* b_parse_single_example(graph, scope, serialized, [(key, dtype, [dim, ...], default ndarray or
 * None), ...]) -> [output, ...] */
static PyObject *b_parse_single_example(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *so, *feats;
  if (!PyArg_ParseTuple(args, "OOOO!", &go, &spec, &so, &PyList_Type, &feats)) return NULL;
  TF_Output ser;
  if (pywrap_output(so, &ser) < 0) return NULL;
  int n = (int)PyList_GET_SIZE(feats);
  TFC_FixedLenFeature *f = calloc((size_t)(n > 0 ? n : 1), sizeof *f);
  int64_t **dims = calloc((size_t)(n > 0 ? n : 1), sizeof *dims);
  TF_Output *out = calloc((size_t)(n > 0 ? n : 1), sizeof *out);
  PyObject *result = NULL;
  int ok = f && dims && out;
  if (!ok) PyErr_NoMemory();
  for (int i = 0; ok && i < n; i++) {
    PyObject *key, *dl, *dflt;
    int dt;
    ok = PyArg_ParseTuple(PyList_GET_ITEM(feats, i), "UiO!O", &key, &dt, &PyList_Type, &dl, &dflt);
    if (!ok) break;
    f[i].key = PyUnicode_AsUTF8(key);
    f[i].dtype = (TF_DataType)dt;
    f[i].num_dims = (int)PyList_GET_SIZE(dl);
    dims[i] = malloc(sizeof(int64_t) * (size_t)(f[i].num_dims + 1));
    ok = f[i].key && dims[i];
    for (int j = 0; ok && j < f[i].num_dims; j++) {
      dims[i][j] = PyLong_AsLongLong(PyList_GET_ITEM(dl, j));
      ok = !(dims[i][j] == -1 && PyErr_Occurred());
    }
    f[i].dims = dims[i];
    if (ok && dflt != Py_None) ok = (f[i].default_value = pywrap_tensor_from_ndarray(dflt, f[i].dtype)) != NULL;
  }
  if (ok) {
    const TFC_Scope *sc = graph_of(go) ? pywrap_scope(spec) : NULL;
    if (sc) {
      TF_Status *s = TF_NewStatus();
      TFC_ParseSingleExample(sc, ser, f, n, out, s);
          result = status_result(s, TF_GetCode(s) == TF_OK ? output_list(out, n) : NULL);
    }
  }
  for (int i = 0; f && dims && i < n; i++) {
    free(dims[i]);
    if (f[i].default_value) TF_DeleteTensor(f[i].default_value);
  }
  free(f);
  free(dims);
  free(out);
  return result;
}

/* b_decode_raw(graph, scope, bytes, out_type, little_endian) -> output */
static PyObject *b_decode_raw(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *bo;
  int dt, le;
  if (!PyArg_ParseTuple(args, "OOOip", &go, &spec, &bo, &dt, &le)) return NULL;
  TF_Output in;
  if (pywrap_output(bo, &in) < 0) return NULL;
  BUILDER_PROLOGUE(go, spec);
  TF_Output o = TFC_DecodeRaw(sc, in, (TF_DataType)dt, (unsigned char)le, s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(o) : NULL);
}

/* b_batch(graph, scope, [tensor, ...], shuffle, batch_size, capacity, num_threads,
 * min_after_dequeue, seed, enqueue_many, allow_smaller_final_batch, dynamic_pad, name or None)
 * -> [output, ...]: TFC_BatchWithOptions. */
static PyObject *b_batch(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *tl, *name;
  TFC_BatchOptions o;
  int shuffle, many, smaller, pad;
  long long seed;
  memset(&o, 0, sizeof o);
  if (!PyArg_ParseTuple(args, "OOOpiiiiLpppO", &go, &spec, &tl, &shuffle, &o.batch_size, &o.capacity, &o.num_threads,
                        &o.min_after_dequeue, &seed, &many, &smaller, &pad, &name))
    return NULL;
  o.dynamic_pad = (unsigned char)pad;
  o.shuffle = (unsigned char)shuffle;
  o.seed = (int64_t)seed;
  o.enqueue_many = (unsigned char)many;
  o.allow_smaller_final_batch = (unsigned char)smaller;
  o.name = opt_str(name);
  int n;
  TF_Output *in = outputs_of(tl, &n);
  if (!in) return NULL;
  TF_Output *out = calloc((size_t)(n > 0 ? n : 1), sizeof *out);
  const TFC_Scope *sc = out && graph_of(go) ? pywrap_scope(spec) : NULL;
  PyObject *r = NULL;
  if (!out) PyErr_NoMemory();
  if (sc) {
    TF_Status *s = TF_NewStatus();
    TFC_BatchWithOptions(sc, in, n, &o, out, s);
      r = status_result(s, TF_GetCode(s) == TF_OK ? output_list(out, n) : NULL);
  }
  free(in);
  free(out);
  return r;
}

/* ---------------------------------------------------------------- summaries */

/* b_scalar_summary / b_histogram_summary(graph, scope, name or None, value, family or None)
 * -> output */
static PyObject *b_value_summary(PyObject *args, int histogram) {
  PyObject *go, *spec, *name, *vo, *family;
  if (!PyArg_ParseTuple(args, "OOOOO", &go, &spec, &name, &vo, &family)) return NULL;
  TF_Output v;
  if (pywrap_output(vo, &v) < 0) return NULL;
  BUILDER_PROLOGUE(go, spec);
  TF_Output o = histogram ? TFC_HistogramSummaryWithFamily(sc, opt_str(name), opt_str(family), v, s)
                          : TFC_ScalarSummaryWithFamily(sc, opt_str(name), opt_str(family), v, s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(o) : NULL);
}

static PyObject *b_scalar_summary(PyObject *self, PyObject *args) { return b_value_summary(args, 0); }
static PyObject *b_histogram_summary(PyObject *self, PyObject *args) { return b_value_summary(args, 1); }

/* b_tensor_summary(graph, scope, name or None, tensor, serialized metadata (bytes), family or
 * None) -> output */
static PyObject *b_tensor_summary(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *name, *vo, *family;
  const char *meta;
  Py_ssize_t meta_len;
  if (!PyArg_ParseTuple(args, "OOOOy#O", &go, &spec, &name, &vo, &meta, &meta_len, &family)) return NULL;
  TF_Output v;
  if (pywrap_output(vo, &v) < 0) return NULL;
  BUILDER_PROLOGUE(go, spec);
  TF_Output o = TFC_TensorSummary(sc, opt_str(name), opt_str(family), v, meta, (size_t)meta_len, s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(o) : NULL);
}

/* b_audio_summary(graph, scope, name or None, tensor, sample_rate, max_outputs, family or None)
 * -> output */
static PyObject *b_audio_summary(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *name, *vo, *family;
  float rate;
  int max_outputs;
  if (!PyArg_ParseTuple(args, "OOOOfiO", &go, &spec, &name, &vo, &rate, &max_outputs, &family)) return NULL;
  TF_Output v;
  if (pywrap_output(vo, &v) < 0) return NULL;
  BUILDER_PROLOGUE(go, spec);
  TF_Output o = TFC_AudioSummary(sc, opt_str(name), opt_str(family), v, rate, max_outputs, s);
  return status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(o) : NULL);
}

/* b_merge_summary(graph, scope, [input, ...], name or None) -> output */
static PyObject *b_merge_summary(PyObject *self, PyObject *args) {
  PyObject *go, *spec, *tl, *name;
  if (!PyArg_ParseTuple(args, "OOOO", &go, &spec, &tl, &name)) return NULL;
  int n;
  TF_Output *in = outputs_of(tl, &n);
  if (!in) return NULL;
  const TFC_Scope *sc = graph_of(go) ? pywrap_scope(spec) : NULL;
  PyObject *r = NULL;
  if (sc) {
    TF_Status *s = TF_NewStatus();
    TF_Output o = TFC_MergeSummary(sc, in, n, opt_str(name), s);
      r = status_result(s, TF_GetCode(s) == TF_OK ? output_tuple(o) : NULL);
  }
  free(in);
  return r;
}

static void event_writer_free(void *p) { TFC_DeleteEventWriter((TFC_EventWriter *)p); }

#define CLOSED_EVENTS "The event writer is closed."

/* event_writer(logdir, filename_suffix) -> Handle */
static PyObject *event_writer(PyObject *self, PyObject *args) {
  const char *logdir, *suffix;
  if (!PyArg_ParseTuple(args, "ss", &logdir, &suffix)) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_EventWriter *w = TFC_NewEventWriterWithSuffix(logdir, suffix, s);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  return handle_new(w, event_writer_free, "event writer");
}

static PyObject *event_writer_path(PyObject *self, PyObject *h) {
  TFC_EventWriter *w = handle_get(h, "event writer", CLOSED_EVENTS);
  return w ? PyUnicode_FromString(TFC_EventWriterPath(w)) : NULL;
}

/* event_writer_add_summary(handle, bytes, step) */
static PyObject *event_writer_add_summary(PyObject *self, PyObject *args) {
  PyObject *h;
  Py_buffer buf;
  long long step;
  if (!PyArg_ParseTuple(args, "Oy*L", &h, &buf, &step)) return NULL;
  TFC_EventWriter *w = handle_get(h, "event writer", CLOSED_EVENTS);
  if (!w) {
    PyBuffer_Release(&buf);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TFC_EventWriterAddSummary(w, buf.buf, (size_t)buf.len, (int64_t)step, s);
  PyBuffer_Release(&buf);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* event_writer_add_event(handle, serialized Event) */
static PyObject *event_writer_add_event(PyObject *self, PyObject *args) {
  PyObject *h;
  Py_buffer buf;
  if (!PyArg_ParseTuple(args, "Oy*", &h, &buf)) return NULL;
  TFC_EventWriter *w = handle_get(h, "event writer", CLOSED_EVENTS);
  if (!w) {
    PyBuffer_Release(&buf);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  TFC_EventWriterAddEvent(w, buf.buf, (size_t)buf.len, s);
  PyBuffer_Release(&buf);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* event_writer_add_graph(handle, graph) */
static PyObject *event_writer_add_graph(PyObject *self, PyObject *args) {
  PyObject *h, *go;
  if (!PyArg_ParseTuple(args, "OO", &h, &go)) return NULL;
  TFC_EventWriter *w = handle_get(h, "event writer", CLOSED_EVENTS);
  TF_Graph *g = w ? graph_of(go) : NULL;
  if (!g) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_EventWriterAddGraph(w, g, NULL, s);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* event_writer_add_session_log(handle, status, checkpoint_path or None, step) */
static PyObject *event_writer_add_session_log(PyObject *self, PyObject *args) {
  PyObject *h, *path;
  int st;
  long long step;
  if (!PyArg_ParseTuple(args, "OiOL", &h, &st, &path, &step)) return NULL;
  TFC_EventWriter *w = handle_get(h, "event writer", CLOSED_EVENTS);
  if (!w) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_EventWriterAddSessionLog(w, st, opt_str(path), (int64_t)step, s);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

static PyObject *event_writer_flush(PyObject *self, PyObject *h) {
  TFC_EventWriter *w = handle_get(h, "event writer", CLOSED_EVENTS);
  if (!w) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_EventWriterFlush(w, s);
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* ---------------------------------------------------------------- coordinators */

static void coordinator_free(void *p) { TFC_DeleteCoordinator((TFC_Coordinator *)p); }

#define CLOSED_COORD "The coordinator is deleted."

static void borrowed_free(void *p) { (void)p; }

PyObject *pywrap_borrowed_coordinator(TFC_Coordinator *c) { return handle_new(c, borrowed_free, "coordinator"); }

static PyObject *coordinator(PyObject *self, PyObject *unused) {
  TFC_Coordinator *c = TFC_NewCoordinator();
  if (!c) return PyErr_NoMemory();
  return handle_new(c, coordinator_free, "coordinator");
}

/* coordinator_request_stop(handle, code, message): code 0 asks without an error. */
static PyObject *coordinator_request_stop(PyObject *self, PyObject *args) {
  PyObject *h;
  int code;
  const char *msg;
  if (!PyArg_ParseTuple(args, "Ois", &h, &code, &msg)) return NULL;
  TFC_Coordinator *c = handle_get(h, "coordinator", CLOSED_COORD);
  if (!c) return NULL;
  TF_Status *s = NULL;
  if (code != 0) {
    s = TF_NewStatus();
    TF_SetStatus(s, (TF_Code)code, msg);
  }
  TFC_CoordinatorRequestStop(c, s);
  if (s) TF_DeleteStatus(s);
  Py_RETURN_NONE;
}

static PyObject *coordinator_should_stop(PyObject *self, PyObject *h) {
  TFC_Coordinator *c = handle_get(h, "coordinator", CLOSED_COORD);
  return c ? PyBool_FromLong(TFC_CoordinatorShouldStop(c)) : NULL;
}

/* coordinator_join(handle): waits (GIL released) for the C threads; raises their first error. */
static PyObject *coordinator_join(PyObject *self, PyObject *h) {
  TFC_Coordinator *c = handle_get(h, "coordinator", CLOSED_COORD);
  if (!c) return NULL;
  TF_Status *s = TF_NewStatus();
  Py_BEGIN_ALLOW_THREADS
  TFC_CoordinatorJoin(c, s);
  Py_END_ALLOW_THREADS
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

/* start_queue_runner(coordinator, session, close_op or None, cancel_op or None,
 * [enqueue_op, ...]) -> threads started. The coordinator keeps the session object alive. */
static PyObject *start_queue_runner(PyObject *self, PyObject *args) {
  PyObject *h, *so, *close_o, *cancel_o, *el;
  if (!PyArg_ParseTuple(args, "OOOOO!", &h, &so, &close_o, &cancel_o, &PyList_Type, &el)) return NULL;
  TFC_Coordinator *c = handle_get(h, "coordinator", CLOSED_COORD);
  if (!c) return NULL;
  TF_Session *sess = pywrap_session(so);
  if (!sess) return NULL;
  TF_Operation *close_op = close_o == Py_None ? NULL : pywrap_op(close_o);
  TF_Operation *cancel_op = cancel_o == Py_None ? NULL : pywrap_op(cancel_o);
  if (PyErr_Occurred()) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(el);
  TF_Operation **ops = malloc(sizeof(TF_Operation *) * (size_t)(n > 0 ? n : 1));
  if (!ops) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!(ops[i] = pywrap_op(PyList_GET_ITEM(el, i)))) {
      free(ops);
      return NULL;
    }
  }
  PyTFHandle *ho = (PyTFHandle *)h;
  if (!ho->keep && !(ho->keep = PyList_New(0))) {
    free(ops);
    return NULL;
  }
  if (PyList_Append(ho->keep, so) < 0) {
    free(ops);
    return NULL;
  }
  TF_Status *s = TF_NewStatus();
  int started = TFC_StartQueueRunner(sess, c, close_op, cancel_op, ops, NULL, (int)n, s);
  free(ops);
  return status_result(s, PyLong_FromLong(started));
}

/* ---------------------------------------------------------------- servers */

static PyObject *buffer_bytes(TF_Buffer *b, TF_Status *s) {
  PyObject *r = b ? PyBytes_FromStringAndSize(b->data, (Py_ssize_t)b->length) : NULL;
  TF_DeleteBuffer(b);
  if (pywrap_raise_status(s)) Py_CLEAR(r);
  TF_DeleteStatus(s);
  return r;
}

/* server_def(cluster, job_name, task_index, port, config bytes) -> serialized ServerDef */
static PyObject *server_def(PyObject *self, PyObject *args) {
  const char *cluster, *job, *config;
  int task, port;
  Py_ssize_t config_len;
  if (!PyArg_ParseTuple(args, "ssiiy#", &cluster, &job, &task, &port, &config, &config_len)) return NULL;
  TF_Status *s = TF_NewStatus();
  return buffer_bytes(TFC_NewServerDef(cluster, job, task, port, config_len ? config : NULL, (size_t)config_len, s), s);
}

static PyObject *local_server_def(PyObject *self, PyObject *unused) {
  TF_Status *s = TF_NewStatus();
  return buffer_bytes(TFC_NewLocalServerDef(s), s);
}

static void server_free(void *p) {
  TF_Status *s = TF_NewStatus();
  TF_ServerStop((TF_Server *)p, s);
  TF_DeleteStatus(s);
  TF_DeleteServer((TF_Server *)p);
}

#define CLOSED_SERVER "The server is deleted."

/* server(server_def bytes) -> Handle */
static PyObject *server(PyObject *self, PyObject *args) {
  const char *def;
  Py_ssize_t len;
  if (!PyArg_ParseTuple(args, "y#", &def, &len)) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Server *sv = TF_NewServer(def, (size_t)len, s);
  if (pywrap_raise_status(s)) {
    TF_DeleteStatus(s);
    return NULL;
  }
  TF_DeleteStatus(s);
  return handle_new(sv, server_free, "server");
}

/* server_call(handle, what): what 0 start, 1 join (GIL released), 2 stop. */
static PyObject *server_call(PyObject *self, PyObject *args) {
  PyObject *h;
  int what;
  if (!PyArg_ParseTuple(args, "Oi", &h, &what)) return NULL;
  TF_Server *sv = handle_get(h, "server", CLOSED_SERVER);
  if (!sv) return NULL;
  TF_Status *s = TF_NewStatus();
  if (what == 0) {
    TF_ServerStart(sv, s);
  } else if (what == 1) {
    Py_BEGIN_ALLOW_THREADS
    TF_ServerJoin(sv, s);
    Py_END_ALLOW_THREADS
  } else {
    TF_ServerStop(sv, s);
  }
  Py_INCREF(Py_None);
  return status_result(s, Py_None);
}

static PyObject *server_target(PyObject *self, PyObject *h) {
  TF_Server *sv = handle_get(h, "server", CLOSED_SERVER);
  return sv ? PyUnicode_FromString(TF_ServerTarget(sv)) : NULL;
}

PyMethodDef pywrap_io_methods[] = {
    {"handle_close", handle_close, METH_O, "Frees a handle's C object now."},
    {"record_writer", record_writer, METH_VARARGS, NULL},
    {"record_writer_write", record_writer_write, METH_VARARGS, NULL},
    {"record_writer_flush", record_writer_flush, METH_O, NULL},
    {"record_writer_close", record_writer_close, METH_O, NULL},
    {"record_reader", record_reader, METH_VARARGS, NULL},
    {"record_reader_next", record_reader_next, METH_O, NULL},
    {"b_string_input_producer", b_string_input_producer, METH_VARARGS, NULL},
    {"b_input_producer", b_input_producer, METH_VARARGS, NULL},
    {"b_range_input_producer", b_range_input_producer, METH_VARARGS, NULL},
    {"b_limit_epochs", b_limit_epochs, METH_VARARGS, NULL},
    {"b_tfrecord_reader_read", b_tfrecord_reader_read, METH_VARARGS, NULL},
    {"b_parse_single_example", b_parse_single_example, METH_VARARGS, NULL},
    {"b_decode_raw", b_decode_raw, METH_VARARGS, NULL},
    {"b_batch", b_batch, METH_VARARGS, NULL},
    {"b_scalar_summary", b_scalar_summary, METH_VARARGS, NULL},
    {"b_histogram_summary", b_histogram_summary, METH_VARARGS, NULL},
    {"b_merge_summary", b_merge_summary, METH_VARARGS, NULL},
    {"b_tensor_summary", b_tensor_summary, METH_VARARGS, NULL},
    {"b_audio_summary", b_audio_summary, METH_VARARGS, NULL},
    {"event_writer", event_writer, METH_VARARGS, NULL},
    {"event_writer_path", event_writer_path, METH_O, NULL},
    {"event_writer_add_summary", event_writer_add_summary, METH_VARARGS, NULL},
    {"event_writer_add_event", event_writer_add_event, METH_VARARGS, NULL},
    {"event_writer_add_graph", event_writer_add_graph, METH_VARARGS, NULL},
    {"event_writer_add_session_log", event_writer_add_session_log, METH_VARARGS, NULL},
    {"event_writer_flush", event_writer_flush, METH_O, NULL},
    {"coordinator", coordinator, METH_NOARGS, NULL},
    {"coordinator_request_stop", coordinator_request_stop, METH_VARARGS, NULL},
    {"coordinator_should_stop", coordinator_should_stop, METH_O, NULL},
    {"coordinator_join", coordinator_join, METH_O, NULL},
    {"start_queue_runner", start_queue_runner, METH_VARARGS, NULL},
    {"server_def", server_def, METH_VARARGS, NULL},
    {"local_server_def", local_server_def, METH_NOARGS, NULL},
    {"server", server, METH_VARARGS, NULL},
    {"server_call", server_call, METH_VARARGS, NULL},
    {"server_target", server_target, METH_O, NULL},
    {NULL, NULL, 0, NULL}};
