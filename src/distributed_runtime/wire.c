/*
 * wire — see wire.h.
 *
 * Writing. Every length in a hand-written TensorProto is known before a byte is written (the
 * dtype, the dims and the content size are all in the tensor header), so the tag and length
 * prefixes are computed first and appended as one small copied piece, followed by the
 * tensor_content segment that references the tensor's buffer. The bytes are exactly what
 * protobuf-c writes for the same message: fields in number order, proto3 defaults (a zero dim
 * size, an empty name, empty content) omitted, and the shape written even when empty (a
 * scalar), as protobuf-c does for a set message field.
 *
 * Reading is one pass with the message's cursor (it cannot rewind):
 *
 * - Top level: fields numbered tensor_field are decoded below; every other field is copied
 *   (key and payload) into one contiguous buffer that protobuf-c unpacks at the end, so the
 *   two kinds may interleave in any order. Each occurrence of tensor_field is one tensor (a
 *   repeated field's elements); for a singular field such as RecvTensorResponse.tensor the
 *   caller checks that exactly one came (no sender splits a tensor over several fields).
 * - NamedTensorProto: name (1) and tensor (2) in any order; unknown fields are skipped, and a
 *   repeated tensor field merges into the same tensor, as protobuf merges.
 * - TensorProto: dtype (1) is remembered; tensor_shape (2) payloads are concatenated (which is
 *   what protobuf's merge of a repeated message field amounts to) and parsed once at the end;
 *   tensor_content (4) is read straight into a new aligned buffer. The first other field
 *   (typed *_val, string_val, version_number...) switches the tensor to the slow path: what
 *   was read so far is re-encoded, the rest of the TensorProto is copied after it, and
 *   proto/tensor_codec decodes the whole (such tensors are small: a varint list of values).
 *
 * Framing is checked everywhere the hand-written reader goes (keys, wire types, varints of at
 * most 10 bytes, lengths within the enclosing field); protobuf-c (through tfc_pb_unpack and
 * its depth-bounded wire check) judges the pieces it is given. Depth is fixed on the
 * hand-written path (message > NamedTensorProto > TensorProto > TensorShapeProto).
 */
#include "distributed_runtime/wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "proto/pb_util.h"
#include "proto/tensor_codec.h"

/* Largest field number protobuf allows (2^29 - 1). */
#define MAX_FIELD_NO 536870911u
#define MAX_VARINT 10

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* TensorProto and NamedTensorProto field numbers (tensor.proto, named_tensor.proto). */
enum { TP_DTYPE = 1, TP_SHAPE = 2, TP_CONTENT = 4, TP_STRING_VAL = 8 };
enum { SHAPE_DIM = 2, DIM_SIZE = 1 };
enum { NT_NAME = 1, NT_TENSOR = 2 };

/* ---------------- varints ---------------- */

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static size_t put_uvarint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

static uint64_t key_of(uint32_t field, int wt) { return ((uint64_t)field << 3) | (uint64_t)wt; }

/* Size of a length-delimited field holding `len` bytes, tag included. */
static size_t len_field_size(uint32_t field, size_t len) {
  return varint_size(key_of(field, WT_LEN)) + varint_size(len) + len;
}

static size_t put_len_header(uint8_t *p, uint32_t field, size_t len) {
  size_t n = put_uvarint(p, key_of(field, WT_LEN));
  return n + put_uvarint(p + n, len);
}

/* ---------------- writing ---------------- */

static int check_field_no(int field_no, tfc_status *s) {
  if (field_no <= 0 || (unsigned)field_no > MAX_FIELD_NO)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "invalid protobuf field number %d", field_no);
  return TFC_OK;
}

static int appended(tfc_msg_out *m, int r, tfc_status *s) {
  if (r) return tfc_msg_out_status(m, s) ? s->code : TFC_OOM(s);
  return TFC_OK;
}

int tfc_wire_put_message(tfc_msg_out *m, const ProtobufCMessage *msg, tfc_status *s) {
  void *buf;
  size_t len;
  TFC_TRY(tfc_pb_pack(msg, &buf, &len, s));
  return appended(m, tfc_msg_out_append_owned(m, buf, len), s);
}

