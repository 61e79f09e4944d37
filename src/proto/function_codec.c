/*
 * function_codec — FunctionDef canonicalization, FunctionDef.attr access and the
 * FunctionDefLibrary codec; see function_codec.h.
 */
#include "proto/function_codec.h"

#include <stdlib.h>
#include <string.h>

#include "proto/pb_util.h"
#include "tensorflow/attr_value.pb-c.h"

/* Every string-keyed map entry protobuf-c generates starts with the message base and the key. */
typedef struct str_entry {
  ProtobufCMessage base;
  char *key;
} str_entry;

static int cmp_str_entry(const void *a, const void *b) {
  return strcmp((*(str_entry *const *)a)->key, (*(str_entry *const *)b)->key);
}

static int cmp_arg_attr(const void *a, const void *b) {
  uint32_t x = (*(Tensorflow__FunctionDef__ArgAttrEntry *const *)a)->key;
  uint32_t y = (*(Tensorflow__FunctionDef__ArgAttrEntry *const *)b)->key;
  return (x > y) - (x < y);
}

static void sort_str_map(void *entries, size_t n) {
  if (n > 1) qsort(entries, n, sizeof(void *), cmp_str_entry);
}

int tfc_functiondef_pack(Tensorflow__FunctionDef *fd, void **out, size_t *out_len, tfc_status *s) {
  sort_str_map(fd->attr, fd->n_attr);
  sort_str_map(fd->ret, fd->n_ret);
  sort_str_map(fd->control_ret, fd->n_control_ret);
  if (fd->n_arg_attr > 1) qsort(fd->arg_attr, fd->n_arg_attr, sizeof *fd->arg_attr, cmp_arg_attr);
  for (size_t i = 0; i < fd->n_arg_attr; i++) {
    if (fd->arg_attr[i]->value) sort_str_map(fd->arg_attr[i]->value->attr, fd->arg_attr[i]->value->n_attr);
  }
  for (size_t i = 0; i < fd->n_node_def; i++) sort_str_map(fd->node_def[i]->attr, fd->node_def[i]->n_attr);
  /* TF writes every map entry's key, 0 included, which a proto3 encoder omits: arg_attr
   * (field 7, the last field, so appended in field order) is framed here. */
  size_t n_arg = fd->n_arg_attr;
  Tensorflow__FunctionDef__ArgAttrEntry **args = fd->arg_attr;
  fd->n_arg_attr = 0;
  fd->arg_attr = NULL;
  size_t head = tensorflow__function_def__get_packed_size(fd), cap = head;
  for (size_t i = 0; i < n_arg; i++)
    cap += 32 + (args[i]->value ? protobuf_c_message_get_packed_size(&args[i]->value->base) : 0);
  uint8_t *buf = malloc(cap ? cap : 1);
  if (!buf) {
    fd->n_arg_attr = n_arg;
    fd->arg_attr = args;
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory serializing a FunctionDef");
  }
  size_t k = tensorflow__function_def__pack(fd, buf);
  for (size_t i = 0; i < n_arg; i++) {
    size_t vlen = args[i]->value ? protobuf_c_message_get_packed_size(&args[i]->value->base) : 0;
    uint8_t key[10];
    size_t klen = tfc_pb_put_varint(key, args[i]->key);
    buf[k++] = (7 << 3) | 2;
    k += tfc_pb_put_varint(buf + k, 1 + klen + 1 + tfc_pb_varint_size(vlen) + vlen);
    buf[k++] = (1 << 3) | 0;
    memcpy(buf + k, key, klen);
    k += klen;
    buf[k++] = (2 << 3) | 2;
    k += tfc_pb_put_varint(buf + k, vlen);
    if (args[i]->value) k += protobuf_c_message_pack(&args[i]->value->base, buf + k);
  }
  fd->n_arg_attr = n_arg;
  fd->arg_attr = args;
  *out = buf;
  *out_len = k;
  return TFC_OK;
}

static Tensorflow__FunctionDef *unpack_def(const void *data, size_t len, const char *what, tfc_status *s) {
  return (Tensorflow__FunctionDef *)tfc_pb_unpack(&tensorflow__function_def__descriptor, data, len, what, s);
}

int tfc_functiondef_canonical(const void *data, size_t len, const char *what, void **out, size_t *out_len,
                              char **name, tfc_status *s) {
  *out = NULL;
  *out_len = 0;
  *name = NULL;
  Tensorflow__FunctionDef *fd = unpack_def(data, len, what, s);
  if (!fd) return s->code;
  int r;
  if (!fd->signature || !fd->signature->name || !fd->signature->name[0]) {
    r = tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s: the FunctionDef has no signature name", what);
  } else {
    *name = strdup(fd->signature->name);
    r = *name ? tfc_functiondef_pack(fd, out, out_len, s)
              : tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory reading a FunctionDef");
  }
  protobuf_c_message_free_unpacked(&fd->base, NULL);
  if (r != TFC_OK) {
    free(*name);
    *name = NULL;
  }
  return r;
}

static const char *def_name(const Tensorflow__FunctionDef *fd) {
  return fd->signature && fd->signature->name ? fd->signature->name : "";
}

