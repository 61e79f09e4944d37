/* tfc._pywrap op table: TF_GetAllOpList's serialized OpList read into plain Python data.
 *
 * op_list() -> [ {"name", "input_arg": [arg], "output_arg": [arg], "attr": [attr],
 *                 "is_stateful", "is_commutative", "is_aggregate"} ]
 *   arg  = {"name", "type" (int), "type_attr", "number_attr", "type_list_attr", "is_ref"}
 *   attr = {"name", "type" (e.g. "list(int)"), "default" (absent when none), "has_minimum",
 *           "minimum", "allowed_values" (list, absent when none)}
 * An AttrValue (a default or allowed values) becomes: bytes (s), int (i or type), float,
 * bool, a shape (None for unknown rank, else a tuple of int with -1 unknown), a list of those
 * (a ListValue), or the serialized TensorProto bytes for a tensor.
 *
 * A tiny protobuf wire-format reader (varint, 64-bit, length-delimited, 32-bit) is all this
 * needs, so the protobuf package is not required. Malformed input raises ValueError. */
#include "pywrap.h"

typedef struct {
  const uint8_t *p, *end;
} Reader;

static int rd_varint(Reader *r, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (r->p >= r->end) return -1;
    uint8_t b = *r->p++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return 0;
  }
  return -1;
}

/* Next field: its number and wire type; for length-delimited fields sub holds the bytes, for
 * varints v holds the value, for fixed32 v holds the 4 bytes. 1 at the end, -1 malformed. */
static int rd_field(Reader *r, int *num, int *wt, uint64_t *v, Reader *sub) {
  if (r->p >= r->end) return 1;
  uint64_t key;
  if (rd_varint(r, &key)) return -1;
  *num = (int)(key >> 3);
  *wt = (int)(key & 7);
  switch (*wt) {
    case 0: return rd_varint(r, v);
    case 1:
      if (r->end - r->p < 8) return -1;
      memcpy(v, r->p, 8);
      r->p += 8;
      return 0;
    case 2:
      if (rd_varint(r, v) || *v > (uint64_t)(r->end - r->p)) return -1;
      sub->p = r->p;
      sub->end = r->p + *v;
      r->p += *v;
      return 0;
    case 5: {
      if (r->end - r->p < 4) return -1;
      uint32_t u;
      memcpy(&u, r->p, 4);
      *v = u;
      r->p += 4;
      return 0;
    }
    default: return -1;
  }
}

static PyObject *malformed(void) {
  PyErr_SetString(PyExc_ValueError, "malformed OpList");
  return NULL;
}

static int dict_set(PyObject *d, const char *k, PyObject *v) {
  if (!v) return -1;
  int rc = PyDict_SetItemString(d, k, v);
  Py_DECREF(v);
  return rc;
}

static int list_append(PyObject *l, PyObject *v) {
  if (!v) return -1;
  int rc = PyList_Append(l, v);
  Py_DECREF(v);
  return rc;
}

static PyObject *str_of(Reader *s) { return PyUnicode_DecodeUTF8((const char *)s->p, s->end - s->p, "replace"); }
static PyObject *bytes_of(Reader *s) { return PyBytes_FromStringAndSize((const char *)s->p, s->end - s->p); }

static PyObject *read_shape(Reader r) {
  PyObject *dims = PyList_New(0);
  int num, wt, unknown = 0;
  uint64_t v;
  Reader sub;
  int rc;
  while (dims && !(rc = rd_field(&r, &num, &wt, &v, &sub))) {
    if (num == 2 && wt == 2) {
      int64_t size = 0;
      int n2, w2;
      uint64_t v2;
      Reader s2;
      while (!(rc = rd_field(&sub, &n2, &w2, &v2, &s2)))
        if (n2 == 1 && w2 == 0) size = (int64_t)v2;
      if (rc < 0 || list_append(dims, PyLong_FromLongLong(size)) < 0) Py_CLEAR(dims);
    } else if (num == 3 && wt == 0) {
      unknown = v != 0;
    }
  }
  if (!dims) return NULL;
  if (rc < 0) {
    Py_DECREF(dims);
    return malformed();
  }
  if (unknown) {
    Py_DECREF(dims);
    Py_RETURN_NONE;
  }
  PyObject *t = PyList_AsTuple(dims);
  Py_DECREF(dims);
  return t;
}