int tfc_wire_put_varint(tfc_msg_out *m, int field_no, uint64_t v, tfc_status *s) {
  TFC_TRY(check_field_no(field_no, s));
  uint8_t b[2 * MAX_VARINT];
  size_t n = put_uvarint(b, key_of((uint32_t)field_no, WT_VARINT));
  n += put_uvarint(b + n, v);
  return appended(m, tfc_msg_out_append(m, b, n), s);
}

int tfc_wire_put_bytes(tfc_msg_out *m, int field_no, const void *data, size_t len, tfc_status *s) {
  TFC_TRY(check_field_no(field_no, s));
  uint8_t b[2 * MAX_VARINT];
  size_t n = put_len_header(b, (uint32_t)field_no, len);
  if (tfc_msg_out_append(m, b, n)) return appended(m, -1, s);
  return appended(m, tfc_msg_out_append(m, data, len), s);
}

/* The sizes of a tensor's TensorProto encoding. */
typedef struct tp_layout {
  size_t shape_len;   /* TensorShapeProto payload */
  size_t strings_len; /* all string_val fields, tags included */
  size_t content_len; /* tensor_content payload (0: field omitted) */
  size_t len;         /* the whole TensorProto payload */
} tp_layout;

static size_t dim_len(int64_t size) {
  return size ? varint_size(key_of(DIM_SIZE, WT_VARINT)) + varint_size((uint64_t)size) : 0;
}

static int layout_of(const tfc_tensor *t, tp_layout *l, tfc_status *s) {
  if (t->dtype == TFC_DT_RESOURCE || t->dtype == TFC_DT_VARIANT)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "a tensor of dtype %s cannot be sent in a TensorProto",
                          tfc_dtype_name(t->dtype));
  if (!tfc_dtype_valid(t->dtype) || (!t->data && t->n_bytes))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "cannot encode a tensor of dtype %s (%d) without data",
                          tfc_dtype_name(t->dtype), t->dtype);
  memset(l, 0, sizeof *l);
  for (int i = 0; i < t->ndims; i++) l->shape_len += len_field_size(SHAPE_DIM, dim_len(t->dims[i]));
  l->len = varint_size(key_of(TP_DTYPE, WT_VARINT)) + varint_size((uint64_t)t->dtype) +
           len_field_size(TP_SHAPE, l->shape_len);
  if (t->dtype == TFC_DT_STRING) {
    const tfc_tstring *str = tfc_tensor_strings(t);
    for (int64_t i = 0; i < t->n_elems; i++) l->strings_len += len_field_size(TP_STRING_VAL, str[i].len);
    l->len += l->strings_len;
  } else if (t->n_bytes) {
    l->content_len = t->n_bytes;
    l->len += len_field_size(TP_CONTENT, t->n_bytes);
  }
  return TFC_OK;
}

/* Writes the TensorProto payload of t, except the tensor_content bytes, at p; returns the bytes
 * written. The caller sized p from the layout. */
static size_t put_tensor_head(uint8_t *p, const tfc_tensor *t, const tp_layout *l) {
  size_t n = put_uvarint(p, key_of(TP_DTYPE, WT_VARINT));
  n += put_uvarint(p + n, (uint64_t)t->dtype);
  n += put_len_header(p + n, TP_SHAPE, l->shape_len);
  for (int i = 0; i < t->ndims; i++) {
    n += put_len_header(p + n, SHAPE_DIM, dim_len(t->dims[i]));
    if (t->dims[i]) {
      n += put_uvarint(p + n, key_of(DIM_SIZE, WT_VARINT));
      n += put_uvarint(p + n, (uint64_t)t->dims[i]);
    }
  }
  if (t->dtype == TFC_DT_STRING) {
    const tfc_tstring *str = tfc_tensor_strings(t);
    for (int64_t i = 0; i < t->n_elems; i++) {
      n += put_len_header(p + n, TP_STRING_VAL, str[i].len);
      if (str[i].len) memcpy(p + n, str[i].data, str[i].len);
      n += str[i].len;
    }
  } else if (l->content_len) {
    n += put_len_header(p + n, TP_CONTENT, l->content_len);
  }
  return n;
}

static void release_tensor(void *arg) { tfc_tensor_unref(arg); }

/* Appends head (a malloc'd block whose first n_prefix bytes hold the enclosing headers) with
 * t's TensorProto payload written after them, then t's content as a referenced segment. */
