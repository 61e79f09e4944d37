/* tfc._pywrap savers, checkpoint state files, checkpoint readers and meta graphs:
 * include/tfc/saver.h and include/tfc/meta_graph.h called from Python.
 *
 * Design: python/tfc/training/saver.py keeps tf.train.Saver's Python object (argument checks,
 * the SaverDef message, the global step); this file holds the C saver (one _pywrap.Saver per
 * TFC_Saver, freed in tp_dealloc; it keeps its _pywrap.Graph alive, since the saver borrows the
 * TF_Graph) and converts arguments. The save and restore runs and the file work release the
 * GIL. Meta graphs travel as serialized MetaGraphDef bytes: export_meta_graph builds them in C
 * (TFC_ExportMetaGraph over the graph, its builder collections, a saver def and the
 * collections only Python holds, passed in as (key, kind, values)); import_meta_graph imports
 * them in C; Python then recreates its own objects from the message (the saver def and the
 * collections the builders do not hold). A CheckpointReader owns a TFC_CheckpointReader.
 * saved_model_builder/_add/_save are TFC_SavedModelBuilder (tfc/saved_model.h) for
 * tf.saved_model's builder, the builder held by a capsule that deletes it; read_saved_model
 * gives a SavedModel's binary bytes (also from saved_model.pbtxt) to its loader.
 *
 * Errors: a non-OK TF_Status raises the class registered for its code (pywrap.h); bad
 * argument types raise TypeError.
 */
#include <math.h>

#include "pywrap.h"
#include "tfc/meta_graph.h"
#include "tfc/saved_model.h"
#include "tfc/saver.h"
#include "tfc/train.h"

/* ---------------------------------------------------------------- Saver */

typedef struct {
  PyObject_HEAD
  TFC_Saver *saver;
  PyObject *graph; /* the _pywrap.Graph (owned reference) */
} PyTFSaver;

static void saver_dealloc(PyTFSaver *s) {
  TFC_DeleteSaver(s->saver);
  Py_XDECREF(s->graph);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

PyTypeObject PyTFSaver_Type;

static PyObject *saver_wrap(PyObject *graph, TFC_Saver *sv) {
  PyTFSaver *s = PyObject_New(PyTFSaver, &PyTFSaver_Type);
  if (!s) {
    TFC_DeleteSaver(sv);
    return NULL;
  }
  Py_INCREF(graph);
  s->graph = graph;
  s->saver = sv;
  return (PyObject *)s;
}

/* save(session, save_path, global_step (-1: none), latest_filename, meta_suffix, flags) -> the
 * prefix written. */
static PyObject *saver_save(PyTFSaver *self, PyObject *args) {
  PyObject *sess;
  const char *path, *latest = NULL, *suffix = NULL;
  long long step;
  int flags;
  if (!PyArg_ParseTuple(args, "OsLzzi", &sess, &path, &step, &latest, &suffix, &flags)) return NULL;
  TF_Session *session = pywrap_session(sess);
  if (!session) return NULL;
  size_t cap = strlen(path) + 32;
  char *out = malloc(cap);
  TF_Status *s = TF_NewStatus();
  if (!out || !s) {
    free(out);
    TF_DeleteStatus(s);
    return PyErr_NoMemory();
  }
  int ok;
  Py_BEGIN_ALLOW_THREADS
  ok = TFC_SaverSaveWithOptions(self->saver, session, path, (int64_t)step, latest, suffix, flags, out, cap, s);
  Py_END_ALLOW_THREADS
  PyObject *r = ok ? PyUnicode_FromString(out) : NULL;
  if (pywrap_raise_status(s)) Py_CLEAR(r);
  free(out);
  TF_DeleteStatus(s);
  return r;
}

/* restore(session, save_path) */
static PyObject *saver_restore(PyTFSaver *self, PyObject *args) {
  PyObject *sess;
  const char *path;
  if (!PyArg_ParseTuple(args, "Os", &sess, &path)) return NULL;
  TF_Session *session = pywrap_session(sess);
  if (!session) return NULL;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  Py_BEGIN_ALLOW_THREADS
  TFC_SaverRestore(self->saver, session, path, s);
  Py_END_ALLOW_THREADS
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

/* last_checkpoints() -> [(path, time), ...], oldest first */
static PyObject *saver_last(PyTFSaver *self, PyObject *unused) {
  int n = TFC_SaverNumLastCheckpoints(self->saver);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *t = Py_BuildValue("(sd)", TFC_SaverLastCheckpoint(self->saver, i), TFC_SaverLastCheckpointTime(self->saver, i));
    if (!t) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, t);
  }
  return l;
}

