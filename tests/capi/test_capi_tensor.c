/*
 * test_capi_tensor — the C API contract of TF_Status, TF_Buffer, TF_Tensor, the TF_STRING
 * element encoding and the conversions between C API tensors and runtime tensors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capi/capi_internal.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"

/* Counts deallocator calls and remembers the arguments of the last one. */
typedef struct dealloc_log {
  int calls;
  void *data;
  size_t len;
} dealloc_log;

static void logging_dealloc(void *data, size_t len, void *arg) {
  dealloc_log *log = arg;
  log->calls++;
  log->data = data;
  log->len = len;
}

static void free_dealloc(void *data, size_t len, void *arg) {
  (void)len;
  dealloc_log *log = arg;
  if (log) log->calls++;
  free(data);
}

/* ---------------- status ---------------- */

static void status_starts_ok_with_empty_message(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(s != NULL);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_STREQ(TF_Message(s), "");
  TF_DeleteStatus(s);
  TF_DeleteStatus(NULL);
}

static void status_set_records_code_and_copies_message(void) {
  TF_Status *s = TF_NewStatus();
  char msg[] = "bad thing";
  TF_SetStatus(s, TF_INVALID_ARGUMENT, msg);
  msg[0] = 'X';
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "bad thing");
  /* A second set overwrites (unlike the runtime's first-error-wins). */
  TF_SetStatus(s, TF_NOT_FOUND, "other");
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "other");
  TF_SetStatus(s, TF_OK, "ignored");
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_STREQ(TF_Message(s), "");
  TF_MakeInternalErrorStatus(s, "broken");
  EXPECT_EQ(TF_GetCode(s), TF_INTERNAL);
  EXPECT_STREQ(TF_Message(s), "broken");
  TF_DeleteStatus(s);
}

static void status_codes_have_tf_values(void) {
  EXPECT_EQ(TF_OK, 0);
  EXPECT_EQ(TF_CANCELLED, 1);
  EXPECT_EQ(TF_UNKNOWN, 2);
  EXPECT_EQ(TF_INVALID_ARGUMENT, 3);
  EXPECT_EQ(TF_DEADLINE_EXCEEDED, 4);
  EXPECT_EQ(TF_NOT_FOUND, 5);
  EXPECT_EQ(TF_ALREADY_EXISTS, 6);
  EXPECT_EQ(TF_PERMISSION_DENIED, 7);
  EXPECT_EQ(TF_RESOURCE_EXHAUSTED, 8);
  EXPECT_EQ(TF_FAILED_PRECONDITION, 9);
  EXPECT_EQ(TF_ABORTED, 10);
  EXPECT_EQ(TF_OUT_OF_RANGE, 11);
  EXPECT_EQ(TF_UNIMPLEMENTED, 12);
  EXPECT_EQ(TF_INTERNAL, 13);
  EXPECT_EQ(TF_UNAVAILABLE, 14);
  EXPECT_EQ(TF_DATA_LOSS, 15);
  EXPECT_EQ(TF_UNAUTHENTICATED, 16);
  EXPECT_EQ(TF_ATTR_STRING, 0);
  EXPECT_EQ(TF_ATTR_FUNC, 8);
  EXPECT_EQ(TF_COMPLEX, TF_COMPLEX64);
  EXPECT_EQ(TF_UINT64, 23);
}

/* ---------------- buffers ---------------- */

static void buffer_from_string_copies_and_frees(void) {
  char src[] = "\x0a\x03" "abc";
  TF_Buffer *b = TF_NewBufferFromString(src, 5);
  EXPECT_TRUE(b != NULL);
  EXPECT_EQ(b->length, 5);
  EXPECT_TRUE(b->data != src);
  EXPECT_TRUE(b->data_deallocator != NULL);
  src[2] = 'z';
  EXPECT_TRUE(memcmp(b->data, "\x0a\x03" "abc", 5) == 0);
  TF_Buffer copy = TF_GetBuffer(b);
  EXPECT_TRUE(copy.data == b->data);
  EXPECT_EQ(copy.length, 5);
  TF_DeleteBuffer(b);
  TF_Buffer *empty = TF_NewBufferFromString(NULL, 0);
  EXPECT_TRUE(empty != NULL);
  EXPECT_EQ(empty->length, 0);
  TF_DeleteBuffer(empty);
}