static int append_tensor(tfc_msg_out *m, uint8_t *head, size_t n_prefix, tfc_tensor *t, const tp_layout *l,
                         tfc_status *s) {
  size_t n = n_prefix + put_tensor_head(head + n_prefix, t, l);
  if (tfc_msg_out_append_owned(m, head, n)) return appended(m, -1, s);
  if (!l->content_len) return TFC_OK;
  tfc_tensor_ref(t);
  return appended(m, tfc_msg_out_append_ref(m, t->data, l->content_len, release_tensor, t), s);
}

/* Room for everything but the content payload: the layout's length less that payload, the
 * name (`extra`) and the enclosing headers (field key and length, name and tensor headers). */
static uint8_t *head_alloc(const tp_layout *l, size_t extra, tfc_status *s) {
  uint8_t *head = malloc(l->len - l->content_len + extra + 4 * MAX_VARINT);
  if (!head) TFC_OOM(s);
  return head;
}

int tfc_wire_put_tensor(tfc_msg_out *m, int field_no, tfc_tensor *t, tfc_status *s) {
  TFC_TRY(check_field_no(field_no, s));
  tp_layout l;
  TFC_TRY(layout_of(t, &l, s));
  uint8_t *head = head_alloc(&l, 0, s);
  if (!head) return s->code;
  size_t n = put_len_header(head, (uint32_t)field_no, l.len);
  return append_tensor(m, head, n, t, &l, s);
}

int tfc_wire_put_named_tensor(tfc_msg_out *m, int field_no, const char *name, tfc_tensor *t, tfc_status *s) {
  TFC_TRY(check_field_no(field_no, s));
  tp_layout l;
  TFC_TRY(layout_of(t, &l, s));
  size_t name_len = name ? strlen(name) : 0;
  size_t named_len = (name_len ? len_field_size(NT_NAME, name_len) : 0) + len_field_size(NT_TENSOR, l.len);
  uint8_t *head = head_alloc(&l, name_len, s);
  if (!head) return s->code;
  size_t n = put_len_header(head, (uint32_t)field_no, named_len);
  if (name_len) {
    n += put_len_header(head + n, NT_NAME, name_len);
    memcpy(head + n, name, name_len);
    n += name_len;
  }
  n += put_len_header(head + n, NT_TENSOR, l.len);
  return append_tensor(m, head, n, t, &l, s);
}

/* ---------------- reading: plumbing ---------------- */

void tfc_wire_tensors_init(tfc_wire_tensors *t) { memset(t, 0, sizeof *t); }

void tfc_wire_tensors_fini(tfc_wire_tensors *t) {
  for (int i = 0; i < t->n; i++) {
    free(t->names[i]);
    tfc_tensor_unref(t->tensors[i]);
  }
  free(t->names);
  free(t->tensors);
  memset(t, 0, sizeof *t);
}

/* A growable byte array. */
typedef struct bytes {
  uint8_t *d;
  size_t n, cap;
} bytes;

/* Room for `more` bytes at the end of b; never NULL on success, even for 0 bytes of an empty
 * array (its first use allocates), so callers can tell success from out of memory. */
static uint8_t *bytes_reserve(bytes *b, size_t more, tfc_status *s) {
  if (!b->d || b->cap - b->n < more) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->n < more) {
      if (cap > SIZE_MAX / 2) {
        TFC_OOM(s);
        return NULL;
      }
      cap *= 2;
    }
    uint8_t *d = realloc(b->d, cap);
    if (!d) {
      TFC_OOM(s);
      return NULL;
    }
    b->d = d;
    b->cap = cap;
  }
  return b->d + b->n;
}

static int bytes_put(bytes *b, const void *data, size_t len, tfc_status *s) {
  uint8_t *p = bytes_reserve(b, len, s);
  if (!p) return s->code;
  if (len) memcpy(p, data, len);
  b->n += len;
  return TFC_OK;
}

static int bytes_put_varint(bytes *b, uint64_t v, tfc_status *s) {
  uint8_t tmp[MAX_VARINT];
  return bytes_put(b, tmp, put_uvarint(tmp, v), s);
}

/* Copies the next len bytes of the message onto the end of b. */
static int bytes_read(bytes *b, tfc_msg_in *in, size_t len, tfc_status *s) {
  uint8_t *p = bytes_reserve(b, len, s);
  if (!p) return s->code;
  if (tfc_msg_in_read(in, p, len)) return tfc_status_set(s, TFC_INTERNAL, "message read past its end");
  b->n += len;
  return TFC_OK;
}