/* set_last_checkpoints([(path, time or None), ...]) */
static PyObject *saver_set_last(PyTFSaver *self, PyObject *arg) {
  PyObject *seq = PySequence_Fast(arg, "expected a list of (path, time) pairs");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **paths = calloc((size_t)n + 1, sizeof *paths);
  double *times = calloc((size_t)n + 1, sizeof *times);
  PyObject *r = NULL;
  if (!paths || !times) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *path, *time;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "OO", &path, &time)) goto done;
    if (!(paths[i] = PyUnicode_AsUTF8(path))) goto done;
    times[i] = time == Py_None ? INFINITY : PyFloat_AsDouble(time);
    if (times[i] == -1.0 && PyErr_Occurred()) goto done;
  }
  TF_Status *s = TF_NewStatus();
  if (!s) {
    PyErr_NoMemory();
    goto done;
  }
  TFC_SaverSetLastCheckpoints(self->saver, paths, times, (int)n, s);
  if (!pywrap_raise_status(s)) {
    Py_INCREF(Py_None);
    r = Py_None;
  }
  TF_DeleteStatus(s);
done:
  free(paths);
  free(times);
  Py_DECREF(seq);
  return r;
}

static PyObject *saver_set_keep_hours(PyTFSaver *self, PyObject *arg) {
  double h = PyFloat_AsDouble(arg);
  if (h == -1.0 && PyErr_Occurred()) return NULL;
  TFC_SaverSetKeepCheckpointEveryNHours(self->saver, h);
  Py_RETURN_NONE;
}

/* saver_def() -> (filename_tensor_name, save_tensor_name, restore_op_name, max_to_keep,
 * keep_checkpoint_every_n_hours) */
static PyObject *saver_def(PyTFSaver *self, PyObject *unused) {
  TFC_SaverDef d;
  TFC_SaverGetDef(self->saver, &d);
  return Py_BuildValue("(sssid)", d.filename_tensor_name, d.save_tensor_name, d.restore_op_name, d.max_to_keep,
                       d.keep_checkpoint_every_n_hours);
}

static PyMethodDef saver_methods[] = {
    {"save", (PyCFunction)saver_save, METH_VARARGS, "TFC_SaverSaveWithOptions."},
    {"restore", (PyCFunction)saver_restore, METH_VARARGS, "TFC_SaverRestore."},
    {"last_checkpoints", (PyCFunction)saver_last, METH_NOARGS, "The tracked checkpoints with their times."},
    {"set_last_checkpoints", (PyCFunction)saver_set_last, METH_O, "TFC_SaverSetLastCheckpoints."},
    {"set_keep_hours", (PyCFunction)saver_set_keep_hours, METH_O, "TFC_SaverSetKeepCheckpointEveryNHours."},
    {"saver_def", (PyCFunction)saver_def, METH_NOARGS, "TFC_SaverGetDef."},
    {NULL, NULL, 0, NULL}};

PyTypeObject PyTFSaver_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.Saver",
    .tp_basicsize = sizeof(PyTFSaver),
    .tp_dealloc = (destructor)saver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = saver_methods,
    .tp_doc = "A TFC_Saver (include/tfc/saver.h).",
};

/* new_saver(scope, [name, ...], [(op, index), ...], max_to_keep[, tables]) -> Saver; tables:
 * [(name, table output, keys output, values output), ...] (TFC_NewSaverWithTables). */