static int buffer_dealloc_calls;
static void count_buffer_dealloc(void *data, size_t length) {
  EXPECT_EQ(length, 7);
  buffer_dealloc_calls++;
  free(data);
}

static void buffer_new_is_empty_and_delete_calls_deallocator(void) {
  TF_Buffer *b = TF_NewBuffer();
  EXPECT_TRUE(b->data == NULL);
  EXPECT_EQ(b->length, 0);
  EXPECT_TRUE(b->data_deallocator == NULL);
  TF_DeleteBuffer(b); /* no deallocator: nothing to free */
  b = TF_NewBuffer();
  b->data = malloc(7);
  b->length = 7;
  b->data_deallocator = count_buffer_dealloc;
  buffer_dealloc_calls = 0;
  TF_DeleteBuffer(b);
  EXPECT_EQ(buffer_dealloc_calls, 1);
  TF_DeleteBuffer(NULL);
}

/* ---------------- data types ---------------- */

static void datatype_sizes_match_tf(void) {
  static const struct {
    TF_DataType t;
    size_t size;
  } want[] = {
      {TF_FLOAT, 4},   {TF_DOUBLE, 8},     {TF_INT32, 4},      {TF_UINT8, 1},   {TF_INT16, 2},
      {TF_INT8, 1},    {TF_STRING, 0},     {TF_COMPLEX64, 8},  {TF_INT64, 8},   {TF_BOOL, 1},
      {TF_QINT8, 1},   {TF_QUINT8, 1},     {TF_QINT32, 4},     {TF_BFLOAT16, 2}, {TF_QINT16, 2},
      {TF_QUINT16, 2}, {TF_UINT16, 2},     {TF_COMPLEX128, 16}, {TF_HALF, 2},   {TF_RESOURCE, 0},
      {TF_VARIANT, 0}, {TF_UINT32, 4},     {TF_UINT64, 8},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) EXPECT_EQ(TF_DataTypeSize(want[i].t), want[i].size);
  EXPECT_EQ(TF_DataTypeSize((TF_DataType)0), 0);
  EXPECT_EQ(TF_DataTypeSize((TF_DataType)101), 0);
  EXPECT_EQ(TF_DataTypeSize((TF_DataType)24), 0);
}

/* ---------------- tensors ---------------- */

static void new_tensor_wraps_aligned_memory_and_deallocates_on_delete(void) {
  float *data = tfc_aligned_alloc(6 * sizeof(float));
  for (int i = 0; i < 6; i++) data[i] = (float)i;
  int64_t dims[] = {2, 3};
  dealloc_log log = {0};
  TF_Tensor *t = TF_NewTensor(TF_FLOAT, dims, 2, data, 6 * sizeof(float), logging_dealloc, &log);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(log.calls, 0);
  EXPECT_TRUE(TF_TensorData(t) == data);
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(t), 2);
  EXPECT_EQ(TF_Dim(t, 0), 2);
  EXPECT_EQ(TF_Dim(t, 1), 3);
  EXPECT_EQ(TF_TensorByteSize(t), 24);
  EXPECT_EQ(TF_TensorElementCount(t), 6);
  TF_DeleteTensor(t);
  EXPECT_EQ(log.calls, 1);
  EXPECT_TRUE(log.data == data);
  EXPECT_EQ(log.len, 24);
  tfc_aligned_free(data);
  TF_DeleteTensor(NULL);
}