/* The reader: the message (positions are absolute offsets in it) and its name for errors. */
typedef struct reader {
  tfc_msg_in *in;
  const char *what;
} reader;

static size_t pos_of(const reader *r) { return tfc_msg_in_len(r->in) - tfc_msg_in_remaining(r->in); }

static int invalid(const reader *r, tfc_status *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int invalid(const reader *r, tfc_status *s, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid %s: %s", r->what, buf);
}

/* Reads a varint ending before `end`, one byte at a time (it may straddle segments). The raw
 * bytes go to raw (MAX_VARINT of room) when raw is not NULL. -1 when truncated, -2 when longer
 * than 10 bytes. */
static int read_varint(reader *r, size_t end, uint64_t *out, uint8_t *raw, size_t *n_raw) {
  uint64_t v = 0;
  size_t at = pos_of(r);
  for (int i = 0; i < MAX_VARINT; i++) {
    size_t avail;
    const uint8_t *p = tfc_msg_in_peek(r->in, &avail);
    if (at + (size_t)i >= end || !avail) return -1;
    uint8_t b = p[0];
    tfc_msg_in_read(r->in, NULL, 1);
    if (raw) raw[i] = b;
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      if (n_raw) *n_raw = (size_t)i + 1;
      *out = v;
      return 0;
    }
  }
  return -2;
}

/* The error for a failed read_varint of field `field` (0: the key). */
static int varint_error(reader *r, int rc, uint32_t field, const char *where, tfc_status *s) {
  if (field == 0) return invalid(r, s, rc == -2 ? "malformed field key%s" : "truncated field key%s", where);
  return invalid(r, s, rc == -2 ? "malformed varint in field %u%s" : "truncated field %u%s", field, where);
}

/* One field key, with the checks every level shares. `where` names the enclosing field
 * ("" at the top level, " inside field N" below it). */
static int read_key(reader *r, size_t end, uint32_t *field, int *wt, const char *where, tfc_status *s) {
  uint64_t key;
  int rc = read_varint(r, end, &key, NULL, NULL);
  if (rc) return varint_error(r, rc, 0, where, s);
  uint64_t f = key >> 3;
  *wt = (int)(key & 7);
  if (f == 0 || f > MAX_FIELD_NO)
    return invalid(r, s, "invalid field number %llu%s", (unsigned long long)f, where);
  *field = (uint32_t)f;
  if (*wt != WT_VARINT && *wt != WT_I64 && *wt != WT_LEN && *wt != WT_I32)
    return invalid(r, s, "field %u%s has invalid wire type %d", *field, where, *wt);
  return TFC_OK;
}

/* The length of a length-delimited field, checked against the enclosing end. */
static int read_len(reader *r, size_t end, uint32_t field, const char *where, size_t *out, tfc_status *s) {
  uint64_t len;
  int rc = read_varint(r, end, &len, NULL, NULL);
  if (rc) return varint_error(r, rc, field, where, s);
  if (len > end - pos_of(r)) return invalid(r, s, "truncated field %u%s", field, where);
  *out = (size_t)len;
  return TFC_OK;
}

/* Skips (or, with b, copies) the payload of a field whose key was just read. */
static int take_payload(reader *r, size_t end, uint32_t field, int wt, const char *where, bytes *b,
                        tfc_status *s) {
  size_t len;
  switch (wt) {
    case WT_VARINT: {
      uint8_t raw[MAX_VARINT];
      size_t n_raw;
      uint64_t v;
      int rc = read_varint(r, end, &v, raw, &n_raw);
      if (rc) return varint_error(r, rc, field, where, s);
      return b ? bytes_put(b, raw, n_raw, s) : TFC_OK;
    }
    case WT_I64: len = 8; break;
    case WT_I32: len = 4; break;
    default: {
      uint64_t n;
      uint8_t raw[MAX_VARINT];
      size_t n_raw;
      int rc = read_varint(r, end, &n, raw, &n_raw);
      if (rc) return varint_error(r, rc, field, where, s);
      if (n > end - pos_of(r)) return invalid(r, s, "truncated field %u%s", field, where);
      if (b) TFC_TRY(bytes_put(b, raw, n_raw, s));
      len = (size_t)n;
      break;
    }
  }
  if (len > end - pos_of(r)) return invalid(r, s, "truncated field %u%s", field, where);
  if (b) return bytes_read(b, r->in, len, s);
  tfc_msg_in_read(r->in, NULL, len);
  return TFC_OK;
}