static PyObject *new_saver(PyObject *self, PyObject *args) {
  PyObject *scope, *names, *vars, *tables = NULL;
  int max_to_keep;
  if (!PyArg_ParseTuple(args, "OO!O!i|O!", &scope, &PyList_Type, &names, &PyList_Type, &vars, &max_to_keep,
                        &PyList_Type, &tables))
    return NULL;
  const struct TFC_Scope *sc = pywrap_scope(scope);
  if (!sc) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(vars);
  if (PyList_GET_SIZE(names) != n) {
    PyErr_SetString(PyExc_ValueError, "names and variables differ in length");
    return NULL;
  }
  const char **cn = calloc((size_t)n + 1, sizeof *cn);
  TF_Output *outs = calloc((size_t)n + 1, sizeof *outs);
  Py_ssize_t nt = tables ? PyList_GET_SIZE(tables) : 0;
  TFC_SaverTable *ct = calloc((size_t)nt + 1, sizeof *ct);
  PyObject *r = NULL;
  if (!cn || !outs || !ct) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!(cn[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(names, i)))) goto done;
    if (pywrap_output(PyList_GET_ITEM(vars, i), &outs[i]) < 0) goto done;
  }
  for (Py_ssize_t i = 0; i < nt; i++) {
    PyObject *t = PyList_GET_ITEM(tables, i);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 4) {
      PyErr_SetString(PyExc_TypeError, "a table is (name, table, keys, values)");
      goto done;
    }
    if (!(ct[i].name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(t, 0))) ||
        pywrap_output(PyTuple_GET_ITEM(t, 1), &ct[i].table) < 0 ||
        pywrap_output(PyTuple_GET_ITEM(t, 2), &ct[i].keys) < 0 ||
        pywrap_output(PyTuple_GET_ITEM(t, 3), &ct[i].values) < 0)
      goto done;
  }
  TF_Status *s = TF_NewStatus();
  if (!s) {
    PyErr_NoMemory();
    goto done;
  }
  TFC_Saver *sv = TFC_NewSaverWithTables(sc, cn, outs, (int)n, ct, (int)nt, max_to_keep, s);
  if (!pywrap_raise_status(s)) r = sv ? saver_wrap(pywrap_scope_graph(scope), sv) : PyErr_NoMemory();
  TF_DeleteStatus(s);
done:
  free(cn);
  free(outs);
  free(ct);
  return r;
}

/* saver_from_def(graph, filename_tensor_name, save_tensor_name, restore_op_name, max_to_keep,
 * keep_checkpoint_every_n_hours) -> Saver */
static PyObject *saver_from_def(PyObject *self, PyObject *args) {
  PyObject *g;
  TFC_SaverDef d = {0};
  if (!PyArg_ParseTuple(args, "O!sssid", &PyTFGraph_Type, &g, &d.filename_tensor_name, &d.save_tensor_name,
                        &d.restore_op_name, &d.max_to_keep, &d.keep_checkpoint_every_n_hours))
    return NULL;
  d.version = 2;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  TFC_Saver *sv = TFC_NewSaverFromDef(((PyTFGraph *)g)->graph, &d, s);
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) r = sv ? saver_wrap(g, sv) : PyErr_NoMemory();
  TF_DeleteStatus(s);
  return r;
}

/* ---------------------------------------------------------------- state files */

/* get_checkpoint_state(dir, latest_filename) -> None or (model_checkpoint_path, [path, ...]) */
static PyObject *get_checkpoint_state(PyObject *self, PyObject *args) {
  const char *dir, *latest = NULL;
  if (!PyArg_ParseTuple(args, "s|z", &dir, &latest)) return NULL;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  TFC_CheckpointState *st;
  Py_BEGIN_ALLOW_THREADS
  st = TFC_GetCheckpointState(dir, latest, s);
  Py_END_ALLOW_THREADS
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) {
    if (!st) {
      {
        Py_INCREF(Py_None);
        r = Py_None;
      }
    } else {
      int n = TFC_CheckpointStateNumPaths(st);
      PyObject *l = PyList_New(n);
      for (int i = 0; l && i < n; i++) {
        PyObject *p = PyUnicode_FromString(TFC_CheckpointStatePath(st, i));
        if (!p) Py_CLEAR(l);
        else PyList_SET_ITEM(l, i, p);
      }
      if (l) r = Py_BuildValue("(sN)", TFC_CheckpointStateModelPath(st), l);
    }
  }
  TFC_DeleteCheckpointState(st);
  TF_DeleteStatus(s);
  return r;
}

