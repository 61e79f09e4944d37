/*
 * attr — typed attribute values, as AttrValue in attr_value.proto but as plain C.
 *
 * A node's attrs are a sorted array of (name, value). Lists hold an array of scalar values of
 * one kind (an empty list has kind NONE until an op def says otherwise). Strings are bytes
 * with a length (they may hold NULs). Values own everything they point to: copy with
 * tfc_attr_value_copy, free with tfc_attr_value_fini.
 */
#ifndef TFC_OPS_ATTR_H
#define TFC_OPS_ATTR_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

enum tfc_attr_kind {
  TFC_ATTR_NONE = 0, /* unset / empty list element kind unknown */
  TFC_ATTR_STRING = 1,
  TFC_ATTR_INT = 2,
  TFC_ATTR_FLOAT = 3,
  TFC_ATTR_BOOL = 4,
  TFC_ATTR_TYPE = 5,
  TFC_ATTR_SHAPE = 6,
  TFC_ATTR_TENSOR = 7,
  TFC_ATTR_PLACEHOLDER = 8,
  TFC_ATTR_FUNC = 9,
  TFC_ATTR_LIST = 10,
  TFC_ATTR_KIND_COUNT = 11
};

typedef struct tfc_attr tfc_attr;
typedef struct tfc_attr_value tfc_attr_value;

typedef struct tfc_func_attr {
  char *name;
  int n_attrs;
  tfc_attr *attrs;
} tfc_func_attr;

struct tfc_attr_value {
  int kind;
  int list_kind; /* element kind when kind == LIST */
  union {
    struct {
      char *data; /* NUL-terminated for convenience; may contain NULs */
      size_t len;
    } s;             /* STRING, PLACEHOLDER */
    int64_t i;       /* INT */
    float f;         /* FLOAT */
    int b;           /* BOOL */
    int type;        /* TYPE (a dtype) */
    tfc_shape *shape;   /* SHAPE */
    tfc_tensor *tensor; /* TENSOR (one reference) */
    tfc_func_attr *func;
    struct {
      int n;
      tfc_attr_value *items;
    } list;
  } u;
};

struct tfc_attr {
  char *name;
  tfc_attr_value value;
};

void tfc_attr_value_fini(tfc_attr_value *v);
int tfc_attr_value_copy(const tfc_attr_value *src, tfc_attr_value *dst, tfc_status *s);
int tfc_attr_value_equal(const tfc_attr_value *a, const tfc_attr_value *b);

/* Scalar constructors (the value owns copies). */
tfc_attr_value tfc_attr_int(int64_t i);
tfc_attr_value tfc_attr_float(float f);
tfc_attr_value tfc_attr_bool(int b);
tfc_attr_value tfc_attr_type(int dtype);
int tfc_attr_string(const void *data, size_t len, tfc_attr_value *out, tfc_status *s);
int tfc_attr_shape(const tfc_shape *shape, tfc_attr_value *out, tfc_status *s);
/* Takes one reference of t. */
tfc_attr_value tfc_attr_tensor(tfc_tensor *t);
/* An empty list of the given element kind; append with tfc_attr_list_append (takes v). */
tfc_attr_value tfc_attr_list(int list_kind);
int tfc_attr_list_append(tfc_attr_value *list, tfc_attr_value *v, tfc_status *s);

/* Attr arrays (sorted by name). */
const tfc_attr_value *tfc_attrs_find(const tfc_attr *attrs, int n, const char *name);
/* Sets name=value (takes ownership of *v, leaves it NONE), keeping the array sorted. */
int tfc_attrs_set(tfc_attr **attrs, int *n, const char *name, tfc_attr_value *v, tfc_status *s);
void tfc_attrs_free(tfc_attr *attrs, int n);
int tfc_attrs_copy(const tfc_attr *src, int n, tfc_attr **out, tfc_status *s);

/* TF's attr type names: "string", "int", "list(int)", ... */
const char *tfc_attr_kind_name(int kind);
/* Text for messages and dumps: 5, 1.5, true, DT_FLOAT, "abc", [2,3], [1, 2]. */
void tfc_attr_value_format(const tfc_attr_value *v, char *buf, size_t n);

#endif