/* ---------------- reading: tensors ---------------- */

/* A TensorProto being decoded (possibly over several fields that protobuf merges). */
typedef struct tensor_dec {
  int have_dtype;
  uint64_t dtype;
  int have_shape;
  bytes shape;         /* concatenated TensorShapeProto payloads */
  tfc_buffer *content; /* the last non-empty tensor_content */
  int slow;            /* gave up on the fast path: `proto` holds the whole TensorProto */
  bytes proto;
} tensor_dec;

static void tensor_dec_fini(tensor_dec *d) {
  free(d->shape.d);
  free(d->proto.d);
  if (d->content) tfc_buffer_unref(d->content);
  memset(d, 0, sizeof *d);
}

/* Re-encodes what the fast path has read into d->proto, for tensor_codec. */
static int encode_known(tensor_dec *d, tfc_status *s) {
  if (d->have_dtype) {
    TFC_TRY(bytes_put_varint(&d->proto, key_of(TP_DTYPE, WT_VARINT), s));
    TFC_TRY(bytes_put_varint(&d->proto, d->dtype, s));
  }
  if (d->have_shape) {
    TFC_TRY(bytes_put_varint(&d->proto, key_of(TP_SHAPE, WT_LEN), s));
    TFC_TRY(bytes_put_varint(&d->proto, d->shape.n, s));
    TFC_TRY(bytes_put(&d->proto, d->shape.d, d->shape.n, s));
  }
  if (d->content) {
    TFC_TRY(bytes_put_varint(&d->proto, key_of(TP_CONTENT, WT_LEN), s));
    TFC_TRY(bytes_put_varint(&d->proto, d->content->size, s));
    TFC_TRY(bytes_put(&d->proto, d->content->data, d->content->size, s));
    tfc_buffer_unref(d->content);
    d->content = NULL;
  }
  return TFC_OK;
}

/* Reads tensor_content of len bytes into a new aligned buffer (replacing an earlier one). */
static int read_content(reader *r, tensor_dec *d, size_t len, tfc_status *s) {
  if (d->content) tfc_buffer_unref(d->content);
  d->content = NULL;
  if (len == 0) return TFC_OK; /* proto3: empty bytes are the default, i.e. no content */
  size_t max = tfc_tensor_proto_max_bytes();
  if (len > max)
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED,
                          "%s: tensor_content of %zu bytes is larger than the limit of %zu bytes", r->what,
                          len, max);
  d->content = tfc_buffer_new(len);
  if (!d->content) return TFC_OOM(s);
  if (tfc_msg_in_read(r->in, d->content->data, len))
    return tfc_status_set(s, TFC_INTERNAL, "message read past its end");
  return TFC_OK;
}

/* Decodes one TensorProto payload ending at `end` into d. */
static int read_tensor_proto(reader *r, size_t end, uint32_t outer, tensor_dec *d, tfc_status *s) {
  char where[48];
  snprintf(where, sizeof where, " inside field %u", outer);
  if (d->slow) return bytes_read(&d->proto, r->in, end - pos_of(r), s);
  while (pos_of(r) < end) {
    uint32_t field;
    int wt;
    size_t len;
    TFC_TRY(read_key(r, end, &field, &wt, where, s));
    if (field == TP_DTYPE && wt == WT_VARINT) {
      int rc = read_varint(r, end, &d->dtype, NULL, NULL);
      if (rc) return varint_error(r, rc, field, where, s);
      d->have_dtype = 1;
    } else if (field == TP_SHAPE && wt == WT_LEN) {
      TFC_TRY(read_len(r, end, field, where, &len, s));
      TFC_TRY(bytes_read(&d->shape, r->in, len, s));
      d->have_shape = 1;
    } else if (field == TP_CONTENT && wt == WT_LEN) {
      TFC_TRY(read_len(r, end, field, where, &len, s));
      TFC_TRY(read_content(r, d, len, s));
    } else {
      /* The slow path: everything so far, this key, and the rest of the payload verbatim. */
      d->slow = 1;
      TFC_TRY(encode_known(d, s));
      TFC_TRY(bytes_put_varint(&d->proto, key_of(field, wt), s));
      return bytes_read(&d->proto, r->in, end - pos_of(r), s);
    }
  }
  return TFC_OK;
}