/* update_checkpoint_state(dir, model_path, [path, ...], latest_filename, paths_as_given) */
static PyObject *update_checkpoint_state(PyObject *self, PyObject *args) {
  const char *dir, *model, *latest = NULL;
  PyObject *paths;
  int as_given;
  if (!PyArg_ParseTuple(args, "ssO!zp", &dir, &model, &PyList_Type, &paths, &latest, &as_given)) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(paths);
  const char **cp = calloc((size_t)n + 1, sizeof *cp);
  if (!cp) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(cp[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(paths, i)))) {
      free(cp);
      return NULL;
    }
  TF_Status *s = TF_NewStatus();
  if (!s) {
    free(cp);
    return PyErr_NoMemory();
  }
  TFC_UpdateCheckpointState(dir, model, cp, (int)n, latest, as_given, s);
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  free(cp);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- meta graphs */

/* Adds one (key, kind, values) collection: kind 1 names (str), 2 bytes, 3 ints, 4 floats. */
static int add_collection(TFC_MetaGraph *mg, PyObject *item, TF_Status *s) {
  const char *key;
  int kind;
  PyObject *values;
  if (!PyArg_ParseTuple(item, "siO!", &key, &kind, &PyList_Type, &values)) return -1;
  Py_ssize_t n = PyList_GET_SIZE(values);
  int rc = -1;
  const void **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
  size_t *lens = calloc((size_t)n + 1, sizeof *lens);
  int64_t *ints = calloc((size_t)n + 1, sizeof *ints);
  float *floats = calloc((size_t)n + 1, sizeof *floats);
  if (!ptrs || !lens || !ints || !floats) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *v = PyList_GET_ITEM(values, i);
    if (kind == TFC_COLLECTION_NODE_LIST) {
      if (!(ptrs[i] = PyUnicode_AsUTF8(v))) goto done;
    } else if (kind == TFC_COLLECTION_BYTES_LIST) {
      char *b;
      Py_ssize_t len;
      if (PyBytes_AsStringAndSize(v, &b, &len) < 0) goto done;
      ptrs[i] = b;
      lens[i] = (size_t)len;
    } else if (kind == TFC_COLLECTION_INT64_LIST) {
      ints[i] = PyLong_AsLongLong(v);
      if (ints[i] == -1 && PyErr_Occurred()) goto done;
    } else {
      double d = PyFloat_AsDouble(v);
      if (d == -1.0 && PyErr_Occurred()) goto done;
      floats[i] = (float)d;
    }
  }
  if (kind == TFC_COLLECTION_NODE_LIST) TFC_MetaGraphAddNodeList(mg, key, (const char *const *)ptrs, (int)n, s);
  else if (kind == TFC_COLLECTION_BYTES_LIST) TFC_MetaGraphAddBytesList(mg, key, ptrs, lens, (int)n, s);
  else if (kind == TFC_COLLECTION_INT64_LIST) TFC_MetaGraphAddInt64List(mg, key, ints, (int)n, s);
  else TFC_MetaGraphAddFloatList(mg, key, floats, (int)n, s);
  rc = pywrap_raise_status(s) ? -1 : 0;
done:
  free(ptrs);
  free(lens);
  free(ints);
  free(floats);
  return rc;
}

/* export_meta_graph(graph, saver_def tuple or None, collection_list or None, flags,
 * [(key, kind, values), ...]) -> bytes. saver_def: (filename_tensor_name, save_tensor_name,
 * restore_op_name, max_to_keep, sharded, keep_checkpoint_every_n_hours, version). */