static void new_tensor_copies_misaligned_memory_and_deallocates_at_once(void) {
  char *block = tfc_aligned_alloc(64 + 4 * sizeof(int32_t));
  int32_t *data = (int32_t *)(block + 4); /* deliberately off the 64-byte boundary */
  int32_t vals[4] = {7, -1, 3, 9};
  memcpy(data, vals, sizeof vals);
  int64_t dims[] = {4};
  dealloc_log log = {0};
  TF_Tensor *t = TF_NewTensor(TF_INT32, dims, 1, data, sizeof vals, logging_dealloc, &log);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(log.calls, 1);
  EXPECT_TRUE(log.data == data);
  EXPECT_EQ(log.len, 16);
  EXPECT_TRUE(TF_TensorData(t) != data);
  EXPECT_EQ((uintptr_t)TF_TensorData(t) % 64, 0);
  EXPECT_TRUE(memcmp(TF_TensorData(t), vals, sizeof vals) == 0);
  tfc_aligned_free(block);
  TF_DeleteTensor(t);
  EXPECT_EQ(log.calls, 1);
}

static void new_tensor_with_short_len_returns_null_and_deallocates(void) {
  int64_t dims[] = {2, 2};
  dealloc_log log = {0};
  void *data = tfc_aligned_alloc(64);
  TF_Tensor *t = TF_NewTensor(TF_DOUBLE, dims, 2, data, 31, logging_dealloc, &log);
  EXPECT_TRUE(t == NULL);
  EXPECT_EQ(log.calls, 1);
  EXPECT_TRUE(log.data == data);
  EXPECT_EQ(log.len, 31);
  int64_t bad[] = {-2};
  t = TF_NewTensor(TF_DOUBLE, bad, 1, data, 16, logging_dealloc, &log);
  EXPECT_TRUE(t == NULL);
  EXPECT_EQ(log.calls, 2);
  tfc_aligned_free(data);
}

static void new_tensor_accepts_extra_bytes_and_runtime_sees_elements(void) {
  int64_t dims[] = {2};
  float *data = tfc_aligned_alloc(64);
  data[0] = 1.5f;
  data[1] = 2.5f;
  dealloc_log log = {0};
  TF_Tensor *t = TF_NewTensor(TF_FLOAT, dims, 1, data, 64, logging_dealloc, &log);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(TF_TensorByteSize(t), 64);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *rt = tfc_capi_tensor_in(t, &s);
  EXPECT_TRUE(rt != NULL);
  EXPECT_EQ(rt->n_bytes, 8);
  EXPECT_TRUE(rt->data == (void *)data);
  TF_DeleteTensor(t);
  EXPECT_EQ(log.calls, 0); /* the runtime tensor keeps the memory alive */
  EXPECT_NEAR(((float *)rt->data)[1], 2.5, 0);
  tfc_tensor_unref(rt);
  EXPECT_EQ(log.calls, 1);
  tfc_status_fini(&s);
  tfc_aligned_free(data);
}

static void allocate_tensor_is_aligned_and_sized(void) {
  int64_t dims[] = {3, 0, 2};
  TF_Tensor *empty = TF_AllocateTensor(TF_INT64, dims, 3, 0);
  EXPECT_TRUE(empty != NULL);
  EXPECT_EQ(TF_TensorElementCount(empty), 0);
  EXPECT_EQ(TF_TensorByteSize(empty), 0);
  TF_DeleteTensor(empty);

  TF_Tensor *scalar = TF_AllocateTensor(TF_INT64, NULL, 0, 8);
  EXPECT_TRUE(scalar != NULL);
  EXPECT_EQ(TF_NumDims(scalar), 0);
  EXPECT_EQ(TF_TensorElementCount(scalar), 1);
  EXPECT_EQ((uintptr_t)TF_TensorData(scalar) % 64, 0);
  *(int64_t *)TF_TensorData(scalar) = -5;
  EXPECT_EQ(*(int64_t *)TF_TensorData(scalar), -5);
  TF_DeleteTensor(scalar);

  int64_t d2[] = {4};
  EXPECT_TRUE(TF_AllocateTensor(TF_INT64, d2, 1, 31) == NULL);
  EXPECT_TRUE(TF_AllocateTensor((TF_DataType)0, d2, 1, 32) == NULL);
  EXPECT_TRUE(TF_AllocateTensor(TF_INT64, d2, -1, 32) == NULL);
}