/* Builds the tensor d describes. `label` names it in errors ("tensor 'a:0'"; "" for the one
 * tensor of a plain TensorProto field, whose errors read "Invalid RecvTensorResponse: ..."). */
static int finish_tensor(reader *r, tensor_dec *d, const char *label, tfc_tensor **out, tfc_status *s) {
  *out = NULL;
  const char *sep = *label ? ": " : "";
  const char *who = *label ? label : "tensor";
  if (!d->slow && d->content) {
    if (!d->have_dtype || d->dtype == TFC_DT_INVALID || d->dtype >= TFC_DT_COUNT ||
        !tfc_dtype_valid((int)d->dtype))
      return invalid(r, s, "%s has invalid dtype %llu", who, (unsigned long long)d->dtype);
    int dtype = (int)d->dtype;
    if (dtype != TFC_DT_STRING && dtype != TFC_DT_RESOURCE && dtype != TFC_DT_VARIANT) {
      tfc_shape sh = tfc_shape_scalar();
      if (d->have_shape && tfc_shape_from_proto_bytes(d->shape.d, d->shape.n, &sh, s))
        return tfc_status_prefix(s, "Invalid %s: %s%s", r->what, label, sep);
      char sbuf[TFC_SHAPE_STR_MAX];
      if (!tfc_shape_fully_defined(&sh))
        return invalid(r, s, "%s has a partially known shape %s", who, tfc_shape_str(&sh, sbuf, sizeof sbuf));
      int64_t n = tfc_dims_num_elements(sh.dims, sh.rank);
      size_t want;
      size_t have = d->content->size;
      if (n < 0 || __builtin_mul_overflow((size_t)n, tfc_dtype_size(dtype), &want) || want != have) {
        char wbuf[32];
        if (n < 0 || __builtin_mul_overflow((size_t)n, tfc_dtype_size(dtype), &want))
          snprintf(wbuf, sizeof wbuf, "too many bytes");
        else
          snprintf(wbuf, sizeof wbuf, "%zu bytes", want);
        return invalid(r, s, "%s%stensor_content of %zu bytes does not match %s %s (%s)", label, sep, have,
                       tfc_dtype_name(dtype), tfc_shape_str(&sh, sbuf, sizeof sbuf), wbuf);
      }
      *out = tfc_tensor_from_buffer(dtype, sh.dims, sh.rank, d->content, s);
      if (!*out) return tfc_status_prefix(s, "Invalid %s: %s%s", r->what, label, sep);
      return TFC_OK;
    }
  }
  /* No content, a string, or other fields: tensor_codec decodes the re-encoded proto. */
  if (!d->slow) TFC_TRY(encode_known(d, s));
  if (tfc_tensor_from_proto_bytes(d->proto.d, d->proto.n, out, s)) {
    if (s->code == TFC_INVALID_ARGUMENT) return tfc_status_prefix(s, "Invalid %s: %s%s", r->what, label, sep);
    return tfc_status_prefix(s, "%s: %s%s", r->what, label, sep);
  }
  return TFC_OK;
}

static int push_tensor(tfc_wire_tensors *o, char *name, tfc_tensor *t, tfc_status *s) {
  char **names = realloc(o->names, sizeof *names * (size_t)(o->n + 1));
  if (names) o->names = names;
  tfc_tensor **ts = names ? realloc(o->tensors, sizeof *ts * (size_t)(o->n + 1)) : NULL;
  if (ts) o->tensors = ts;
  if (!names || !ts) {
    free(name);
    tfc_tensor_unref(t);
    return TFC_OOM(s);
  }
  o->names[o->n] = name;
  o->tensors[o->n] = t;
  o->n++;
  return TFC_OK;
}

/* One top-level TensorProto field of len bytes. */
static int read_plain(reader *r, uint32_t field, size_t len, tfc_wire_tensors *o, tfc_status *s) {
  tensor_dec d;
  memset(&d, 0, sizeof d);
  tfc_tensor *t = NULL;
  int rc = read_tensor_proto(r, pos_of(r) + len, field, &d, s);
  if (rc == TFC_OK) rc = finish_tensor(r, &d, "", &t, s);
  tensor_dec_fini(&d);
  return rc ? rc : push_tensor(o, NULL, t, s);
}