static float f32_of(uint64_t v) {
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Appends packed or unpacked scalars of one ListValue field to l. */
static int list_scalars(PyObject *l, int num, int wt, uint64_t v, Reader *sub) {
  if (wt == 2 && (num == 3 || num == 4 || num == 5 || num == 6)) { /* packed */
    Reader p = *sub;
    while (p.p < p.end) {
      uint64_t x;
      if (num == 4) {
        if (p.end - p.p < 4) return -1;
        uint32_t u;
        memcpy(&u, p.p, 4);
        p.p += 4;
        x = u;
      } else if (rd_varint(&p, &x)) {
        return -1;
      }
      if (list_scalars(l, num, num == 4 ? 5 : 0, x, NULL) < 0) return -1;
    }
    return 0;
  }
  switch (num) {
    case 2: return list_append(l, bytes_of(sub));
    case 3: case 6: return list_append(l, PyLong_FromLongLong((int64_t)v));
    case 4: return list_append(l, PyFloat_FromDouble(f32_of(v)));
    case 5: return list_append(l, PyBool_FromLong(v != 0));
    case 7: return list_append(l, read_shape(*sub));
    case 8: return list_append(l, bytes_of(sub));
    default: return 0;
  }
}

static PyObject *read_attr_value(Reader r) {
  int num, wt, rc;
  uint64_t v;
  Reader sub;
  PyObject *val = NULL;
  while (!(rc = rd_field(&r, &num, &wt, &v, &sub))) {
    Py_CLEAR(val);
    switch (num) {
      case 1: {
        val = PyList_New(0);
        int n2, w2;
        uint64_t v2;
        Reader s2;
        while (val && !(rc = rd_field(&sub, &n2, &w2, &v2, &s2)))
          if (list_scalars(val, n2, w2, v2, &s2) < 0) Py_CLEAR(val);
        if (rc < 0) Py_CLEAR(val);
        break;
      }
      case 2: val = bytes_of(&sub); break;
      case 3: case 6: val = PyLong_FromLongLong((int64_t)v); break;
      case 4: val = PyFloat_FromDouble(f32_of(v)); break;
      case 5: val = PyBool_FromLong(v != 0); break;
      case 7: val = read_shape(sub); break;
      case 8: val = bytes_of(&sub); break;
      default: Py_INCREF(Py_None); val = Py_None; break;
    }
    if (!val) return PyErr_Occurred() ? NULL : malformed();
  }
  if (rc < 0) {
    Py_XDECREF(val);
    return malformed();
  }
  if (!val) Py_RETURN_NONE;
  return val;
}

static PyObject *read_arg(Reader r) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (dict_set(d, "type", PyLong_FromLong(0)) || dict_set(d, "is_ref", PyBool_FromLong(0))) goto fail;
  static const char *strs[] = {NULL, "name", NULL, NULL, "type_attr", "number_attr", "type_list_attr"};
  for (int i = 4; i <= 6; i++)
    if (dict_set(d, strs[i], PyUnicode_FromString(""))) goto fail;
  int num, wt, rc;
  uint64_t v;
  Reader sub;
  while (!(rc = rd_field(&r, &num, &wt, &v, &sub))) {
    if ((num == 1 || (num >= 4 && num <= 6)) && wt == 2) {
      if (dict_set(d, strs[num], str_of(&sub))) goto fail;
    } else if (num == 3 && wt == 0) {
      if (dict_set(d, "type", PyLong_FromLongLong((int64_t)v))) goto fail;
    } else if (num == 16 && wt == 0) {
      if (dict_set(d, "is_ref", PyBool_FromLong(v != 0))) goto fail;
    }
  }
  if (rc < 0) {
    malformed();
    goto fail;
  }
  return d;
fail:
  Py_DECREF(d);
  return NULL;
}

