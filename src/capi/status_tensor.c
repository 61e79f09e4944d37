/*
 * capi/status_tensor — TF_Status, TF_Buffer, TF_Tensor, the TF_STRING element encoding and
 * the conversions between C API tensors and runtime tensors.
 *
 * A TF_Tensor keeps its bytes exactly as the C API defines them, in a refcounted tfc_buffer.
 * Numeric tensors cross into and out of the runtime by sharing that buffer: a feed costs no
 * copy and neither does a fetch. TF_STRING tensors differ: the C API uses TensorFlow 1.x's
 * layout (a uint64 offset per element, then varint-length-prefixed bytes, offsets relative to
 * the end of the offset table) while the runtime holds tfc_tstring elements, so strings are
 * decoded on the way in and encoded on the way out.
 *
 * Error texts are TensorFlow's where clients see them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capi/capi_internal.h"

/* ---------------- status ---------------- */

TFC_EXPORT TF_Status *TF_NewStatus(void) {
  TF_Status *s = malloc(sizeof *s);
  if (!s) return NULL;
  tfc_status_init(&s->s);
  return s;
}

TFC_EXPORT void TF_DeleteStatus(TF_Status *s) {
  if (!s) return;
  tfc_status_fini(&s->s);
  free(s);
}

TFC_EXPORT void TF_SetStatus(TF_Status *s, TF_Code code, const char *msg) {
  if (!s) return;
  tfc_status_assign(&s->s, (int)code, msg ? msg : "");
}

TFC_EXPORT void TF_MakeInternalErrorStatus(TF_Status *s, const char *errMsg) { TF_SetStatus(s, TF_INTERNAL, errMsg); }

TFC_EXPORT TF_Code TF_GetCode(const TF_Status *s) { return s ? (TF_Code)s->s.code : TF_OK; }
TFC_EXPORT const char *TFC_CodeName(TF_Code code) { return tfc_code_name((int)code); }

TFC_EXPORT const char *TF_Message(const TF_Status *s) {
  if (!s || s->s.code == TFC_OK) return "";
  return tfc_status_msg(&s->s);
}

/* ---------------- buffers ---------------- */

static void free_buffer_data(void *data, size_t length) {
  (void)length;
  free(data);
}

TFC_EXPORT TF_Buffer *TF_NewBufferFromString(const void *proto, size_t proto_len) {
  TF_Buffer *b = TF_NewBuffer();
  if (!b) return NULL;
  void *copy = malloc(proto_len ? proto_len : 1);
  if (!copy) {
    free(b);
    return NULL;
  }
  if (proto_len) memcpy(copy, proto, proto_len);
  b->data = copy;
  b->length = proto_len;
  b->data_deallocator = free_buffer_data;
  return b;
}

TFC_EXPORT TF_Buffer *TF_NewBuffer(void) { return calloc(1, sizeof(TF_Buffer)); }

TFC_EXPORT void TF_DeleteBuffer(TF_Buffer *b) {
  if (!b) return;
  if (b->data_deallocator) b->data_deallocator((void *)b->data, b->length);
  free(b);
}

TFC_EXPORT TF_Buffer TF_GetBuffer(TF_Buffer *b) { return *b; }

/* ---------------- data types ---------------- */

TFC_EXPORT size_t TF_DataTypeSize(TF_DataType dt) {
  /* Variable-length types have no fixed element size in the C API (the runtime's own table
   * gives sizeof(tfc_tstring) for strings); reference types are not element types. */
  if (dt == TF_STRING || !tfc_dtype_valid((int)dt)) return 0;
  /* Resource and variant elements are object pointers inside tfc; TF reports no fixed size. */
  return dt == TF_RESOURCE || dt == TF_VARIANT ? 0 : tfc_dtype_size((int)dt);
}

/* ---------------- tensors ---------------- */

/* Checks dtype and dims; *need gets the bytes the elements take (0 for variable-length
 * types, which any len satisfies). Returns 0 when valid. */
static int tensor_need(TF_DataType dtype, const int64_t *dims, int num_dims, size_t *need) {
  if (!tfc_dtype_valid((int)dtype) || num_dims < 0 || num_dims > TFC_MAX_DIMS) return -1;
  if (num_dims > 0 && !dims) return -1;
  int64_t n = tfc_dims_num_elements(dims, num_dims);
  if (n < 0) return -1;
  size_t es = TF_DataTypeSize(dtype);
  if (es && (uint64_t)n > SIZE_MAX / es) return -1;
  *need = (size_t)n * es;
  return 0;
}

