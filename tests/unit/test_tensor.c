/* Unit tests of dtype, shape and tensor. */
#include <stdint.h>

#include "harness.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"
#include "tensor/tensor_list.h"
#include "tensor/variant.h"

/* ---- dtype ---- */

static void dtype_names_match_tf(void) {
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_FLOAT), "float");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_DOUBLE), "double");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_INT32), "int32");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_INT64), "int64");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_STRING), "string");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_BOOL), "bool");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_BFLOAT16), "bfloat16");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_HALF), "half");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_COMPLEX128), "complex128");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_UINT64), "uint64");
}

static void dtype_ref_names_have_ref_suffix(void) {
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_FLOAT + TFC_DT_REF_OFFSET), "float_ref");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_INT32 + TFC_DT_REF_OFFSET), "int32_ref");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_UINT64 + TFC_DT_REF_OFFSET), "uint64_ref");
}

static void dtype_invalid_values_are_named_invalid(void) {
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_INVALID), "invalid");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_COUNT), "invalid");
  EXPECT_STREQ(tfc_dtype_name(-3), "invalid");
  EXPECT_STREQ(tfc_dtype_name(TFC_DT_REF_OFFSET + TFC_DT_COUNT), "invalid");
}

static void dtype_sizes(void) {
  EXPECT_EQ(tfc_dtype_size(TFC_DT_FLOAT), 4);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_DOUBLE), 8);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_INT8), 1);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_INT16), 2);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_INT64), 8);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_BOOL), 1);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_HALF), 2);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_BFLOAT16), 2);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_COMPLEX64), 8);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_COMPLEX128), 16);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_STRING), sizeof(tfc_tstring));
  EXPECT_EQ(tfc_dtype_size(TFC_DT_VARIANT), sizeof(void *)); /* a payload pointer */
  EXPECT_EQ(tfc_dtype_size(TFC_DT_INVALID), 0);
  EXPECT_EQ(tfc_dtype_size(999), 0);
}

static void dtype_ref_size_is_base_size(void) {
  EXPECT_EQ(tfc_dtype_size(TFC_DT_DOUBLE + TFC_DT_REF_OFFSET), 8);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_INT16 + TFC_DT_REF_OFFSET), 2);
}

static void dtype_from_name_parses_tf_names(void) {
  EXPECT_EQ(tfc_dtype_from_name("float", 5), TFC_DT_FLOAT);
  EXPECT_EQ(tfc_dtype_from_name("int32", 5), TFC_DT_INT32);
  EXPECT_EQ(tfc_dtype_from_name("string", 6), TFC_DT_STRING);
  EXPECT_EQ(tfc_dtype_from_name("complex128", 10), TFC_DT_COMPLEX128);
  EXPECT_EQ(tfc_dtype_from_name("uint64", 6), TFC_DT_UINT64);
}

static void dtype_from_name_parses_ref_names(void) {
  EXPECT_EQ(tfc_dtype_from_name("float_ref", 9), TFC_DT_FLOAT + TFC_DT_REF_OFFSET);
  EXPECT_EQ(tfc_dtype_from_name("int64_ref", 9), TFC_DT_INT64 + TFC_DT_REF_OFFSET);
  EXPECT_EQ(tfc_dtype_from_name("float_ref", 9), 101);
}

static void dtype_from_name_uses_length_not_nul(void) {
  EXPECT_EQ(tfc_dtype_from_name("floatXYZ", 5), TFC_DT_FLOAT);
  EXPECT_EQ(tfc_dtype_from_name("float", 4), -1);
  EXPECT_EQ(tfc_dtype_from_name("int32_ref", 5), TFC_DT_INT32);
}

static void dtype_from_name_rejects_aliases_and_unknown(void) {
  EXPECT_EQ(tfc_dtype_from_name("float32", 7), -1);
  EXPECT_EQ(tfc_dtype_from_name("int", 3), -1);
  EXPECT_EQ(tfc_dtype_from_name("invalid", 7), -1);
  EXPECT_EQ(tfc_dtype_from_name("", 0), -1);
  EXPECT_EQ(tfc_dtype_from_name("Float", 5), -1);
}