static PyObject *export_meta_graph(PyObject *self, PyObject *args) {
  PyObject *g, *sd, *keys, *extra;
  int flags;
  if (!PyArg_ParseTuple(args, "O!OOiO!", &PyTFGraph_Type, &g, &sd, &keys, &flags, &PyList_Type, &extra)) return NULL;
  TFC_SaverDef d = {0};
  if (sd != Py_None && !PyArg_ParseTuple(sd, "sssipdi", &d.filename_tensor_name, &d.save_tensor_name,
                                         &d.restore_op_name, &d.max_to_keep, &d.sharded,
                                         &d.keep_checkpoint_every_n_hours, &d.version))
    return NULL;
  Py_ssize_t nk = 0;
  const char **names = NULL;
  if (keys != Py_None) {
    if (!PyList_Check(keys)) {
      PyErr_SetString(PyExc_TypeError, "collection_list must be a list or None");
      return NULL;
    }
    nk = PyList_GET_SIZE(keys);
    if (!(names = calloc((size_t)nk + 1, sizeof *names))) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < nk; i++)
      if (!(names[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(keys, i)))) {
        free(names);
        return NULL;
      }
  }
  TF_Status *s = TF_NewStatus();
  TF_Buffer *out = TF_NewBuffer();
  PyObject *r = NULL;
  TFC_MetaGraph *mg = NULL;
  if (!s || !out) {
    PyErr_NoMemory();
    goto done;
  }
  mg = TFC_ExportMetaGraph(((PyTFGraph *)g)->graph, sd == Py_None ? NULL : &d, names, (int)nk, flags, s);
  if (pywrap_raise_status(s)) goto done;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(extra); i++)
    if (add_collection(mg, PyList_GET_ITEM(extra, i), s) < 0) goto done;
  TFC_MetaGraphToBuffer(mg, out, s);
  if (!pywrap_raise_status(s)) r = PyBytes_FromStringAndSize(out->data, (Py_ssize_t)out->length);
done:
  TFC_DeleteMetaGraph(mg);
  TF_DeleteBuffer(out);
  TF_DeleteStatus(s);
  free(names);
  return r;
}

/* import_meta_graph(graph, bytes, import_scope, flags): the graph part of TF's import. */
static PyObject *import_meta_graph(PyObject *self, PyObject *args) {
  PyObject *g;
  const char *data, *scope = NULL;
  Py_ssize_t len;
  int flags;
  if (!PyArg_ParseTuple(args, "O!y#zi", &PyTFGraph_Type, &g, &data, &len, &scope, &flags)) return NULL;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  TFC_MetaGraph *mg = TFC_NewMetaGraphFromBuffer(data, (size_t)len, s);
  if (mg) TFC_ImportMetaGraph(((PyTFGraph *)g)->graph, mg, scope, flags, s);
  int bad = pywrap_raise_status(s);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- SavedModels */

/* The (key, "op:k") pairs of list l into keys/outs (n entries; the strings borrowed from l). */
static int tensor_pairs(TF_Graph *g, PyObject *l, const char **keys, TF_Output *outs) {
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {
    const char *name;
    if (!PyArg_ParseTuple(PyList_GET_ITEM(l, i), "ss", &keys[i], &name)) return -1;
    const char *colon = strrchr(name, ':');
    size_t n = colon ? (size_t)(colon - name) : strlen(name);
    char op[1024];
    if (n >= sizeof op) n = sizeof op - 1;
    memcpy(op, name, n);
    op[n] = 0;
    outs[i].oper = TF_GraphOperationByName(g, op);
    outs[i].index = colon ? atoi(colon + 1) : 0;
    if (!outs[i].oper) {
      PyErr_Format(PyExc_KeyError, "The name '%s' refers to a Tensor which does not exist.", name);
      return -1;
    }
  }
  return 0;
}

#define BUILDER_CAPSULE "tfc.SavedModelBuilder"

static void builder_capsule_free(PyObject *cap) {
  TFC_DeleteSavedModelBuilder(PyCapsule_GetPointer(cap, BUILDER_CAPSULE));
}

/* saved_model_builder(export_dir): TFC_NewSavedModelBuilder, as a capsule that deletes it. */
static PyObject *saved_model_builder(PyObject *self, PyObject *args) {
  const char *dir;
  if (!PyArg_ParseTuple(args, "s", &dir)) return NULL;
  TF_Status *s = TF_NewStatus();
  TFC_SavedModelBuilder *b = TFC_NewSavedModelBuilder(dir, s);
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) {
    r = PyCapsule_New(b, BUILDER_CAPSULE, builder_capsule_free);
    if (!r) TFC_DeleteSavedModelBuilder(b);
  }
  TF_DeleteStatus(s);
  return r;
}