/* A header over buf (takes the caller's reference). NULL on out of memory (buf released). */
static TF_Tensor *tensor_over(TF_DataType dtype, const int64_t *dims, int num_dims,
                              tfc_buffer *buf) {
  TF_Tensor *t = malloc(sizeof *t);
  if (!t) {
    tfc_buffer_unref(buf);
    return NULL;
  }
  t->dtype = (int)dtype;
  t->ndims = num_dims;
  if (num_dims) memcpy(t->dims, dims, sizeof(int64_t) * (size_t)num_dims);
  t->buf = buf;
  return t;
}

TFC_EXPORT TF_Tensor *TF_NewTensor(TF_DataType dtype, const int64_t *dims, int num_dims,
                                   void *data, size_t len,
                                   void (*deallocator)(void *data, size_t len, void *arg),
                                   void *deallocator_arg) {
  size_t need;
  if (tensor_need(dtype, dims, num_dims, &need) || len < need) {
    if (deallocator) deallocator(data, len, deallocator_arg);
    return NULL;
  }
  tfc_buffer *buf;
  /* Kernels assume 64-byte aligned data, so misaligned caller memory is copied and handed
   * back at once, as TensorFlow does. Strings are decoded before use, so any address does. */
  if (dtype != TF_STRING && dtype != TF_RESOURCE && dtype != TF_VARIANT &&
      ((uintptr_t)data % TFC_ALIGN) != 0) {
    buf = tfc_buffer_new(len);
    if (buf && len) memcpy(buf->data, data, len);
    if (deallocator) deallocator(data, len, deallocator_arg);
    if (!buf) return NULL;
  } else {
    buf = tfc_buffer_wrap(data, len, deallocator, deallocator_arg);
    if (!buf) return NULL; /* the wrap released data */
  }
  return tensor_over(dtype, dims, num_dims, buf);
}

TFC_EXPORT TF_Tensor *TF_AllocateTensor(TF_DataType dtype, const int64_t *dims, int num_dims,
                                        size_t len) {
  size_t need;
  if (tensor_need(dtype, dims, num_dims, &need) || len < need) return NULL;
  tfc_buffer *buf = tfc_buffer_new(len);
  if (!buf) return NULL;
  return tensor_over(dtype, dims, num_dims, buf);
}

TFC_EXPORT TF_Tensor *TF_TensorMaybeMove(TF_Tensor *t) {
  /* Moving is safe only when nothing else can see the memory and the runtime owns it (a
   * caller's deallocator must still run on the caller's pointer). The move keeps the same
   * header, as TensorFlow's does. */
  if (!t) return NULL;
  if (atomic_load(&t->buf->refs) == 1 && t->buf->release == NULL) return t;
  return NULL;
}

TFC_EXPORT void TF_DeleteTensor(TF_Tensor *t) {
  if (!t) return;
  tfc_buffer_unref(t->buf);
  free(t);
}

TFC_EXPORT TF_DataType TF_TensorType(const TF_Tensor *t) { return (TF_DataType)t->dtype; }

TFC_EXPORT int TF_NumDims(const TF_Tensor *t) { return t->ndims; }

TFC_EXPORT int64_t TF_Dim(const TF_Tensor *t, int dim_index) {
  if (dim_index < 0 || dim_index >= t->ndims) return -1;
  return t->dims[dim_index];
}

TFC_EXPORT size_t TF_TensorByteSize(const TF_Tensor *t) { return t->buf->size; }

TFC_EXPORT void *TF_TensorData(const TF_Tensor *t) { return t->buf->data; }

TFC_EXPORT int64_t TF_TensorElementCount(const TF_Tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndims; i++) n *= t->dims[i];
  return n;
}

TFC_EXPORT void TF_TensorBitcastFrom(const TF_Tensor *from, TF_DataType type, TF_Tensor *to,
                                     const int64_t *new_dims, int num_new_dims,
                                     TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  size_t in_size = TF_DataTypeSize((TF_DataType)from->dtype);
  size_t out_size = TF_DataTypeSize(type);
  if (in_size == 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "other tensor has zero-sized data type");
    return;
  }
  if (out_size == 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "specified output type is zero-sized");
    return;
  }
  size_t need;
  if (tensor_need(type, new_dims, num_new_dims, &need)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "invalid shape for the bitcast tensor");
    return;
  }
  if ((uint64_t)TF_TensorElementCount(from) * in_size != need) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "input and output shapes/data type sizes are not compatible");
    return;
  }
  tfc_buffer *old = to->buf;
  to->buf = tfc_buffer_ref(from->buf);
  tfc_buffer_unref(old);
  to->dtype = (int)type;
  to->ndims = num_new_dims;
  if (num_new_dims) memcpy(to->dims, new_dims, sizeof(int64_t) * (size_t)num_new_dims);
}