static void dtype_ref_helpers(void) {
  EXPECT_TRUE(tfc_dtype_is_ref(101));
  EXPECT_TRUE(!tfc_dtype_is_ref(TFC_DT_FLOAT));
  EXPECT_EQ(tfc_dtype_base(103), TFC_DT_INT32);
  EXPECT_EQ(tfc_dtype_base(TFC_DT_INT32), TFC_DT_INT32);
  EXPECT_TRUE(tfc_dtype_valid(TFC_DT_FLOAT));
  EXPECT_TRUE(tfc_dtype_valid(TFC_DT_UINT64));
  EXPECT_TRUE(!tfc_dtype_valid(TFC_DT_INVALID));
  EXPECT_TRUE(!tfc_dtype_valid(TFC_DT_COUNT));
  EXPECT_TRUE(!tfc_dtype_valid(101));
}

/* ---- shape ---- */

static tfc_shape mk(int rank, int64_t d0, int64_t d1) {
  int64_t d[2] = {d0, d1};
  return tfc_shape_make(d, rank);
}

static void shape_str_forms(void) {
  char buf[TFC_SHAPE_STR_MAX];
  tfc_shape a = mk(2, 2, 3), b = mk(2, -1, 3), u = tfc_shape_unknown(), sc = tfc_shape_scalar();
  EXPECT_STREQ(tfc_shape_str(&a, buf, sizeof buf), "[2,3]");
  EXPECT_STREQ(tfc_shape_str(&b, buf, sizeof buf), "[?,3]");
  EXPECT_STREQ(tfc_shape_str(&u, buf, sizeof buf), "<unknown>");
  EXPECT_STREQ(tfc_shape_str(&sc, buf, sizeof buf), "[]");
  tfc_shape v = tfc_shape_vector(7);
  EXPECT_STREQ(tfc_shape_str(&v, buf, sizeof buf), "[7]");
  int64_t d[3] = {1, 2, 3};
  EXPECT_STREQ(tfc_dims_str(d, 3, buf, sizeof buf), "[1,2,3]");
  EXPECT_STREQ(tfc_dims_str(d, 0, buf, sizeof buf), "[]");
}

static void shape_fully_defined_and_num_elements(void) {
  tfc_shape a = mk(2, 2, 3), b = mk(2, -1, 3), u = tfc_shape_unknown(), sc = tfc_shape_scalar();
  EXPECT_TRUE(tfc_shape_fully_defined(&a));
  EXPECT_TRUE(!tfc_shape_fully_defined(&b));
  EXPECT_TRUE(!tfc_shape_fully_defined(&u));
  EXPECT_TRUE(tfc_shape_fully_defined(&sc));
  EXPECT_EQ(tfc_shape_num_elements(&a), 6);
  EXPECT_EQ(tfc_shape_num_elements(&b), -1);
  EXPECT_EQ(tfc_shape_num_elements(&u), -1);
  EXPECT_EQ(tfc_shape_num_elements(&sc), 1);
  tfc_shape z = mk(2, 0, 5);
  EXPECT_EQ(tfc_shape_num_elements(&z), 0);
}

static void dims_num_elements_rejects_overflow_and_negative(void) {
  int64_t big[2] = {INT64_MAX / 2, 3};
  EXPECT_EQ(tfc_dims_num_elements(big, 2), -1);
  int64_t neg[2] = {2, -1};
  EXPECT_EQ(tfc_dims_num_elements(neg, 2), -1);
  int64_t ok[3] = {2, 3, 4};
  EXPECT_EQ(tfc_dims_num_elements(ok, 3), 24);
  EXPECT_EQ(tfc_dims_num_elements(NULL, 0), 1);
}

static void shape_equal_is_exact(void) {
  tfc_shape a = mk(2, 2, 3), a2 = mk(2, 2, 3), b = mk(2, -1, 3), c = mk(1, 2, 0);
  EXPECT_TRUE(tfc_shape_equal(&a, &a2));
  EXPECT_TRUE(!tfc_shape_equal(&a, &b));
  EXPECT_TRUE(!tfc_shape_equal(&a, &c));
}

static void shape_compatible_unknowns_match_anything(void) {
  tfc_shape a = mk(2, 2, 3), b = mk(2, -1, 3), c = mk(2, 2, 4), d = mk(1, 2, 0);
  tfc_shape u = tfc_shape_unknown();
  EXPECT_TRUE(tfc_shape_compatible(&a, &b));
  EXPECT_TRUE(tfc_shape_compatible(&b, &a));
  EXPECT_TRUE(tfc_shape_compatible(&a, &u));
  EXPECT_TRUE(tfc_shape_compatible(&u, &d));
  EXPECT_TRUE(!tfc_shape_compatible(&a, &c));
  EXPECT_TRUE(!tfc_shape_compatible(&a, &d));
}