int tfc_functiondef_get_attr(const void *def, size_t len, const char *attr_name, void **out, size_t *out_len,
                             tfc_status *s) {
  Tensorflow__FunctionDef *fd = unpack_def(def, len, "Invalid FunctionDef", s);
  if (!fd) return s->code;
  int r = -1;
  for (size_t i = 0; i < fd->n_attr && r < 0; i++)
    if (strcmp(fd->attr[i]->key, attr_name) == 0) {
      if (fd->attr[i]->value) {
        r = tfc_pb_pack(&fd->attr[i]->value->base, out, out_len, s);
      } else {
        Tensorflow__AttrValue empty;
        tensorflow__attr_value__init(&empty);
        r = tfc_pb_pack(&empty.base, out, out_len, s);
      }
    }
  if (r < 0)
    r = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Function '%s' has no attr named '%s'.", def_name(fd), attr_name);
  protobuf_c_message_free_unpacked(&fd->base, NULL);
  return r;
}

int tfc_functiondef_set_attr(const void *def, size_t len, const char *attr_name, const void *value,
                             size_t value_len, const char *what, void **out, size_t *out_len, tfc_status *s) {
  Tensorflow__AttrValue *v = (Tensorflow__AttrValue *)tfc_pb_unpack(&tensorflow__attr_value__descriptor, value,
                                                                     value_len, what, s);
  if (!v) return s->code;
  Tensorflow__FunctionDef *fd = unpack_def(def, len, "Invalid FunctionDef", s);
  if (!fd) {
    protobuf_c_message_free_unpacked(&v->base, NULL);
    return s->code;
  }
  /* A new entry array (the unpacked one stays intact for the free). */
  size_t n = fd->n_attr;
  Tensorflow__FunctionDef__AttrEntry **saved = fd->attr;
  Tensorflow__FunctionDef__AttrEntry **entries = malloc(sizeof *entries * (n + 1));
  Tensorflow__FunctionDef__AttrEntry added;
  tensorflow__function_def__attr_entry__init(&added);
  added.key = (char *)attr_name;
  added.value = v;
  int r;
  if (!entries) {
    r = tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory setting attr '%s'", attr_name);
  } else {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (strcmp(saved[i]->key, attr_name) != 0) entries[k++] = saved[i];
    entries[k++] = &added;
    fd->attr = entries;
    fd->n_attr = k;
    r = tfc_functiondef_pack(fd, out, out_len, s);
    fd->attr = saved;
    fd->n_attr = n;
    free(entries);
  }
  protobuf_c_message_free_unpacked(&fd->base, NULL);
  protobuf_c_message_free_unpacked(&v->base, NULL);
  return r;
}

int tfc_funclib_import(tfc_funclib *lib, const Tensorflow__FunctionDefLibrary *fl, tfc_status *s) {
  if (!fl) return TFC_OK;
  for (size_t i = 0; i < fl->n_function; i++) {
    Tensorflow__FunctionDef *fd = fl->function[i];
    if (!fd->signature || !fd->signature->name || !fd->signature->name[0])
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid GraphDef: library function %zu has no signature name",
                            i);
    void *bytes;
    size_t n;
    /* Sorting the decoded GraphDef's maps in place is harmless: nothing else reads them. */
    TFC_TRY(tfc_functiondef_pack(fd, &bytes, &n, s));
    int r = tfc_funclib_add(lib, fd->signature->name, bytes, n, s);
    free(bytes);
    if (r) return r;
  }
  for (size_t i = 0; i < fl->n_gradient; i++) {
    const Tensorflow__GradientDef *gd = fl->gradient[i];
    TFC_TRY(tfc_funclib_add_grad(lib, gd->function_name ? gd->function_name : "",
                                 gd->gradient_func ? gd->gradient_func : "", s));
  }
  return TFC_OK;
}

int tfc_funclib_export(const tfc_funclib *lib, void **out, size_t *out_len, tfc_status *s) {
  *out = NULL;
  *out_len = 0;
  if (!lib->n_funcs && !lib->n_grads) return TFC_OK;
  /* Function bodies are already bytes: write the library's framing by hand around them. */
  size_t cap = 0;
  for (int i = 0; i < lib->n_funcs; i++) cap += lib->funcs[i].len + 11;
  for (int i = 0; i < lib->n_grads; i++)
    cap += strlen(lib->grads[i].func) + strlen(lib->grads[i].grad) + 33;
  uint8_t *buf = malloc(cap);
  if (!buf) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory writing the function library");
  size_t k = 0;
  for (int i = 0; i < lib->n_funcs; i++) {
    buf[k++] = (1 << 3) | 2;
    k += tfc_pb_put_varint(buf + k, (uint64_t)lib->funcs[i].len);
    memcpy(buf + k, lib->funcs[i].def, lib->funcs[i].len);
    k += lib->funcs[i].len;
  }
  for (int i = 0; i < lib->n_grads; i++) {
    Tensorflow__GradientDef gd;
    tensorflow__gradient_def__init(&gd);
    gd.function_name = lib->grads[i].func;
    gd.gradient_func = lib->grads[i].grad;
    size_t n = tensorflow__gradient_def__get_packed_size(&gd);
    buf[k++] = (2 << 3) | 2;
    k += tfc_pb_put_varint(buf + k, (uint64_t)n);
    k += tensorflow__gradient_def__pack(&gd, buf + k);
  }
  *out = buf;
  *out_len = k;
  return TFC_OK;
}