/* The builder's add_collections hook: the (key, kind, values) list of collections only Python
 * holds (as export_meta_graph's), added with the GIL taken back. */
static void add_python_collections(TFC_MetaGraph *mg, void *arg, TF_Status *s) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *extra = arg;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(extra); i++)
    if (add_collection(mg, PyList_GET_ITEM(extra, i), s) < 0) {
      if (TF_GetCode(s) == TF_OK) TF_SetStatus(s, TF_INVALID_ARGUMENT, "bad Python collection");
      PyErr_Clear();
      break;
    }
  PyGILState_Release(gil);
}

/* saved_model_add(builder, session or None, graph, saver or None, [tag, ...],
 * [(key, method or None, [(input key, tensor name)], [(output key, tensor name)])], main_op or
 * None, [asset tensor name, ...], [(key, kind, values), ...]): TFC_SavedModelBuilderAddMetaGraph
 * AndVariables with a session, TFC_SavedModelBuilderAddMetaGraph without; the last list is the
 * collections only Python holds (export_meta_graph's). */
static PyObject *saved_model_add(PyObject *self, PyObject *args) {
  PyObject *cap, *sess, *g, *sv, *tags, *sigs, *assets, *extra;
  const char *main_op = NULL;
  if (!PyArg_ParseTuple(args, "OOO!OO!O!zO!O!", &cap, &sess, &PyTFGraph_Type, &g, &sv, &PyList_Type, &tags,
                        &PyList_Type, &sigs, &main_op, &PyList_Type, &assets, &PyList_Type, &extra))
    return NULL;
  TFC_SavedModelBuilder *b = PyCapsule_GetPointer(cap, BUILDER_CAPSULE);
  if (!b) return NULL;
  TF_Session *session = NULL;
  if (sess != Py_None && !(session = pywrap_session(sess))) return NULL;
  if (sv != Py_None && !PyObject_TypeCheck(sv, &PyTFSaver_Type)) {
    PyErr_SetString(PyExc_TypeError, "saver must be a _pywrap.Saver or None");
    return NULL;
  }
  TF_Graph *graph = ((PyTFGraph *)g)->graph;
  Py_ssize_t nt = PyList_GET_SIZE(tags), ns = PyList_GET_SIZE(sigs), na = PyList_GET_SIZE(assets);
  const char **ctags = calloc((size_t)nt + 1, sizeof *ctags);
  TFC_SignatureSpec *specs = calloc((size_t)ns + 1, sizeof *specs);
  TF_Output *couts = calloc((size_t)na + 1, sizeof *couts);
  const char **akeys = calloc((size_t)na + 1, sizeof *akeys);
  PyObject *r = NULL, *apairs = NULL;
  if (!ctags || !specs || !couts || !akeys) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < nt; i++)
    if (!(ctags[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(tags, i)))) goto done;
  /* the asset names as (name, name) pairs for tensor_pairs */
  if (!(apairs = PyList_New(na))) goto done;
  for (Py_ssize_t i = 0; i < na; i++) {
    PyObject *n = PyList_GET_ITEM(assets, i);
    PyObject *pair = PyTuple_Pack(2, n, n);
    if (!pair) goto done;
    PyList_SET_ITEM(apairs, i, pair);
  }
  if (tensor_pairs(graph, apairs, akeys, couts)) goto done;
  for (Py_ssize_t i = 0; i < ns; i++) {
    PyObject *in, *out;
    TFC_SignatureSpec *sp = &specs[i];
    if (!PyArg_ParseTuple(PyList_GET_ITEM(sigs, i), "szO!O!", &sp->key, &sp->method_name, &PyList_Type, &in,
                          &PyList_Type, &out))
      goto done;
    sp->num_inputs = (int)PyList_GET_SIZE(in);
    sp->num_outputs = (int)PyList_GET_SIZE(out);
    sp->input_keys = calloc((size_t)sp->num_inputs + 1, sizeof(char *));
    sp->inputs = calloc((size_t)sp->num_inputs + 1, sizeof(TF_Output));
    sp->output_keys = calloc((size_t)sp->num_outputs + 1, sizeof(char *));
    sp->outputs = calloc((size_t)sp->num_outputs + 1, sizeof(TF_Output));
    if (!sp->input_keys || !sp->inputs || !sp->output_keys || !sp->outputs) {
      PyErr_NoMemory();
      goto done;
    }
    if (tensor_pairs(graph, in, (const char **)sp->input_keys, (TF_Output *)sp->inputs) ||
        tensor_pairs(graph, out, (const char **)sp->output_keys, (TF_Output *)sp->outputs))
      goto done;
  }
  TF_Status *s = TF_NewStatus();
  if (!s) {
    PyErr_NoMemory();
    goto done;
  }
  TFC_Saver *csv = sv == Py_None ? NULL : ((PyTFSaver *)sv)->saver;
  TFC_SavedModelMetaGraphSpec spec = {ctags, (int)nt, specs, (int)ns, main_op, couts, (int)na,
                                      PyList_GET_SIZE(extra) ? add_python_collections : NULL, extra};
  Py_BEGIN_ALLOW_THREADS
  if (session)
    TFC_SavedModelBuilderAddMetaGraphAndVariables(b, session, graph, csv, &spec, s);
  else
    TFC_SavedModelBuilderAddMetaGraph(b, graph, csv, &spec, s);
  Py_END_ALLOW_THREADS
  if (!pywrap_raise_status(s)) {
    Py_INCREF(Py_None);
    r = Py_None;
  }
  TF_DeleteStatus(s);