static void shape_merge_fills_unknown_dims(void) {
  tfc_shape a = mk(2, -1, 3), b = mk(2, 5, -1), out;
  EXPECT_EQ(tfc_shape_merge(&a, &b, &out), 0);
  EXPECT_EQ(out.rank, 2);
  EXPECT_EQ(out.dims[0], 5);
  EXPECT_EQ(out.dims[1], 3);
}

static void shape_merge_with_unknown_rank_takes_other(void) {
  tfc_shape a = mk(2, 4, -1), u = tfc_shape_unknown(), out;
  EXPECT_EQ(tfc_shape_merge(&u, &a, &out), 0);
  EXPECT_EQ(out.rank, 2);
  EXPECT_EQ(out.dims[0], 4);
  EXPECT_EQ(out.dims[1], -1);
  EXPECT_EQ(tfc_shape_merge(&a, &u, &out), 0);
  EXPECT_EQ(out.rank, 2);
  EXPECT_EQ(out.dims[0], 4);
  EXPECT_EQ(tfc_shape_merge(&u, &u, &out), 0);
  EXPECT_EQ(out.rank, -1);
}

static void shape_merge_incompatible_fails(void) {
  tfc_shape a = mk(2, 2, 3), b = mk(2, 2, 4), c = mk(1, 2, 0), out;
  EXPECT_EQ(tfc_shape_merge(&a, &b, &out), -1);
  EXPECT_EQ(tfc_shape_merge(&a, &c, &out), -1);
}

/* ---- tensor ---- */