/* ---------------- TF_STRING elements ---------------- */

static size_t varint_length(uint64_t v) {
  size_t n = 1;
  while (v >= 128) {
    v >>= 7;
    n++;
  }
  return n;
}

static char *varint_encode(char *dst, uint64_t v) {
  unsigned char *p = (unsigned char *)dst;
  while (v >= 128) {
    *p++ = (unsigned char)(v | 128);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return (char *)p;
}

/* Parses a varint64 from [p, limit); NULL when truncated or longer than 10 bytes. */
static const char *varint_decode(const char *p, const char *limit, uint64_t *out) {
  uint64_t r = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    uint64_t byte = *(const unsigned char *)p++;
    r |= (byte & 127) << shift;
    if (!(byte & 128)) {
      *out = r;
      return p;
    }
  }
  return NULL;
}

TFC_EXPORT size_t TF_StringEncodedSize(size_t len) { return varint_length(len) + len; }

TFC_EXPORT size_t TF_StringEncode(const char *src, size_t src_len, char *dst, size_t dst_len,
                                  TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  size_t sz = TF_StringEncodedSize(src_len);
  if (sz < src_len) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "src string is too large to encode");
    return 0;
  }
  if (dst_len < sz) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "dst_len (%zu) too small to encode a %zu-byte string",
                   dst_len, src_len);
    return 0;
  }
  dst = varint_encode(dst, src_len);
  if (src_len) memcpy(dst, src, src_len);
  return sz;
}

/* Decodes one element from [src, src + src_len). TensorFlow checks only the length prefix;
 * this also rejects a length running past the end, with the same message. */
static int string_decode(const char *src, size_t src_len, const char **dst, size_t *dst_len,
                         tfc_status *s) {
  uint64_t len = 0;
  const char *p = varint_decode(src, src + src_len, &len);
  if (!p || len > (uint64_t)(src_len - (size_t)(p - src)))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "invalid string encoding or truncated src buffer");
  *dst = p;
  *dst_len = (size_t)len;
  return TFC_OK;
}

TFC_EXPORT size_t TF_StringDecode(const char *src, size_t src_len, const char **dst,
                                  size_t *dst_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (string_decode(src, src_len, dst, dst_len, s)) return 0;
  return (size_t)(*dst - src) + *dst_len;
}

/* ---------------- conversions to and from the runtime ---------------- */

static void release_buffer_ref(void *data, size_t size, void *arg) {
  (void)data;
  (void)size;
  tfc_buffer_unref(arg);
}

static tfc_tensor *string_tensor_in(const TF_Tensor *t, int64_t n, tfc_status *s) {
  const char *base = t->buf->data;
  size_t size = t->buf->size;
  if ((uint64_t)n > size / sizeof(uint64_t)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid TF_STRING tensor: insufficient memory");
    return NULL;
  }
  tfc_tensor *r = tfc_tensor_new(TFC_DT_STRING, t->dims, t->ndims, s);
  if (!r) return NULL;
  const char *region = base + sizeof(uint64_t) * (size_t)n;
  size_t region_len = size - sizeof(uint64_t) * (size_t)n;
  tfc_tstring *out = tfc_tensor_strings(r);
  for (int64_t i = 0; i < n; i++) {
    uint64_t off;
    memcpy(&off, base + sizeof(uint64_t) * (size_t)i, sizeof off); /* may be unaligned */
    if (off >= region_len) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Malformed TF_STRING tensor; element %lld out of range",
                     (long long)i);
      tfc_tensor_unref(r);
      return NULL;
    }
    const char *p = NULL;
    size_t len = 0;
    if (string_decode(region + off, region_len - (size_t)off, &p, &len, s) ||
        tfc_tstring_assign(&out[i], p, len, s)) {
      tfc_tensor_unref(r);
      return NULL;
    }
  }
  return r;
}