done:
  for (Py_ssize_t i = 0; specs && i < ns; i++) {
    free((void *)specs[i].input_keys);
    free((void *)specs[i].inputs);
    free((void *)specs[i].output_keys);
    free((void *)specs[i].outputs);
  }
  Py_XDECREF(apairs);
  free(specs);
  free(ctags);
  free(couts);
  free(akeys);
  return r;
}

/* saved_model_save(builder, as_text): TFC_SavedModelBuilderSave. */
static PyObject *saved_model_save(PyObject *self, PyObject *args) {
  PyObject *cap;
  int as_text;
  if (!PyArg_ParseTuple(args, "Op", &cap, &as_text)) return NULL;
  TFC_SavedModelBuilder *b = PyCapsule_GetPointer(cap, BUILDER_CAPSULE);
  if (!b) return NULL;
  TF_Status *s = TF_NewStatus();
  Py_BEGIN_ALLOW_THREADS
  TFC_SavedModelBuilderSave(b, as_text, s);
  Py_END_ALLOW_THREADS
  int bad = pywrap_raise_status(s);
  TF_DeleteStatus(s);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

/* read_saved_model(export_dir): the SavedModel's binary bytes, from saved_model.pb or the text
 * form saved_model.pbtxt (TFC_ReadSavedModel, TFC_SavedModelToBuffer). */
static PyObject *read_saved_model(PyObject *self, PyObject *args) {
  const char *dir;
  if (!PyArg_ParseTuple(args, "s", &dir)) return NULL;
  TF_Status *s = TF_NewStatus();
  TF_Buffer *buf = TF_NewBuffer();
  TFC_SavedModel *sm;
  Py_BEGIN_ALLOW_THREADS
  sm = TFC_ReadSavedModel(dir, s);
  if (sm) TFC_SavedModelToBuffer(sm, buf, s);
  Py_END_ALLOW_THREADS
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) r = PyBytes_FromStringAndSize(buf->data, (Py_ssize_t)buf->length);
  TFC_DeleteSavedModel(sm);
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(s);
  return r;
}

/* ---------------------------------------------------------------- checkpoint readers */

typedef struct {
  PyObject_HEAD
  TFC_CheckpointReader *reader;
} PyTFReader;

static void reader_dealloc(PyTFReader *r) {
  TFC_DeleteCheckpointReader(r->reader);
  Py_TYPE(r)->tp_free((PyObject *)r);
}

/* names() -> [name, ...] in the index's order */
static PyObject *reader_names(PyTFReader *self, PyObject *unused) {
  int n = TFC_CheckpointReaderNumTensors(self->reader);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *v = PyUnicode_FromString(TFC_CheckpointReaderTensorName(self->reader, i));
    if (!v) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, v);
  }
  return l;
}