static void tensor_new_sets_header(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[3] = {2, 3, 4};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, d, 3, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_EQ(t->dtype, TFC_DT_FLOAT);
  EXPECT_EQ(t->ndims, 3);
  EXPECT_EQ(t->dims[0], 2);
  EXPECT_EQ(t->dims[2], 4);
  EXPECT_EQ(t->n_elems, 24);
  EXPECT_EQ(t->n_bytes, 96);
  EXPECT_TRUE(t->data == t->buf->data);
  EXPECT_EQ(t->buf->size, 96);
  EXPECT_EQ(atomic_load(&t->refs), 1);
  char buf[64];
  EXPECT_STREQ(tfc_tensor_shape_str(t, buf, sizeof buf), "[2,3,4]");
  tfc_shape sh = tfc_tensor_shape(t);
  EXPECT_EQ(sh.rank, 3);
  EXPECT_EQ(sh.dims[1], 3);
  ((float *)t->data)[23] = 1.5f;
  EXPECT_NEAR(tfc_tensor_get_f64(t, 23), 1.5, 0);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_zeros_is_zeroed(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {1000};
  tfc_tensor *t = tfc_tensor_zeros(TFC_DT_INT64, d, 1, &s);
  EXPECT_TRUE(t != NULL);
  for (int i = 0; i < 1000; i++)
    if (((int64_t *)t->data)[i] != 0) tfc_test_fail(__FILE__, __LINE__, "element %d not zero", i);
  EXPECT_EQ(tfc_tensor_get_i64(t, 999), 0);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_zero_elements_is_valid(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[2] = {0, 5};
  tfc_tensor *t = tfc_tensor_zeros(TFC_DT_FLOAT, d, 2, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(t->n_elems, 0);
  EXPECT_EQ(t->n_bytes, 0);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_scalar_holds_value(void) {
  tfc_status s;
  tfc_status_init(&s);
  int32_t v = -42;
  tfc_tensor *t = tfc_tensor_scalar(TFC_DT_INT32, &v, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(t->ndims, 0);
  EXPECT_EQ(t->n_elems, 1);
  EXPECT_EQ(t->n_bytes, 4);
  EXPECT_EQ(tfc_tensor_get_i64(t, 0), -42);
  char buf[16];
  EXPECT_STREQ(tfc_tensor_shape_str(t, buf, sizeof buf), "[]");
  tfc_tensor_unref(t);
  double dv = 2.25;
  t = tfc_tensor_scalar(TFC_DT_DOUBLE, &dv, &s);
  EXPECT_NEAR(tfc_tensor_get_f64(t, 0), 2.25, 0);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_string_scalar_copies_bytes(void) {
  tfc_status s;
  tfc_status_init(&s);
  char src[] = "a\0bc";
  tfc_tstring v = {src, 4};
  tfc_tensor *t = tfc_tensor_scalar(TFC_DT_STRING, &v, &s);
  EXPECT_TRUE(t != NULL);
  tfc_tstring *e = tfc_tensor_strings(t);
  EXPECT_EQ(e[0].len, 4);
  EXPECT_TRUE(e[0].data != src);
  EXPECT_EQ(memcmp(e[0].data, "a\0bc", 4), 0);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_new_string_elements_start_empty(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {3};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, d, 1, &s);
  EXPECT_TRUE(t != NULL);
  tfc_tstring *e = tfc_tensor_strings(t);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(e[i].len, 0);
    EXPECT_TRUE(e[i].data == NULL);
  }
  EXPECT_EQ(t->buf->n_strings, 3);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_new_rejects_bad_dtype(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {2};
  EXPECT_TRUE(tfc_tensor_new(TFC_DT_INVALID, d, 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_tensor_new(TFC_DT_FLOAT + TFC_DT_REF_OFFSET, d, 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_status_clear(&s);
  /* variant cells are payload pointers: only tensor/variant.c makes them */
  EXPECT_TRUE(tfc_tensor_new(TFC_DT_VARIANT, d, 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_status_fini(&s);
}

static void tensor_new_rejects_negative_dims(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[2] = {2, -1};
  EXPECT_TRUE(tfc_tensor_new(TFC_DT_FLOAT, d, 2, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "[2,?]");
  tfc_status_fini(&s);
}

static void tensor_rank_above_max_dims_is_invalid_argument(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[TFC_MAX_DIMS + 1];
  for (int i = 0; i <= TFC_MAX_DIMS; i++) d[i] = 1;
  EXPECT_TRUE(tfc_tensor_new(TFC_DT_FLOAT, d, TFC_MAX_DIMS + 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "rank 33");
  tfc_status_clear(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, d, TFC_MAX_DIMS, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(t->ndims, TFC_MAX_DIMS);
  EXPECT_EQ(t->n_elems, 1);
  tfc_tensor_unref(t);
  tfc_status_clear(&s);
  tfc_tensor *v = tfc_tensor_new(TFC_DT_FLOAT, d, 1, &s);
  EXPECT_TRUE(tfc_tensor_reshaped(v, d, TFC_MAX_DIMS + 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_tensor_unref(v);
  tfc_status_fini(&s);
}

static void tensor_reshaped_shares_buffer(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[2] = {2, 3}, d2[1] = {6};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, d, 2, &s);
  for (int i = 0; i < 6; i++) ((float *)t->data)[i] = (float)i;
  tfc_tensor *r = tfc_tensor_reshaped(t, d2, 1, &s);
  EXPECT_TRUE(r != NULL);
  EXPECT_TRUE(r != t);
  EXPECT_TRUE(r->buf == t->buf);
  EXPECT_TRUE(r->data == t->data);
  EXPECT_EQ(r->ndims, 1);
  EXPECT_EQ(r->dims[0], 6);
  EXPECT_EQ(atomic_load(&t->buf->refs), 2);
  EXPECT_TRUE(!tfc_tensor_can_forward(t));
  EXPECT_TRUE(!tfc_tensor_can_forward(r));
  tfc_tensor_unref(t);
  EXPECT_EQ(atomic_load(&r->buf->refs), 1);
  EXPECT_NEAR(tfc_tensor_get_f64(r, 5), 5.0, 0);
  EXPECT_TRUE(tfc_tensor_can_forward(r));
  tfc_tensor_unref(r);
  tfc_status_fini(&s);
}

static void tensor_reshaped_rejects_element_count_change(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[2] = {2, 3}, d2[1] = {5};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, d, 2, &s);
  EXPECT_TRUE(tfc_tensor_reshaped(t, d2, 1, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "[2,3]");
  EXPECT_CONTAINS(tfc_status_msg(&s), "[5]");
  EXPECT_EQ(atomic_load(&t->buf->refs), 1);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_can_forward_only_with_sole_reference(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {4};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, d, 1, &s);
  EXPECT_TRUE(tfc_tensor_can_forward(t));
  tfc_tensor_ref(t);
  EXPECT_TRUE(!tfc_tensor_can_forward(t));
  tfc_tensor_unref(t);
  EXPECT_TRUE(tfc_tensor_can_forward(t));
  tfc_buffer *b = tfc_buffer_ref(t->buf);
  EXPECT_TRUE(!tfc_tensor_can_forward(t));
  tfc_buffer_unref(b);
  EXPECT_TRUE(tfc_tensor_can_forward(t));
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_can_forward_is_false_for_strings(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {2};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, d, 1, &s);
  EXPECT_TRUE(!tfc_tensor_can_forward(t));
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_copy_is_deep_for_numbers(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[2] = {2, 2};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT32, d, 2, &s);
  for (int i = 0; i < 4; i++) ((int32_t *)t->data)[i] = i * 10;
  tfc_tensor *c = tfc_tensor_copy(t, &s);
  EXPECT_TRUE(c != NULL);
  EXPECT_TRUE(c->buf != t->buf);
  EXPECT_TRUE(tfc_tensor_same_shape(c, t));
  ((int32_t *)t->data)[3] = 99;
  EXPECT_EQ(tfc_tensor_get_i64(c, 3), 30);
  EXPECT_EQ(tfc_tensor_get_i64(c, 1), 10);
  tfc_tensor_unref(t);
  tfc_tensor_unref(c);
  tfc_status_fini(&s);
}

static void tensor_copy_of_strings_deep_copies(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {3};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, d, 1, &s);
  tfc_tstring *e = tfc_tensor_strings(t);
  EXPECT_EQ(tfc_tstring_assign(&e[0], "hello", 5, &s), TFC_OK);
  EXPECT_EQ(tfc_tstring_assign(&e[1], "", 0, &s), TFC_OK);
  EXPECT_EQ(tfc_tstring_assign(&e[2], "x\0y", 3, &s), TFC_OK);
  tfc_tensor *c = tfc_tensor_copy(t, &s);
  EXPECT_TRUE(c != NULL);
  tfc_tstring *ce = tfc_tensor_strings(c);
  EXPECT_TRUE(c->buf != t->buf);
  EXPECT_EQ(c->buf->n_strings, 3);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(ce[i].len, e[i].len);
    if (e[i].data) EXPECT_TRUE(ce[i].data != e[i].data);
  }
  EXPECT_EQ(memcmp(ce[0].data, "hello", 5), 0);
  EXPECT_EQ(memcmp(ce[2].data, "x\0y", 3), 0);
  e[0].data[0] = 'J';
  EXPECT_EQ(ce[0].data[0], 'h');
  tfc_tensor_unref(t);
  EXPECT_EQ(memcmp(ce[0].data, "hello", 5), 0);
  tfc_tensor_unref(c);
  tfc_status_fini(&s);
}

static void tstring_assign_replaces_previous_bytes(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[1] = {1};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, d, 1, &s);
  tfc_tstring *e = tfc_tensor_strings(t);
  tfc_tstring_assign(&e[0], "first value", 11, &s);
  EXPECT_EQ(tfc_tstring_assign(&e[0], "2nd", 3, &s), TFC_OK);
  EXPECT_EQ(e[0].len, 3);
  EXPECT_EQ(memcmp(e[0].data, "2nd", 3), 0);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

typedef struct release_rec {
  int calls;
  void *data;
  size_t size;
} release_rec;

static void record_release(void *data, size_t size, void *arg) {
  release_rec *r = arg;
  r->calls++;
  r->data = data;
  r->size = size;
}

static void tensor_wrap_releases_once_at_last_unref(void) {
  tfc_status s;
  tfc_status_init(&s);
  static float mem[6] = {1, 2, 3, 4, 5, 6};
  release_rec r = {0, NULL, 0};
  int64_t d[2] = {2, 3}, d2[1] = {6};
  tfc_tensor *t = tfc_tensor_wrap(TFC_DT_FLOAT, d, 2, mem, sizeof mem, record_release, &r, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_TRUE(t->data == mem);
  EXPECT_NEAR(tfc_tensor_get_f64(t, 4), 5.0, 0);
  tfc_tensor *view = tfc_tensor_reshaped(t, d2, 1, &s);
  tfc_tensor_unref(t);
  EXPECT_EQ(r.calls, 0);
  tfc_tensor_unref(view);
  EXPECT_EQ(r.calls, 1);
  EXPECT_TRUE(r.data == mem);
  EXPECT_EQ(r.size, sizeof mem);
  tfc_status_fini(&s);
}

static void tensor_wrap_size_mismatch_releases_once_and_fails(void) {
  tfc_status s;
  tfc_status_init(&s);
  static float mem[6];
  release_rec r = {0, NULL, 0};
  int64_t d[2] = {2, 3};
  tfc_tensor *t = tfc_tensor_wrap(TFC_DT_FLOAT, d, 2, mem, 20, record_release, &r, &s);
  EXPECT_TRUE(t == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "20 bytes");
  EXPECT_CONTAINS(tfc_status_msg(&s), "24 bytes");
  EXPECT_EQ(r.calls, 1);
  EXPECT_TRUE(r.data == mem);
  EXPECT_EQ(r.size, 20);
  tfc_status_fini(&s);
}

static void tensor_wrap_bad_rank_or_string_releases_once(void) {
  tfc_status s;
  tfc_status_init(&s);
  static char mem[16];
  release_rec r = {0, NULL, 0};
  int64_t d[TFC_MAX_DIMS + 1];
  for (int i = 0; i <= TFC_MAX_DIMS; i++) d[i] = 1;
  EXPECT_TRUE(tfc_tensor_wrap(TFC_DT_UINT8, d, TFC_MAX_DIMS + 1, mem, 1, record_release, &r, &s) ==
              NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_EQ(r.calls, 1);
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_tensor_wrap(TFC_DT_STRING, d, 1, mem, sizeof(tfc_tstring), record_release, &r,
                              &s) == NULL);
  EXPECT_TRUE(!tfc_status_ok(&s));
  EXPECT_EQ(r.calls, 2);
  tfc_status_fini(&s);
}

static void tensor_from_buffer_takes_its_own_reference(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_buffer *b = tfc_buffer_new(16);
  EXPECT_TRUE(b != NULL);
  EXPECT_EQ(b->size, 16);
  int64_t d[1] = {4}, bad[1] = {3};
  tfc_tensor *t = tfc_tensor_from_buffer(TFC_DT_INT32, d, 1, b, &s);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(atomic_load(&b->refs), 2);
  EXPECT_TRUE(tfc_tensor_from_buffer(TFC_DT_INT32, bad, 1, b, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_EQ(atomic_load(&b->refs), 2);
  tfc_buffer_unref(b);
  EXPECT_TRUE(tfc_tensor_can_forward(t));
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void tensor_unref_null_is_noop(void) {
  tfc_tensor_unref(NULL);
  EXPECT_TRUE(tfc_tensor_ref(NULL) == NULL);
}

static void tensor_same_shape_compares_dims(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t a[2] = {2, 3}, b[2] = {3, 2}, c[1] = {6};
  tfc_tensor *ta = tfc_tensor_new(TFC_DT_FLOAT, a, 2, &s), *ta2 = tfc_tensor_new(TFC_DT_INT32, a, 2, &s);
  tfc_tensor *tb = tfc_tensor_new(TFC_DT_FLOAT, b, 2, &s), *tc = tfc_tensor_new(TFC_DT_FLOAT, c, 1, &s);
  EXPECT_TRUE(tfc_tensor_same_shape(ta, ta2));
  EXPECT_TRUE(!tfc_tensor_same_shape(ta, tb));
  EXPECT_TRUE(!tfc_tensor_same_shape(ta, tc));
  tfc_tensor_unref(ta);
  tfc_tensor_unref(ta2);
  tfc_tensor_unref(tb);
  tfc_tensor_unref(tc);
  tfc_status_fini(&s);
}


/* A new tensor's header shares one block with its buffer: headers over the buffer (a reshape,
 * a view, one from the buffer itself) keep the bytes alive after the first header goes, and
 * forwarding sees them. Run under ASan and valgrind to catch an early free. */
static void tensor_headers_over_a_new_tensors_buffer_outlive_it(void) {
  tfc_status s = {0};
  int64_t d[2] = {2, 3}, d2[1] = {6};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT32, d, 2, &s);
  EXPECT_TRUE(t != NULL);
  for (int i = 0; i < 6; i++) ((int32_t *)t->data)[i] = 10 + i;
  EXPECT_TRUE(tfc_tensor_can_forward(t));
  tfc_tensor *r = tfc_tensor_reshaped(t, d2, 1, &s);
  tfc_tensor *v = tfc_tensor_view(t, 2 * sizeof(int32_t), d + 1, 1, &s);
  tfc_tensor *h = tfc_tensor_from_buffer(TFC_DT_INT32, d2, 1, t->buf, &s);
  EXPECT_TRUE(r != NULL && v != NULL && h != NULL);
  EXPECT_TRUE(!tfc_tensor_can_forward(t));
  tfc_tensor_unref(t);
  EXPECT_TRUE(!tfc_tensor_can_forward(r));
  EXPECT_EQ(((int32_t *)r->data)[5], 15);
  EXPECT_EQ(((int32_t *)v->data)[0], 12);
  EXPECT_EQ(((int32_t *)h->data)[1], 11);
  tfc_tensor_unref(r);
  tfc_tensor_unref(h);
  EXPECT_TRUE(tfc_tensor_can_forward(v));
  EXPECT_EQ(((int32_t *)v->data)[2], 14);
  tfc_tensor_unref(v);
  /* and the other order: the first header outlives the others */
  t = tfc_tensor_new(TFC_DT_FLOAT, NULL, 0, &s);
  EXPECT_TRUE(t != NULL);
  r = tfc_tensor_reshaped(t, d2, 0, &s);
  EXPECT_TRUE(r != NULL);
  tfc_tensor_unref(r);
  EXPECT_TRUE(tfc_tensor_can_forward(t));
  *(float *)t->data = 2.5f;
  EXPECT_TRUE(tfc_tensor_get_f64(t, 0) == 2.5);
  tfc_tensor_unref(t);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_COMPLEX128), 16u);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_INT16 + TFC_DT_REF_OFFSET), 2u);
  EXPECT_EQ(tfc_dtype_size(TFC_DT_COUNT), 0u);
  EXPECT_EQ(tfc_dtype_size(-3), 0u);
}

/* ---- views, variants, lists ---- */

static void tensor_view_shares_bytes_and_reshape_keeps_the_offset(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t d[2] = {4, 16};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, d, 2, &s);
  for (int i = 0; i < 64; i++) ((float *)t->data)[i] = (float)i;
  tfc_tensor *row = tfc_tensor_view(t, 2 * 16 * sizeof(float), d + 1, 1, &s);
  EXPECT_TRUE(row != NULL);
  EXPECT_EQ(((float *)row->data)[0], 32);
  EXPECT_EQ(row->n_elems, 16);
  EXPECT_TRUE(!tfc_tensor_can_forward(row)); /* t still shares the buffer */
  int64_t d2[2] = {2, 8};
  tfc_tensor *r2 = tfc_tensor_reshaped(row, d2, 2, &s);
  EXPECT_TRUE(r2->data == row->data);
  EXPECT_EQ(((float *)r2->data)[15], 47);
  tfc_tensor_unref(t);
  tfc_tensor_unref(r2);
  EXPECT_TRUE(tfc_tensor_can_forward(row)); /* the last header over the buffer */
  EXPECT_TRUE(tfc_tensor_view(row, 8, d + 1, 1, &s) == NULL); /* runs past the end */
  EXPECT_EQ(s.code, TFC_INTERNAL);
  tfc_tensor_unref(row);
  tfc_status_fini(&s);
}

static void variant_tensor_holds_a_list_until_the_last_reference(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_shape es = tfc_shape_vector(2);
  tfc_tensor_list *l = tfc_tensor_list_new(TFC_DT_FLOAT, &es, -1, 3, &s);
  EXPECT_EQ(l->n, 3);
  EXPECT_TRUE(l->items[0] == NULL && l->items[2] == NULL);
  tfc_tensor *t = tfc_tensor_list_tensor(l, &s);
  EXPECT_EQ(t->dtype, TFC_DT_VARIANT);
  EXPECT_EQ(t->ndims, 0);
  EXPECT_TRUE(tfc_tensor_list_from_tensor(t) == l);
  EXPECT_TRUE(tfc_variant_tensor_sole(t));
  /* a second reference to the tensor: the next write copies */
  tfc_tensor_ref(t);
  EXPECT_TRUE(!tfc_variant_tensor_sole(t));
  int64_t d = 2;
  tfc_tensor *item = tfc_tensor_zeros(TFC_DT_FLOAT, &d, 1, &s);
  tfc_tensor *out;
  tfc_tensor_list *w = tfc_tensor_list_for_write(t, &out, &s);
  EXPECT_TRUE(w != l && out != t);
  EXPECT_EQ(w->n, 3);
  tfc_tensor_list_set(w, 1, tfc_tensor_ref(item));
  EXPECT_TRUE(l->items[1] == NULL);
  EXPECT_EQ(atomic_load(&item->refs), 2);
  tfc_tensor_unref(t);
  /* now the only reference: written in place */
  tfc_tensor *out2;
  EXPECT_TRUE(tfc_tensor_list_for_write(t, &out2, &s) == l);
  EXPECT_TRUE(out2 == t);
  EXPECT_EQ(tfc_tensor_list_push(l, tfc_tensor_ref(item), &s), TFC_OK);
  EXPECT_EQ(l->n, 4);
  tfc_tensor_unref(out2);
  tfc_tensor_unref(t);
  tfc_tensor_unref(out);
  EXPECT_EQ(atomic_load(&item->refs), 1); /* both lists freed their references */
  tfc_tensor_unref(item);
  /* a variant tensor not made by tensor/variant.c is no list */
  tfc_tensor *f = tfc_tensor_scalar(TFC_DT_FLOAT, &(float){1}, &s);
  EXPECT_TRUE(tfc_tensor_list_from_tensor(f) == NULL);
  tfc_tensor_unref(f);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(dtype_names_match_tf),
    TFC_TEST(dtype_ref_names_have_ref_suffix),
    TFC_TEST(dtype_invalid_values_are_named_invalid),
    TFC_TEST(dtype_sizes),
    TFC_TEST(dtype_ref_size_is_base_size),
    TFC_TEST(dtype_from_name_parses_tf_names),
    TFC_TEST(dtype_from_name_parses_ref_names),
    TFC_TEST(dtype_from_name_uses_length_not_nul),
    TFC_TEST(dtype_from_name_rejects_aliases_and_unknown),
    TFC_TEST(dtype_ref_helpers),
    TFC_TEST(shape_str_forms),
    TFC_TEST(shape_fully_defined_and_num_elements),
    TFC_TEST(dims_num_elements_rejects_overflow_and_negative),
    TFC_TEST(shape_equal_is_exact),
    TFC_TEST(shape_compatible_unknowns_match_anything),
    TFC_TEST(shape_merge_fills_unknown_dims),
    TFC_TEST(shape_merge_with_unknown_rank_takes_other),
    TFC_TEST(shape_merge_incompatible_fails),
    TFC_TEST(tensor_new_sets_header),
    TFC_TEST(tensor_zeros_is_zeroed),
    TFC_TEST(tensor_zero_elements_is_valid),
    TFC_TEST(tensor_scalar_holds_value),
    TFC_TEST(tensor_string_scalar_copies_bytes),
    TFC_TEST(tensor_new_string_elements_start_empty),
    TFC_TEST(tensor_new_rejects_bad_dtype),
    TFC_TEST(tensor_new_rejects_negative_dims),
    TFC_TEST(tensor_rank_above_max_dims_is_invalid_argument),
    TFC_TEST(tensor_reshaped_shares_buffer),
    TFC_TEST(tensor_reshaped_rejects_element_count_change),
    TFC_TEST(tensor_can_forward_only_with_sole_reference),
    TFC_TEST(tensor_can_forward_is_false_for_strings),
    TFC_TEST(tensor_copy_is_deep_for_numbers),
    TFC_TEST(tensor_copy_of_strings_deep_copies),
    TFC_TEST(tstring_assign_replaces_previous_bytes),
    TFC_TEST(tensor_wrap_releases_once_at_last_unref),
    TFC_TEST(tensor_wrap_size_mismatch_releases_once_and_fails),
    TFC_TEST(tensor_wrap_bad_rank_or_string_releases_once),
    TFC_TEST(tensor_from_buffer_takes_its_own_reference),
    TFC_TEST(tensor_unref_null_is_noop),
    TFC_TEST(tensor_view_shares_bytes_and_reshape_keeps_the_offset),
    TFC_TEST(tensor_headers_over_a_new_tensors_buffer_outlive_it),
    TFC_TEST(variant_tensor_holds_a_list_until_the_last_reference),
    TFC_TEST(tensor_same_shape_compares_dims),
    {0}};

TFC_TEST_MAIN(tests)