tfc_tensor *tfc_capi_tensor_in(const TF_Tensor *t, tfc_status *s) {
  if (!t) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "tensor is NULL");
    return NULL;
  }
  int64_t n = tfc_dims_num_elements(t->dims, t->ndims);
  if (n < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "invalid tensor dims");
    return NULL;
  }
  if (t->dtype == TF_STRING) return string_tensor_in(t, n, s);
  size_t es = tfc_dtype_size(t->dtype);
  if (!tfc_dtype_valid(t->dtype) || es == 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "unsupported tensor dtype %s (%d)",
                   tfc_dtype_name(t->dtype), t->dtype);
    return NULL;
  }
  size_t need = (size_t)n * es;
  if (t->buf->size == need) return tfc_tensor_from_buffer(t->dtype, t->dims, t->ndims, t->buf, s);
  /* The caller gave more bytes than the elements need (TensorFlow allows it): the runtime
   * sees a view of exactly the elements that keeps the whole buffer alive. */
  tfc_buffer *view = tfc_buffer_wrap(t->buf->data, need, release_buffer_ref, tfc_buffer_ref(t->buf));
  if (!view) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_tensor *r = tfc_tensor_from_buffer(t->dtype, t->dims, t->ndims, view, s);
  tfc_buffer_unref(view);
  return r;
}

static void release_tensor_ref(void *data, size_t size, void *arg) {
  (void)data;
  (void)size;
  tfc_tensor_unref(arg);
}

static TF_Tensor *string_tensor_out(tfc_tensor *t, tfc_status *s) {
  const tfc_tstring *str = tfc_tensor_strings(t);
  size_t n = (size_t)t->n_elems, size = sizeof(uint64_t) * n;
  for (size_t i = 0; i < n; i++) {
    size_t add = TF_StringEncodedSize(str[i].len);
    if (add < str[i].len || size + add < size) {
      tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "string tensor is too large to encode");
      return NULL;
    }
    size += add;
  }
  tfc_buffer *buf = tfc_buffer_new(size);
  if (!buf) {
    TFC_OOM(s);
    return NULL;
  }
  char *base = buf->data, *region = base + sizeof(uint64_t) * n, *p = region;
  for (size_t i = 0; i < n; i++) {
    uint64_t off = (uint64_t)(p - region);
    memcpy(base + sizeof(uint64_t) * i, &off, sizeof off);
    p = varint_encode(p, str[i].len);
    if (str[i].len) memcpy(p, str[i].data, str[i].len);
    p += str[i].len;
  }
  TF_Tensor *r = tensor_over(TF_STRING, t->dims, t->ndims, buf);
  if (!r) TFC_OOM(s);
  return r;
}

TF_Tensor *tfc_capi_string_scalar(const char *text, tfc_status *s) {
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, NULL, 0, s);
  if (!t) return NULL;
  TF_Tensor *out = NULL;
  if (tfc_tstring_assign(&tfc_tensor_strings(t)[0], text, strlen(text), s) == TFC_OK) out = tfc_capi_tensor_out(t, s);
  tfc_tensor_unref(t);
  return out;
}

TF_Tensor *tfc_capi_tensor_out(tfc_tensor *t, tfc_status *s) {
  if (!t) {
    tfc_status_set(s, TFC_INTERNAL, "no tensor to return");
    return NULL;
  }
  if (t->dtype == TFC_DT_STRING) return string_tensor_out(t, s);
  tfc_buffer *buf;
  if (t->data == t->buf->data && t->n_bytes == t->buf->size) {
    buf = tfc_buffer_ref(t->buf);
  } else {
    /* A tensor viewing part of a larger buffer: hand out exactly its bytes, keeping the
     * tensor (and so the buffer) alive. */
    buf = tfc_buffer_wrap(t->data, t->n_bytes, release_tensor_ref, tfc_tensor_ref(t));
    if (!buf) {
      TFC_OOM(s);
      return NULL;
    }
  }
  TF_Tensor *r = tensor_over((TF_DataType)t->dtype, t->dims, t->ndims, buf);
  if (!r) TFC_OOM(s);
  return r;
}

/* ---------------- version ---------------- */

TFC_EXPORT const char *TF_Version(void) { return "1.15.0"; }

int tfc_capi_check_out_buffer(const TF_Buffer *out, tfc_status *s) {
  if (!out) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "output TF_Buffer is NULL");
  if (out->data) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Passing non-empty TF_Buffer is invalid.");
  return TFC_OK;
}

int tfc_capi_fill_buffer(TF_Buffer *out, void *data, size_t len, tfc_status *s) {
  if (tfc_capi_check_out_buffer(out, s)) {
    free(data);
    return s->code;
  }
  out->data = data;
  out->length = len;
  out->data_deallocator = free_buffer_data;
  return TFC_OK;
}