/* One top-level NamedTensorProto field of len bytes. */
static int read_named(reader *r, uint32_t outer, size_t len, tfc_wire_tensors *o, tfc_status *s) {
  size_t end = pos_of(r) + len;
  char where[48];
  snprintf(where, sizeof where, " inside field %u", outer);
  tensor_dec d;
  memset(&d, 0, sizeof d);
  char *name = NULL;
  tfc_tensor *t = NULL;
  int rc = TFC_OK;
  while (rc == TFC_OK && pos_of(r) < end) {
    uint32_t field;
    int wt;
    size_t n;
    rc = read_key(r, end, &field, &wt, where, s);
    if (rc) break;
    if (field == NT_NAME && wt == WT_LEN) {
      rc = read_len(r, end, field, where, &n, s);
      if (rc) break;
      free(name);
      name = malloc(n + 1);
      if (!name) {
        rc = TFC_OOM(s);
        break;
      }
      tfc_msg_in_read(r->in, name, n); /* n bytes remain: read_len checked */
      name[n] = 0;
      if (strlen(name) != n) rc = invalid(r, s, "tensor name in field %u contains a NUL byte", outer);
    } else if (field == NT_TENSOR && wt == WT_LEN) {
      rc = read_len(r, end, field, where, &n, s);
      if (rc == TFC_OK) rc = read_tensor_proto(r, pos_of(r) + n, outer, &d, s);
    } else {
      rc = take_payload(r, end, field, wt, where, NULL, s); /* unknown fields are ignored */
    }
  }
  if (rc == TFC_OK) {
    char label[300];
    snprintf(label, sizeof label, "tensor '%.256s'", name ? name : "");
    rc = finish_tensor(r, &d, label, &t, s);
  }
  tensor_dec_fini(&d);
  if (rc) {
    free(name);
    return rc;
  }
  if (!name) name = tfc_strdup("");
  if (!name) {
    tfc_tensor_unref(t);
    return TFC_OOM(s);
  }
  return push_tensor(o, name, t, s);
}

/* ---------------- reading: the message ---------------- */

int tfc_wire_get_message(tfc_msg_in *in, const ProtobufCMessageDescriptor *desc, int tensor_field, int kind,
                         const char *what, ProtobufCMessage **out_msg, tfc_wire_tensors *out_tensors,
                         tfc_status *s) {
  *out_msg = NULL;
  tfc_wire_tensors_init(out_tensors);
  reader r = {in, what};
  if (kind != TFC_WIRE_TENSOR_PROTO && kind != TFC_WIRE_NAMED_TENSOR)
    return tfc_status_set(s, TFC_INTERNAL, "%s: unknown tensor field kind %d", what, kind);
  size_t end = tfc_msg_in_len(in);
  bytes rest = {0};
  int rc = TFC_OK;
  while (rc == TFC_OK && pos_of(&r) < end) {
    uint32_t field;
    int wt;
    rc = read_key(&r, end, &field, &wt, "", s);
    if (rc) break;
    if (tensor_field > 0 && field == (uint32_t)tensor_field) {
      size_t len;
      if (wt != WT_LEN) {
        rc = invalid(&r, s, "field %u has wire type %d, expected 2 (length-delimited)", field, wt);
        break;
      }
      rc = read_len(&r, end, field, "", &len, s);
      if (rc) break;
      rc = kind == TFC_WIRE_NAMED_TENSOR ? read_named(&r, field, len, out_tensors, s)
                                         : read_plain(&r, field, len, out_tensors, s);
    } else {
      rc = bytes_put_varint(&rest, key_of(field, wt), s);
      if (rc == TFC_OK) rc = take_payload(&r, end, field, wt, "", &rest, s);
    }
  }
  if (rc == TFC_OK) {
    char label[160];
    snprintf(label, sizeof label, "Invalid %s: malformed or too deeply nested fields", what);
    *out_msg = tfc_pb_unpack(desc, rest.d, rest.n, label, s);
    if (!*out_msg) rc = s->code;
  }
  free(rest.d);
  if (rc) tfc_wire_tensors_fini(out_tensors);
  return rc;
}