static void maybe_move_only_moves_sole_runtime_memory(void) {
  int64_t dims[] = {2};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 1, 8);
  TF_Tensor *moved = TF_TensorMaybeMove(t);
  EXPECT_TRUE(moved == t);
  /* Shared memory cannot move. */
  TF_Tensor *other = TF_AllocateTensor(TF_INT32, dims, 1, 8);
  TF_Status *s = TF_NewStatus();
  TF_TensorBitcastFrom(moved, TF_INT32, other, dims, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_TRUE(TF_TensorMaybeMove(moved) == NULL);
  TF_DeleteTensor(other);
  TF_DeleteTensor(moved);
  /* Caller memory cannot move either: the caller's deallocator must see its pointer. */
  float *data = tfc_aligned_alloc(8);
  dealloc_log log = {0};
  t = TF_NewTensor(TF_FLOAT, dims, 1, data, 8, logging_dealloc, &log);
  EXPECT_TRUE(TF_TensorMaybeMove(t) == NULL);
  TF_DeleteTensor(t);
  EXPECT_EQ(log.calls, 1);
  tfc_aligned_free(data);
  TF_DeleteStatus(s);
}

static void dim_out_of_range_is_minus_one(void) {
  int64_t dims[] = {5};
  TF_Tensor *t = TF_AllocateTensor(TF_UINT8, dims, 1, 5);
  EXPECT_EQ(TF_Dim(t, 0), 5);
  EXPECT_EQ(TF_Dim(t, 1), -1);
  EXPECT_EQ(TF_Dim(t, -1), -1);
  TF_DeleteTensor(t);
}

static void bitcast_shares_memory_and_checks_sizes(void) {
  int64_t dims[] = {2, 2};
  TF_Tensor *from = TF_AllocateTensor(TF_FLOAT, dims, 2, 16);
  float *f = TF_TensorData(from);
  for (int i = 0; i < 4; i++) f[i] = 1.0f;
  int64_t one[] = {1};
  TF_Tensor *to = TF_AllocateTensor(TF_UINT8, one, 1, 1);
  TF_Status *s = TF_NewStatus();
  int64_t nd[] = {4};
  TF_TensorBitcastFrom(from, TF_INT32, to, nd, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_TensorType(to), TF_INT32);
  EXPECT_EQ(TF_NumDims(to), 1);
  EXPECT_EQ(TF_Dim(to, 0), 4);
  EXPECT_TRUE(TF_TensorData(to) == TF_TensorData(from));
  EXPECT_EQ(((int32_t *)TF_TensorData(to))[3], 0x3f800000);
  int64_t bad[] = {3};
  TF_TensorBitcastFrom(from, TF_INT32, to, bad, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "input and output shapes/data type sizes are not compatible");
  EXPECT_EQ(TF_Dim(to, 0), 4); /* unchanged on error */
  TF_TensorBitcastFrom(from, TF_STRING, to, nd, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "specified output type is zero-sized");
  TF_DeleteTensor(from);
  /* `to` keeps the shared memory alive. */
  EXPECT_EQ(((int32_t *)TF_TensorData(to))[0], 0x3f800000);
  TF_DeleteTensor(to);
  TF_DeleteStatus(s);
}

/* ---------------- string encoding ---------------- */