/* info(name) -> (dtype, [dim, ...]) */
static PyObject *reader_info(PyTFReader *self, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  int64_t dims[64];
  TF_DataType dt = 0;
  int rank = TFC_CheckpointReaderTensorInfo(self->reader, name, &dt, dims, 64, s);
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) {
    PyObject *l = PyList_New(rank);
    for (int i = 0; l && i < rank; i++) {
      PyObject *v = PyLong_FromLongLong(dims[i]);
      if (!v) Py_CLEAR(l);
      else PyList_SET_ITEM(l, i, v);
    }
    if (l) r = Py_BuildValue("(iN)", (int)dt, l);
  }
  TF_DeleteStatus(s);
  return r;
}

/* get(name) -> ndarray (numpy scalar for rank 0) */
static PyObject *reader_get(PyTFReader *self, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  TF_Tensor *t;
  Py_BEGIN_ALLOW_THREADS
  t = TFC_CheckpointReaderGetTensor(self->reader, name, s);
  Py_END_ALLOW_THREADS
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) r = pywrap_ndarray_from_tensor(t);
  else TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return r;
}

static PyMethodDef reader_methods[] = {
    {"names", (PyCFunction)reader_names, METH_NOARGS, "The tensor names."},
    {"info", (PyCFunction)reader_info, METH_VARARGS, "TFC_CheckpointReaderTensorInfo."},
    {"get", (PyCFunction)reader_get, METH_VARARGS, "TFC_CheckpointReaderGetTensor."},
    {NULL, NULL, 0, NULL}};

PyTypeObject PyTFReader_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tfc._pywrap.CheckpointReader",
    .tp_basicsize = sizeof(PyTFReader),
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = reader_methods,
    .tp_doc = "A TFC_CheckpointReader (include/tfc/saver.h).",
};

/* checkpoint_reader(prefix) -> CheckpointReader */
static PyObject *checkpoint_reader(PyObject *self, PyObject *args) {
  const char *prefix;
  if (!PyArg_ParseTuple(args, "s", &prefix)) return NULL;
  TF_Status *s = TF_NewStatus();
  if (!s) return PyErr_NoMemory();
  TFC_CheckpointReader *cr;
  Py_BEGIN_ALLOW_THREADS
  cr = TFC_NewCheckpointReader(prefix, s);
  Py_END_ALLOW_THREADS
  PyObject *r = NULL;
  if (!pywrap_raise_status(s)) {
    PyTFReader *o = PyObject_New(PyTFReader, &PyTFReader_Type);
    if (o) o->reader = cr;
    else TFC_DeleteCheckpointReader(cr);
    r = (PyObject *)o;
  }
  TF_DeleteStatus(s);
  return r;
}

PyMethodDef pywrap_saver_methods[] = {
    {"new_saver", new_saver, METH_VARARGS, "TFC_NewSaver."},
    {"saver_from_def", saver_from_def, METH_VARARGS, "TFC_NewSaverFromDef."},
    {"get_checkpoint_state", get_checkpoint_state, METH_VARARGS, "TFC_GetCheckpointState."},
    {"update_checkpoint_state", update_checkpoint_state, METH_VARARGS, "TFC_UpdateCheckpointState."},
    {"export_meta_graph", export_meta_graph, METH_VARARGS, "TFC_ExportMetaGraph and TFC_MetaGraphAdd*List."},
    {"import_meta_graph", import_meta_graph, METH_VARARGS, "TFC_ImportMetaGraph."},
    {"saved_model_builder", saved_model_builder, METH_VARARGS, "TFC_NewSavedModelBuilder."},
    {"saved_model_add", saved_model_add, METH_VARARGS, "TFC_SavedModelBuilderAddMetaGraph[AndVariables]."},
    {"saved_model_save", saved_model_save, METH_VARARGS, "TFC_SavedModelBuilderSave."},
    {"read_saved_model", read_saved_model, METH_VARARGS, "TFC_ReadSavedModel as binary bytes."},
    {"checkpoint_reader", checkpoint_reader, METH_VARARGS, "TFC_NewCheckpointReader."},
    {NULL, NULL, 0, NULL}};