static PyObject *read_attr_def(Reader r) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (dict_set(d, "has_minimum", PyBool_FromLong(0)) || dict_set(d, "minimum", PyLong_FromLong(0))) goto fail;
  int num, wt, rc;
  uint64_t v;
  Reader sub;
  while (!(rc = rd_field(&r, &num, &wt, &v, &sub))) {
    int bad = 0;
    if (num == 1 && wt == 2) bad = dict_set(d, "name", str_of(&sub));
    else if (num == 2 && wt == 2) bad = dict_set(d, "type", str_of(&sub));
    else if (num == 3 && wt == 2) bad = dict_set(d, "default", read_attr_value(sub));
    else if (num == 5 && wt == 0) bad = dict_set(d, "has_minimum", PyBool_FromLong(v != 0));
    else if (num == 6 && wt == 0) bad = dict_set(d, "minimum", PyLong_FromLongLong((int64_t)v));
    else if (num == 7 && wt == 2) bad = dict_set(d, "allowed_values", read_attr_value(sub));
    if (bad) goto fail;
  }
  if (rc < 0) {
    malformed();
    goto fail;
  }
  return d;
fail:
  Py_DECREF(d);
  return NULL;
}

static PyObject *read_op_def(Reader r) {
  PyObject *d = PyDict_New(), *ins = PyList_New(0), *outs = PyList_New(0), *attrs = PyList_New(0);
  if (!d || !ins || !outs || !attrs) goto fail;
  if (PyDict_SetItemString(d, "input_arg", ins) || PyDict_SetItemString(d, "output_arg", outs) ||
      PyDict_SetItemString(d, "attr", attrs))
    goto fail;
  static const struct { int num; const char *key; } flags[] = {
      {16, "is_aggregate"}, {17, "is_stateful"}, {18, "is_commutative"}, {19, "allows_uninitialized_input"}};
  for (size_t i = 0; i < 4; i++)
    if (dict_set(d, flags[i].key, PyBool_FromLong(0))) goto fail;
  int num, wt, rc;
  uint64_t v;
  Reader sub;
  while (!(rc = rd_field(&r, &num, &wt, &v, &sub))) {
    int bad = 0;
    if (num == 1 && wt == 2) bad = dict_set(d, "name", str_of(&sub));
    else if (num == 2 && wt == 2) bad = list_append(ins, read_arg(sub));
    else if (num == 3 && wt == 2) bad = list_append(outs, read_arg(sub));
    else if (num == 4 && wt == 2) bad = list_append(attrs, read_attr_def(sub));
    else if (wt == 0)
      for (size_t i = 0; i < 4; i++)
        if (flags[i].num == num) bad = dict_set(d, flags[i].key, PyBool_FromLong(v != 0));
    if (bad) goto fail;
  }
  if (rc < 0) {
    malformed();
    goto fail;
  }
  Py_DECREF(ins);
  Py_DECREF(outs);
  Py_DECREF(attrs);
  return d;
fail:
  Py_XDECREF(d);
  Py_XDECREF(ins);
  Py_XDECREF(outs);
  Py_XDECREF(attrs);
  return NULL;
}

static PyObject *parse_op_list(const void *data, size_t len) {
  Reader r = {data, (const uint8_t *)data + len};
  PyObject *l = PyList_New(0);
  int num, wt, rc;
  uint64_t v;
  Reader sub;
  while (l && !(rc = rd_field(&r, &num, &wt, &v, &sub)))
    if (num == 1 && wt == 2 && list_append(l, read_op_def(sub)) < 0) Py_CLEAR(l);
  if (l && rc < 0) {
    Py_DECREF(l);
    return malformed();
  }
  return l;
}

static PyObject *op_list(PyObject *self, PyObject *unused) {
  TF_Buffer *b = TF_GetAllOpList();
  if (!b) return pywrap_raise_code(TF_INTERNAL, "TF_GetAllOpList failed");
  PyObject *l = parse_op_list(b->data, b->length);
  TF_DeleteBuffer(b);
  return l;
}

/* parse_attr_value(bytes) -> the Python value of one serialized AttrValue (Operation.get_attr). */
static PyObject *parse_attr_value(PyObject *self, PyObject *arg) {
  char *buf;
  Py_ssize_t len;
  if (PyBytes_AsStringAndSize(arg, &buf, &len) < 0) return NULL;
  Reader r = {(const uint8_t *)buf, (const uint8_t *)buf + len};
  return read_attr_value(r);
}

PyMethodDef pywrap_oplist_methods[] = {
    {"op_list", op_list, METH_NOARGS, "The op table as Python data."},
    {"parse_attr_value", parse_attr_value, METH_O, "One serialized AttrValue as Python data."},
    {NULL, NULL, 0, NULL}};