static void string_encoded_size_is_varint_plus_bytes(void) {
  EXPECT_EQ(TF_StringEncodedSize(0), 1);
  EXPECT_EQ(TF_StringEncodedSize(5), 6);
  EXPECT_EQ(TF_StringEncodedSize(127), 128);
  EXPECT_EQ(TF_StringEncodedSize(128), 130);
  EXPECT_EQ(TF_StringEncodedSize(16383), 16385);
  EXPECT_EQ(TF_StringEncodedSize(16384), 16387);
}

static void string_encode_decode_round_trip(void) {
  TF_Status *s = TF_NewStatus();
  char src[300];
  for (int i = 0; i < 300; i++) src[i] = (char)(i * 7);
  char dst[310];
  size_t n = TF_StringEncode(src, 300, dst, sizeof dst, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(n, 302);
  EXPECT_EQ((unsigned char)dst[0], 0xac); /* 300 = 0b10_0101100 */
  EXPECT_EQ((unsigned char)dst[1], 0x02);
  const char *out = NULL;
  size_t out_len = 0;
  size_t used = TF_StringDecode(dst, n, &out, &out_len, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(used, 302);
  EXPECT_EQ(out_len, 300);
  EXPECT_TRUE(out == dst + 2);
  EXPECT_TRUE(memcmp(out, src, 300) == 0);
  /* Embedded NULs and the empty string survive. */
  n = TF_StringEncode("a\0b", 3, dst, sizeof dst, s);
  EXPECT_EQ(n, 4);
  EXPECT_EQ(TF_StringDecode(dst, n, &out, &out_len, s), 4);
  EXPECT_EQ(out_len, 3);
  EXPECT_EQ(out[1], 0);
  n = TF_StringEncode("", 0, dst, sizeof dst, s);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(dst[0], 0);
  EXPECT_EQ(TF_StringDecode(dst, 1, &out, &out_len, s), 1);
  EXPECT_EQ(out_len, 0);
  TF_DeleteStatus(s);
}

static void string_encode_into_short_dst_fails(void) {
  TF_Status *s = TF_NewStatus();
  char dst[4];
  EXPECT_EQ(TF_StringEncode("hello", 5, dst, sizeof dst, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "dst_len (4) too small to encode a 5-byte string");
  TF_DeleteStatus(s);
}

static void string_decode_rejects_truncated_input(void) {
  TF_Status *s = TF_NewStatus();
  const char *out;
  size_t out_len;
  const char unterminated[] = {(char)0x80, (char)0x80};
  EXPECT_EQ(TF_StringDecode(unterminated, 2, &out, &out_len, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "invalid string encoding or truncated src buffer");
  const char short_body[] = {5, 'a', 'b'};
  EXPECT_EQ(TF_StringDecode(short_body, 3, &out, &out_len, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_StringDecode(short_body, 0, &out, &out_len, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteStatus(s);
}

/* Builds a TF_STRING tensor in TF 1.x's layout: offsets, then encoded elements. */
static TF_Tensor *make_string_tensor(const char *const *strs, const size_t *lens, int n,
                                     const int64_t *dims, int ndims) {
  size_t size = 8 * (size_t)n;
  for (int i = 0; i < n; i++) size += TF_StringEncodedSize(lens[i]);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, ndims, size);
  char *base = TF_TensorData(t), *region = base + 8 * n, *p = region;
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < n; i++) {
    uint64_t off = (uint64_t)(p - region);
    memcpy(base + 8 * i, &off, 8);
    p += TF_StringEncode(strs[i], lens[i], p, size - (size_t)(p - base), s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
  }
  TF_DeleteStatus(s);
  return t;
}

static void string_tensor_round_trips_through_the_runtime(void) {
  const char *strs[] = {"hello", "", "a\0c"};
  size_t lens[] = {5, 0, 3};
  int64_t dims[] = {3};
  TF_Tensor *t = make_string_tensor(strs, lens, 3, dims, 1);
  EXPECT_EQ(TF_TensorByteSize(t), 24 + 6 + 1 + 4);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *rt = tfc_capi_tensor_in(t, &s);
  EXPECT_TRUE(rt != NULL);
  EXPECT_EQ(rt->dtype, TFC_DT_STRING);
  EXPECT_EQ(rt->ndims, 1);
  EXPECT_EQ(rt->dims[0], 3);
  const tfc_tstring *e = tfc_tensor_strings(rt);
  EXPECT_EQ(e[0].len, 5);
  EXPECT_TRUE(memcmp(e[0].data, "hello", 5) == 0);
  EXPECT_EQ(e[1].len, 0);
  EXPECT_EQ(e[2].len, 3);
  EXPECT_TRUE(memcmp(e[2].data, "a\0c", 3) == 0);

  TF_Tensor *back = tfc_capi_tensor_out(rt, &s);
  EXPECT_TRUE(back != NULL);
  EXPECT_EQ(TF_TensorType(back), TF_STRING);
  EXPECT_EQ(TF_NumDims(back), 1);
  EXPECT_EQ(TF_Dim(back, 0), 3);
  EXPECT_EQ(TF_TensorByteSize(back), TF_TensorByteSize(t));
  EXPECT_TRUE(memcmp(TF_TensorData(back), TF_TensorData(t), TF_TensorByteSize(t)) == 0);
  const uint64_t *offs = TF_TensorData(back);
  EXPECT_EQ(offs[0], 0);
  EXPECT_EQ(offs[1], 6);
  EXPECT_EQ(offs[2], 7);
  tfc_tensor_unref(rt);
  TF_DeleteTensor(back);
  TF_DeleteTensor(t);
  tfc_status_fini(&s);
}

static void scalar_string_built_like_clients_is_read(void) {
  /* cppflow / PatWie build a scalar string as 8 + TF_StringEncodedSize(n) bytes, offset 0. */
  const char *path = "/tmp/model.ckpt";
  size_t n = strlen(path);
  size_t size = 8 + TF_StringEncodedSize(n);
  char *data = malloc(size);
  memset(data, 0, 8);
  TF_Status *st = TF_NewStatus();
  TF_StringEncode(path, n, data + 8, size - 8, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  dealloc_log log = {0};
  TF_Tensor *t = TF_NewTensor(TF_STRING, NULL, 0, data, size, free_dealloc, &log);
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(log.calls, 0); /* strings are never copied for alignment */
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *rt = tfc_capi_tensor_in(t, &s);
  EXPECT_TRUE(rt != NULL);
  EXPECT_EQ(rt->ndims, 0);
  EXPECT_EQ(tfc_tensor_strings(rt)[0].len, n);
  EXPECT_TRUE(memcmp(tfc_tensor_strings(rt)[0].data, path, n) == 0);
  tfc_tensor_unref(rt);
  TF_DeleteTensor(t);
  EXPECT_EQ(log.calls, 1);
  tfc_status_fini(&s);
  TF_DeleteStatus(st);
}

static void malformed_string_tensors_are_invalid_argument(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t dims[] = {2};
  /* Too small for the offset table. */
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, 1, 12);
  EXPECT_TRUE(tfc_capi_tensor_in(t, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Invalid TF_STRING tensor: insufficient memory");
  TF_DeleteTensor(t);
  tfc_status_clear(&s);

  /* Offset past the data region. */
  const char *strs[] = {"ab", "cd"};
  size_t lens[] = {2, 2};
  t = make_string_tensor(strs, lens, 2, dims, 1);
  uint64_t off = 6;
  memcpy((char *)TF_TensorData(t) + 8, &off, 8);
  EXPECT_TRUE(tfc_capi_tensor_in(t, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Malformed TF_STRING tensor; element 1 out of range");
  tfc_status_clear(&s);

  /* A length running past the end. */
  off = 3;
  memcpy((char *)TF_TensorData(t) + 8, &off, 8);
  ((char *)TF_TensorData(t))[16 + 3] = 9;
  EXPECT_TRUE(tfc_capi_tensor_in(t, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "invalid string encoding or truncated src buffer");
  TF_DeleteTensor(t);
  tfc_status_fini(&s);
}

static void numeric_tensors_cross_without_copy(void) {
  int64_t dims[] = {2, 2};
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, 2, 16);
  int32_t *p = TF_TensorData(t);
  for (int i = 0; i < 4; i++) p[i] = i * 10;
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *rt = tfc_capi_tensor_in(t, &s);
  EXPECT_TRUE(rt != NULL);
  EXPECT_TRUE(rt->data == (void *)p);
  EXPECT_EQ(rt->dtype, TFC_DT_INT32);
  EXPECT_EQ(rt->n_elems, 4);
  TF_DeleteTensor(t);
  EXPECT_EQ(tfc_tensor_get_i64(rt, 3), 30);

  TF_Tensor *out = tfc_capi_tensor_out(rt, &s);
  EXPECT_TRUE(out != NULL);
  EXPECT_TRUE(TF_TensorData(out) == rt->data);
  EXPECT_EQ(TF_TensorType(out), TF_INT32);
  EXPECT_EQ(TF_NumDims(out), 2);
  EXPECT_EQ(TF_TensorByteSize(out), 16);
  tfc_tensor_unref(rt);
  EXPECT_EQ(((int32_t *)TF_TensorData(out))[2], 20);
  TF_DeleteTensor(out);

  /* A reshaped runtime tensor shares the buffer too. */
  rt = tfc_tensor_zeros(TFC_DT_FLOAT, dims, 2, &s);
  int64_t flat[] = {4};
  tfc_tensor *r2 = tfc_tensor_reshaped(rt, flat, 1, &s);
  out = tfc_capi_tensor_out(r2, &s);
  EXPECT_TRUE(TF_TensorData(out) == rt->data);
  EXPECT_EQ(TF_NumDims(out), 1);
  tfc_tensor_unref(rt);
  tfc_tensor_unref(r2);
  TF_DeleteTensor(out);
  tfc_status_fini(&s);
}

static void version_is_1_15_0(void) { EXPECT_STREQ(TF_Version(), "1.15.0"); }

static const tfc_test tests[] = {
    TFC_TEST(status_starts_ok_with_empty_message),
    TFC_TEST(status_set_records_code_and_copies_message),
    TFC_TEST(status_codes_have_tf_values),
    TFC_TEST(buffer_from_string_copies_and_frees),
    TFC_TEST(buffer_new_is_empty_and_delete_calls_deallocator),
    TFC_TEST(datatype_sizes_match_tf),
    TFC_TEST(new_tensor_wraps_aligned_memory_and_deallocates_on_delete),
    TFC_TEST(new_tensor_copies_misaligned_memory_and_deallocates_at_once),
    TFC_TEST(new_tensor_with_short_len_returns_null_and_deallocates),
    TFC_TEST(new_tensor_accepts_extra_bytes_and_runtime_sees_elements),
    TFC_TEST(allocate_tensor_is_aligned_and_sized),
    TFC_TEST(maybe_move_only_moves_sole_runtime_memory),
    TFC_TEST(dim_out_of_range_is_minus_one),
    TFC_TEST(bitcast_shares_memory_and_checks_sizes),
    TFC_TEST(string_encoded_size_is_varint_plus_bytes),
    TFC_TEST(string_encode_decode_round_trip),
    TFC_TEST(string_encode_into_short_dst_fails),
    TFC_TEST(string_decode_rejects_truncated_input),
    TFC_TEST(string_tensor_round_trips_through_the_runtime),
    TFC_TEST(scalar_string_built_like_clients_is_read),
    TFC_TEST(malformed_string_tensors_are_invalid_argument),
    TFC_TEST(numeric_tensors_cross_without_copy),
    TFC_TEST(version_is_1_15_0),
    {0}};

TFC_TEST_MAIN(tests)
