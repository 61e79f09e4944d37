/* Tests of distributed_runtime/wire: tensors written by hand into protobuf messages and read back without
 * copies. Round trips of every common dtype as TensorProto (RecvTensorResponse) and as
 * NamedTensorProto (RunStepRequest feeds); byte-for-byte agreement with protobuf-c's own
 * packing in both directions; messages cut into segments anywhere; fields in any order; the
 * typed *_val fallback; and malformed input of every kind, with its exact error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "distributed_runtime/wire.h"
#include "harness.h"
#include "proto/tensor_codec.h"
#include "tensorflow/master.pb-c.h"
#include "tensorflow/worker.pb-c.h"

/* ---------------- helpers ---------------- */

#define OK(expr)                                                                                   \
  do {                                                                                             \
    tfc_status ok_s_;                                                                              \
    tfc_status_init(&ok_s_);                                                                       \
    int ok_r_ = (expr);                                                                            \
    if (ok_r_) tfc_test_fail(__FILE__, __LINE__, "%s: %s", #expr, tfc_status_msg(&ok_s_));         \
    tfc_status_fini(&ok_s_);                                                                       \
  } while (0)
#define S (&ok_s_)

static tfc_tensor *make(int dtype, const int64_t *dims, int ndims) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, &s);
  if (!t) tfc_test_fail(__FILE__, __LINE__, "tensor: %s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  return t;
}

/* A tensor whose bytes follow a pattern (bools 0/1). */
static tfc_tensor *patterned(int dtype, const int64_t *dims, int ndims, unsigned seed) {
  tfc_tensor *t = make(dtype, dims, ndims);
  uint8_t *p = t->data;
  for (size_t i = 0; i < t->n_bytes; i++) p[i] = (uint8_t)(i * 131u + seed * 7u + (i >> 8));
  if (dtype == TFC_DT_BOOL)
    for (size_t i = 0; i < t->n_bytes; i++) p[i] &= 1;
  return t;
}

static tfc_tensor *strings(const char *const *v, int n) {
  int64_t d = n;
  tfc_tensor *t = make(TFC_DT_STRING, &d, 1);
  tfc_tstring *str = tfc_tensor_strings(t);
  for (int i = 0; i < n; i++) OK(tfc_tstring_assign(&str[i], v[i], strlen(v[i]), S));
  return t;
}

static void expect_same_tensor(const tfc_tensor *a, const tfc_tensor *b) {
  EXPECT_TRUE(a && b);
  EXPECT_EQ(a->dtype, b->dtype);
  EXPECT_EQ(a->ndims, b->ndims);
  for (int i = 0; i < a->ndims; i++) EXPECT_EQ(a->dims[i], b->dims[i]);
  EXPECT_EQ(a->n_elems, b->n_elems);
  if (a->dtype == TFC_DT_STRING) {
    for (int64_t i = 0; i < a->n_elems; i++) {
      const tfc_tstring *x = &tfc_tensor_strings(a)[i], *y = &tfc_tensor_strings(b)[i];
      EXPECT_EQ(x->len, y->len);
      EXPECT_TRUE(x->len == 0 || memcmp(x->data, y->data, x->len) == 0);
    }
  } else {
    EXPECT_EQ(a->n_bytes, b->n_bytes);
    EXPECT_TRUE(a->n_bytes == 0 || memcmp(a->data, b->data, a->n_bytes) == 0);
  }
}

static int aligned64(const void *p) { return ((uintptr_t)p & 63) == 0; }

/* Reads an outgoing message back: *out_bytes gets a contiguous copy (caller frees). */
static tfc_msg_in *read_back(tfc_msg_out *m, uint8_t **out_bytes, size_t *out_len) {
  tfc_msg_in *in = tfc_msg_in_from_out(m);
  EXPECT_TRUE(in != NULL);
  *out_bytes = tfc_msg_in_flatten(in, out_len);
  EXPECT_TRUE(*out_bytes != NULL);
  return in;
}

/* The bytes split into segments: every `step` bytes, or at random sizes (1..max) when step
 * is 0. The segments borrow `data`. */
static tfc_msg_in *split(const uint8_t *data, size_t len, size_t step, size_t max, unsigned seed) {
  tfc_msg_seg *segs = calloc(len + 1, sizeof *segs);
  int n = 0;
  uint64_t x = seed * 2654435761u + 1;
  for (size_t at = 0; at < len;) {
    size_t k = step;
    if (!k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      k = 1 + (size_t)((x >> 33) % max);
    }
    if (k > len - at) k = len - at;
    segs[n++] = (tfc_msg_seg){data + at, k, NULL, NULL};
    at += k;
  }
  tfc_msg_in *in = tfc_msg_in_new(segs, n, NULL, NULL);
  free(segs);
  EXPECT_TRUE(in != NULL);
  return in;
}

/* Decodes bytes as a RunStepRequest (feeds by hand); returns the code, the message in *out_msg
 * (freed by the caller) and the error text in msg. */
static int decode_run_step(tfc_msg_in *in, Tensorflow__RunStepRequest **out_msg, tfc_wire_tensors *o,
                           char *msg, size_t msg_size) {
  tfc_status s;
  tfc_status_init(&s);
  ProtobufCMessage *pm = (ProtobufCMessage *)0x1;
  int r = tfc_wire_get_message(in, &tensorflow__run_step_request__descriptor, 2, TFC_WIRE_NAMED_TENSOR,
                               "RunStepRequest", &pm, o, &s);
  snprintf(msg, msg_size, "%s", tfc_status_msg(&s));
  EXPECT_EQ(r, s.code);
  if (r) {
    EXPECT_TRUE(pm == NULL);
    EXPECT_EQ(o->n, 0);
  } else {
    EXPECT_TRUE(pm != NULL);
  }
  tfc_status_fini(&s);
  *out_msg = (Tensorflow__RunStepRequest *)pm;
  return r;
}

static int decode_bytes_run_step(const uint8_t *b, size_t n, char *msg, size_t msg_size) {
  tfc_msg_in *in = tfc_msg_in_copy(b, n);
  Tensorflow__RunStepRequest *req;
  tfc_wire_tensors o;
  int r = decode_run_step(in, &req, &o, msg, msg_size);
  if (req) protobuf_c_message_free_unpacked(&req->base, NULL);
  tfc_wire_tensors_fini(&o);
  tfc_msg_in_free(in);
  return r;
}

static int decode_recv(tfc_msg_in *in, Tensorflow__RecvTensorResponse **out_msg, tfc_wire_tensors *o,
                       char *msg, size_t msg_size) {
  tfc_status s;
  tfc_status_init(&s);
  ProtobufCMessage *pm = NULL;
  int r = tfc_wire_get_message(in, &tensorflow__recv_tensor_response__descriptor, 1, TFC_WIRE_TENSOR_PROTO,
                               "RecvTensorResponse", &pm, o, &s);
  snprintf(msg, msg_size, "%s", tfc_status_msg(&s));
  if (r) EXPECT_TRUE(pm == NULL && o->n == 0);
  tfc_status_fini(&s);
  *out_msg = (Tensorflow__RecvTensorResponse *)pm;
  return r;
}

static int decode_bytes_recv(const uint8_t *b, size_t n, char *msg, size_t msg_size) {
  tfc_msg_in *in = tfc_msg_in_copy(b, n);
  Tensorflow__RecvTensorResponse *resp;
  tfc_wire_tensors o;
  int r = decode_recv(in, &resp, &o, msg, msg_size);
  if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
  tfc_wire_tensors_fini(&o);
  tfc_msg_in_free(in);
  return r;
}

/* protobuf-c's packing of a message (caller frees). */
static uint8_t *pack(const ProtobufCMessage *m, size_t *n) {
  void *b;
  OK(tfc_pb_pack(m, &b, n, S));
  return b;
}

/* ---------------- RecvTensorResponse: TensorProto ---------------- */

/* One tensor through a RecvTensorResponse {tensor, is_dead, send_start_micros}: the bytes
 * equal protobuf-c's, and the decoded tensor equals the original. */
static void recv_round_trip(tfc_tensor *t) {
  tfc_msg_out *m = tfc_msg_out_new();
  OK(tfc_wire_put_tensor(m, 1, t, S));
  OK(tfc_wire_put_varint(m, 2, 1, S));
  OK(tfc_wire_put_varint(m, 3, 1234567890123ull, S));
  uint8_t *ours;
  size_t n_ours;
  tfc_msg_in *in = read_back(m, &ours, &n_ours);

  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__TensorProto tp;
  OK(tfc_tensor_to_proto(t, &a, &tp, S));
  Tensorflow__RecvTensorResponse r = TENSORFLOW__RECV_TENSOR_RESPONSE__INIT;
  r.tensor = &tp;
  r.is_dead = 1;
  r.send_start_micros = 1234567890123ll;
  size_t n_ref;
  uint8_t *ref = pack(&r.base, &n_ref);
  tfc_pb_arena_fini(&a);
  EXPECT_EQ(n_ours, n_ref);
  EXPECT_TRUE(memcmp(ours, ref, n_ref) == 0);

  Tensorflow__RecvTensorResponse *resp;
  tfc_wire_tensors o;
  char msg[512];
  EXPECT_EQ(decode_recv(in, &resp, &o, msg, sizeof msg), TFC_OK);
  EXPECT_EQ(o.n, 1);
  EXPECT_TRUE(o.names[0] == NULL);
  expect_same_tensor(o.tensors[0], t);
  if (t->n_bytes) EXPECT_TRUE(aligned64(o.tensors[0]->data));
  EXPECT_TRUE(resp->tensor == NULL);
  EXPECT_EQ(resp->is_dead, 1);
  EXPECT_EQ(resp->send_start_micros, 1234567890123ll);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  tfc_wire_tensors_fini(&o);

  /* The same bytes in 1-byte segments and in random ones. */
  for (unsigned seed = 0; seed < 4; seed++) {
    tfc_msg_in *sp = split(ref, n_ref, seed == 0 ? 1 : 0, 7, seed);
    EXPECT_EQ(decode_recv(sp, &resp, &o, msg, sizeof msg), TFC_OK);
    EXPECT_EQ(o.n, 1);
    expect_same_tensor(o.tensors[0], t);
    if (t->n_bytes) EXPECT_TRUE(aligned64(o.tensors[0]->data));
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    tfc_wire_tensors_fini(&o);
    tfc_msg_in_free(sp);
  }
  tfc_msg_in_free(in);
  free(ours);
  free(ref);
}

static void wire_tensor_proto_round_trips_every_common_dtype(void) {
  const int64_t d23[] = {2, 3}, d4[] = {4}, d0[] = {3, 0}, d1x[] = {1, 1, 5};
  const int dtypes[] = {TFC_DT_FLOAT, TFC_DT_INT32, TFC_DT_INT64, TFC_DT_DOUBLE, TFC_DT_BOOL, TFC_DT_UINT8,
                        TFC_DT_HALF, TFC_DT_COMPLEX64};
  for (size_t i = 0; i < TFC_ARRAY_SIZE(dtypes); i++) {
    tfc_tensor *t = patterned(dtypes[i], d23, 2, (unsigned)i);
    recv_round_trip(t);
    tfc_tensor_unref(t);
    t = patterned(dtypes[i], d1x, 3, (unsigned)i + 100);
    recv_round_trip(t);
    tfc_tensor_unref(t);
  }
  /* Scalars (empty shape message), empty tensors (no content), strings. */
  tfc_tensor *t = patterned(TFC_DT_FLOAT, NULL, 0, 9);
  recv_round_trip(t);
  tfc_tensor_unref(t);
  t = patterned(TFC_DT_INT64, d4, 1, 3);
  recv_round_trip(t);
  tfc_tensor_unref(t);
  t = patterned(TFC_DT_FLOAT, d0, 2, 0);
  EXPECT_EQ(t->n_bytes, 0);
  recv_round_trip(t);
  tfc_tensor_unref(t);
  const char *const words[] = {"", "hello", "a\0b", "\xff\xfe"};
  t = strings(words, 4);
  recv_round_trip(t);
  tfc_tensor_unref(t);
  t = make(TFC_DT_STRING, d0, 2);
  recv_round_trip(t);
  tfc_tensor_unref(t);
}

static void wire_tensor_content_references_the_tensor_until_the_message_is_freed(void) {
  const int64_t d[] = {8 << 20}; /* 32 MiB of floats */
  tfc_tensor *t = patterned(TFC_DT_FLOAT, d, 1, 5);
  tfc_msg_out *m = tfc_msg_out_new();
  OK(tfc_wire_put_tensor(m, 1, t, S));
  EXPECT_EQ(atomic_load(&t->refs), 2);
  /* Header piece + the tensor's own bytes, not a copy. */
  EXPECT_EQ(m->n_segs, 2);
  EXPECT_TRUE(m->segs[1].data == t->data);
  EXPECT_EQ(m->segs[1].len, t->n_bytes);
  /* key + 4-byte length, dtype 2, shape header 2, dim header 2, size 1 + 4, content header 1 + 4 */
  EXPECT_EQ(m->len, t->n_bytes + 21);

  tfc_msg_in *in = tfc_msg_in_from_out(m);
  Tensorflow__RecvTensorResponse *resp;
  tfc_wire_tensors o;
  char msg[512];
  EXPECT_EQ(decode_recv(in, &resp, &o, msg, sizeof msg), TFC_OK);
  EXPECT_EQ(o.n, 1);
  EXPECT_TRUE(o.tensors[0]->data != t->data);
  EXPECT_TRUE(aligned64(o.tensors[0]->data));
  expect_same_tensor(o.tensors[0], t);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  tfc_wire_tensors_fini(&o);
  EXPECT_EQ(atomic_load(&t->refs), 2);
  tfc_msg_in_free(in);
  EXPECT_EQ(atomic_load(&t->refs), 1);

  /* Flattened and cut at random sizes up to 1 MiB: the content spans dozens of segments. */
  m = tfc_msg_out_new();
  OK(tfc_wire_put_tensor(m, 1, t, S));
  uint8_t *bytes;
  size_t n;
  in = read_back(m, &bytes, &n);
  tfc_msg_in_free(in);
  in = split(bytes, n, 0, 1 << 20, 77);
  EXPECT_EQ(decode_recv(in, &resp, &o, msg, sizeof msg), TFC_OK);
  expect_same_tensor(o.tensors[0], t);
  EXPECT_TRUE(aligned64(o.tensors[0]->data));
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  tfc_wire_tensors_fini(&o);
  tfc_msg_in_free(in);
  free(bytes);
  tfc_tensor_unref(t);
}

/* ---------------- RunStepRequest: NamedTensorProto ---------------- */

typedef struct feeds {
  tfc_tensor *t[3];
  const char *names[3];
} feeds;

static feeds make_feeds(void) {
  const int64_t d[] = {2, 3}, v[] = {5};
  const char *const words[] = {"abc", "", "tf"};
  feeds f = {{patterned(TFC_DT_FLOAT, d, 2, 1), strings(words, 3), patterned(TFC_DT_INT64, v, 1, 2)},
             {"x:0", "words:0", "ids:1"}};
  return f;
}

static void free_feeds(feeds *f) {
  for (int i = 0; i < 3; i++) tfc_tensor_unref(f->t[i]);
}

/* session_handle and fetch via protobuf-c, then the feeds by hand. */
static tfc_msg_out *run_step_message(const feeds *f) {
  Tensorflow__RunStepRequest req = TENSORFLOW__RUN_STEP_REQUEST__INIT;
  char *fetch[] = {"y:0", "z:1"};
  req.session_handle = "sess-42";
  req.n_fetch = 2;
  req.fetch = fetch;
  req.request_id = 99;
  tfc_msg_out *m = tfc_msg_out_new();
  OK(tfc_wire_put_message(m, &req.base, S));
  for (int i = 0; i < 3; i++) OK(tfc_wire_put_named_tensor(m, 2, f->names[i], f->t[i], S));
  return m;
}

static void expect_run_step(const Tensorflow__RunStepRequest *req, const tfc_wire_tensors *o, const feeds *f) {
  EXPECT_STREQ(req->session_handle, "sess-42");
  EXPECT_EQ(req->n_fetch, 2);
  EXPECT_STREQ(req->fetch[0], "y:0");
  EXPECT_STREQ(req->fetch[1], "z:1");
  EXPECT_EQ(req->request_id, 99);
  EXPECT_EQ(req->n_feed, 0);
  EXPECT_EQ(o->n, 3);
  for (int i = 0; i < 3; i++) {
    EXPECT_STREQ(o->names[i], f->names[i]);
    expect_same_tensor(o->tensors[i], f->t[i]);
    EXPECT_TRUE(aligned64(o->tensors[i]->data));
  }
}

static void wire_run_step_feeds_round_trip_and_match_protobuf_c(void) {
  feeds f = make_feeds();
  uint8_t *ours;
  size_t n_ours;
  tfc_msg_in *in = read_back(run_step_message(&f), &ours, &n_ours);
  Tensorflow__RunStepRequest *req;
  tfc_wire_tensors o;
  char msg[512];
  EXPECT_EQ(decode_run_step(in, &req, &o, msg, sizeof msg), TFC_OK);
  expect_run_step(req, &o, &f);
  protobuf_c_message_free_unpacked(&req->base, NULL);
  tfc_wire_tensors_fini(&o);
  tfc_msg_in_free(in);

  /* protobuf-c's bytes: the other fields packed, then a message of just the feeds. */
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__RunStepRequest other = TENSORFLOW__RUN_STEP_REQUEST__INIT, only = TENSORFLOW__RUN_STEP_REQUEST__INIT;
  char *fetch[] = {"y:0", "z:1"};
  other.session_handle = "sess-42";
  other.n_fetch = 2;
  other.fetch = fetch;
  other.request_id = 99;
  Tensorflow__NamedTensorProto nt[3], *ntp[3];
  Tensorflow__TensorProto tp[3];
  for (int i = 0; i < 3; i++) {
    tensorflow__named_tensor_proto__init(&nt[i]);
    nt[i].name = (char *)f.names[i];
    OK(tfc_tensor_to_proto(f.t[i], &a, &tp[i], S));
    nt[i].tensor = &tp[i];
    ntp[i] = &nt[i];
  }
  only.n_feed = 3;
  only.feed = ntp;
  size_t n1, n2;
  uint8_t *p1 = pack(&other.base, &n1), *p2 = pack(&only.base, &n2);
  EXPECT_EQ(n_ours, n1 + n2);
  EXPECT_TRUE(memcmp(ours, p1, n1) == 0);
  EXPECT_TRUE(memcmp(ours + n1, p2, n2) == 0);
  tfc_pb_arena_fini(&a);

  /* protobuf-c reads our bytes as the full message with the same feeds. */
  Tensorflow__RunStepRequest *full = (Tensorflow__RunStepRequest *)protobuf_c_message_unpack(
      &tensorflow__run_step_request__descriptor, NULL, n_ours, ours);
  EXPECT_TRUE(full != NULL);
  EXPECT_STREQ(full->session_handle, "sess-42");
  EXPECT_EQ(full->n_feed, 3);
  for (int i = 0; i < 3; i++) {
    EXPECT_STREQ(full->feed[i]->name, f.names[i]);
    tfc_tensor *t;
    OK(tfc_tensor_from_proto(full->feed[i]->tensor, &t, S));
    expect_same_tensor(t, f.t[i]);
    tfc_tensor_unref(t);
  }
  protobuf_c_message_free_unpacked(&full->base, NULL);

  /* And our decoder reads protobuf-c's packing of the full message (feeds before fetch). */
  other.n_feed = 3;
  other.feed = ntp;
  tfc_pb_arena_init(&a);
  for (int i = 0; i < 3; i++) OK(tfc_tensor_to_proto(f.t[i], &a, &tp[i], S));
  size_t n3;
  uint8_t *p3 = pack(&other.base, &n3);
  tfc_pb_arena_fini(&a);
  for (unsigned seed = 0; seed < 6; seed++) {
    in = split(p3, n3, seed == 0 ? 1 : 0, 1 + seed * 5, seed);
    EXPECT_EQ(decode_run_step(in, &req, &o, msg, sizeof msg), TFC_OK);
    expect_run_step(req, &o, &f);
    protobuf_c_message_free_unpacked(&req->base, NULL);
    tfc_wire_tensors_fini(&o);
    tfc_msg_in_free(in);
  }
  free(p1);
  free(p2);
  free(p3);
  free(ours);
  free_feeds(&f);
}

static void wire_empty_message_unpacks_to_defaults(void) {
  char msg[512];
  tfc_msg_in *in = tfc_msg_in_copy("", 0);
  Tensorflow__RunStepRequest *req;
  tfc_wire_tensors o;
  EXPECT_EQ(decode_run_step(in, &req, &o, msg, sizeof msg), TFC_OK);
  EXPECT_EQ(o.n, 0);
  EXPECT_STREQ(req->session_handle, "");
  protobuf_c_message_free_unpacked(&req->base, NULL);
  tfc_wire_tensors_fini(&o);
  tfc_msg_in_free(in);
}

/* ---------------- hand-made encodings ---------------- */

/* Builds a message from (bytes, length) pieces. */
typedef struct buf {
  uint8_t d[4096];
  size_t n;
} buf;

static void put(buf *b, const void *p, size_t n) {
  memcpy(b->d + b->n, p, n);
  b->n += n;
}
#define PUT(b, ...)                                                                                \
  do {                                                                                             \
    const uint8_t put_[] = {__VA_ARGS__};                                                          \
    put(b, put_, sizeof put_);                                                                     \
  } while (0)

static const float F4[4] = {1.5f, -2.0f, 3.25f, 1e10f};

static void wire_reads_fields_in_any_order(void) {
  /* RunStepRequest: fetch, a feed whose tensor comes before its name and whose content comes
   * before dtype and a shape split over two fields, the session handle, a second feed. */
  buf b = {.n = 0};
  PUT(&b, 0x1a, 3, 'y', ':', '0');                    /* fetch */
  PUT(&b, 0x12, 2 + 28 + 5);                          /* feed: NamedTensorProto */
  PUT(&b, 0x12, 28);                                  /*   tensor */
  PUT(&b, 0x22, 16);                                  /*     tensor_content */
  put(&b, F4, 16);
  PUT(&b, 0x12, 2, 0x12, 0);                          /*     shape { dim {} } ... */
  PUT(&b, 0x08, 1);                                   /*     dtype float */
  PUT(&b, 0x12, 2, 0x12, 0);                          /*     ... merged with shape { dim {} } */
  PUT(&b, 0x0a, 3, 'a', ':', '0');                    /*   name */
  PUT(&b, 0x0a, 4, 's', 'e', 's', 's');               /* session_handle */
  PUT(&b, 0x12, 8, 0x12, 6, 0x08, 3, 0x12, 0, 0x1a, 0); /* feed: unnamed int32 scalar, zero */
  /* The shape above has two size-0 dims: content of 16 bytes does not fit [0,0]. */
  char msg[512];
  EXPECT_EQ(decode_bytes_run_step(b.d, b.n, msg, sizeof msg), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "Invalid RunStepRequest: tensor 'a:0': tensor_content of 16 bytes does not match float "
                    "[0,0] (0 bytes)");

  /* Now with dims 2 and 2. */
  b.n = 0;
  PUT(&b, 0x1a, 3, 'y', ':', '0');
  PUT(&b, 0x12, 2 + 32 + 5);
  PUT(&b, 0x12, 32);
  PUT(&b, 0x22, 16);
  put(&b, F4, 16);
  PUT(&b, 0x12, 4, 0x12, 2, 0x08, 2);
  PUT(&b, 0x08, 1);
  PUT(&b, 0x12, 4, 0x12, 2, 0x08, 2);
  PUT(&b, 0x0a, 3, 'a', ':', '0');
  PUT(&b, 0x0a, 4, 's', 'e', 's', 's');
  PUT(&b, 0x12, 6, 0x12, 4, 0x08, 3, 0x12, 0);
  for (unsigned seed = 0; seed < 3; seed++) {
    tfc_msg_in *in = split(b.d, b.n, seed == 0 ? 1 : 0, 5, seed);
    Tensorflow__RunStepRequest *req;
    tfc_wire_tensors o;
    EXPECT_EQ(decode_run_step(in, &req, &o, msg, sizeof msg), TFC_OK);
    EXPECT_STREQ(req->session_handle, "sess");
    EXPECT_EQ(req->n_fetch, 1);
    EXPECT_STREQ(req->fetch[0], "y:0");
    EXPECT_EQ(o.n, 2);
    EXPECT_STREQ(o.names[0], "a:0");
    EXPECT_EQ(o.tensors[0]->dtype, TFC_DT_FLOAT);
    EXPECT_EQ(o.tensors[0]->ndims, 2);
    EXPECT_EQ(o.tensors[0]->dims[0], 2);
    EXPECT_EQ(o.tensors[0]->dims[1], 2);
    EXPECT_TRUE(aligned64(o.tensors[0]->data));
    EXPECT_TRUE(memcmp(o.tensors[0]->data, F4, 16) == 0);
    EXPECT_STREQ(o.names[1], "");
    EXPECT_EQ(o.tensors[1]->dtype, TFC_DT_INT32);
    EXPECT_EQ(o.tensors[1]->ndims, 0);
    EXPECT_EQ(*(int32_t *)o.tensors[1]->data, 0);
    protobuf_c_message_free_unpacked(&req->base, NULL);
    tfc_wire_tensors_fini(&o);
    tfc_msg_in_free(in);
  }
}

static void wire_scalar_shape_may_be_omitted_or_empty(void) {
  const int32_t v = -7;
  buf b = {.n = 0};
  PUT(&b, 0x0a, 8, 0x08, 3, 0x22, 4); /* no shape field */
  put(&b, &v, 4);
  PUT(&b, 0x0a, 10, 0x08, 3, 0x12, 0, 0x22, 4); /* empty shape field */
  put(&b, &v, 4);
  tfc_msg_in *in = tfc_msg_in_copy(b.d, b.n);
  Tensorflow__RecvTensorResponse *resp;
  tfc_wire_tensors o;
  char msg[512];
  EXPECT_EQ(decode_recv(in, &resp, &o, msg, sizeof msg), TFC_OK);
  EXPECT_EQ(o.n, 2);
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(o.tensors[i]->ndims, 0);
    EXPECT_EQ(o.tensors[i]->n_elems, 1);
    EXPECT_EQ(*(int32_t *)o.tensors[i]->data, -7);
  }
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  tfc_wire_tensors_fini(&o);
  tfc_msg_in_free(in);
}

static void wire_typed_values_fall_back_to_the_tensor_codec(void) {
  /* float_val 2.5 for shape [3] (padded); then content followed by version_number (the fast
   * path had already read the content); then string_val; then int64_val packed. */
  buf b = {.n = 0};
  PUT(&b, 0x0a, 14, 0x08, 1, 0x12, 4, 0x12, 2, 0x08, 3, 0x2a, 4, 0x00, 0x00, 0x20, 0x40);
  PUT(&b, 0x0a, 28, 0x08, 1, 0x12, 4, 0x12, 2, 0x08, 4, 0x22, 16);
  put(&b, F4, 16);
  PUT(&b, 0x18, 5); /* version_number */
  PUT(&b, 0x0a, 13, 0x08, 7, 0x12, 4, 0x12, 2, 0x08, 2, 0x42, 1, 'q', 0x42, 0);
  PUT(&b, 0x0a, 12, 0x08, 9, 0x12, 4, 0x12, 2, 0x08, 2, 0x52, 2, 0x7f, 0x01);
  PUT(&b, 0x10, 1); /* is_dead after the tensors */
  for (unsigned seed = 0; seed < 3; seed++) {
    tfc_msg_in *in = split(b.d, b.n, seed == 0 ? 1 : 0, 9, seed);
    Tensorflow__RecvTensorResponse *resp;
    tfc_wire_tensors o;
    char msg[512];
    EXPECT_EQ(decode_recv(in, &resp, &o, msg, sizeof msg), TFC_OK);
    EXPECT_EQ(resp->is_dead, 1);
    EXPECT_EQ(o.n, 4);
    const float *f = o.tensors[0]->data;
    EXPECT_EQ(o.tensors[0]->n_elems, 3);
    EXPECT_TRUE(f[0] == 2.5f && f[1] == 2.5f && f[2] == 2.5f);
    EXPECT_EQ(o.tensors[1]->n_elems, 4);
    EXPECT_TRUE(memcmp(o.tensors[1]->data, F4, 16) == 0);
    EXPECT_EQ(o.tensors[2]->dtype, TFC_DT_STRING);
    EXPECT_EQ(tfc_tensor_strings(o.tensors[2])[0].len, 1);
    EXPECT_EQ(tfc_tensor_strings(o.tensors[2])[0].data[0], 'q');
    EXPECT_EQ(tfc_tensor_strings(o.tensors[2])[1].len, 0);
    const int64_t *i64 = o.tensors[3]->data;
    EXPECT_TRUE(i64[0] == 127 && i64[1] == 1);
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    tfc_wire_tensors_fini(&o);
    tfc_msg_in_free(in);
  }
  /* More typed values than elements: the first ones count, as in TF. */
  b.n = 0;
  PUT(&b, 0x0a, 18, 0x08, 1, 0x12, 4, 0x12, 2, 0x08, 1, 0x2a, 8, 0, 0, 0, 0, 0, 0, 0, 0);
  char msg[512];
  EXPECT_EQ(decode_bytes_recv(b.d, b.n, msg, sizeof msg), TFC_OK);
  /* Content of the wrong size on the slow path is the codec's error, prefixed. */
  b.n = 0;
  PUT(&b, 0x0a, 16, 0x08, 1, 0x12, 4, 0x12, 2, 0x08, 2, 0x22, 4, 0, 0, 0, 0, 0x18, 1);
  EXPECT_EQ(decode_bytes_recv(b.d, b.n, msg, sizeof msg), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "Invalid RecvTensorResponse: TensorProto tensor_content has 4 bytes, but dtype float and "
                    "shape [2] need 8");
}

/* ---------------- malformed input ---------------- */

static void wire_truncation_at_every_offset_is_invalid_argument(void) {
  feeds f = make_feeds();
  Tensorflow__RunStepRequest req = TENSORFLOW__RUN_STEP_REQUEST__INIT;
  char *fetch[] = {"y:0"};
  tfc_msg_out *m = tfc_msg_out_new();
  /* Field boundaries, and the field number of each region. */
  size_t ends[8];
  unsigned fields[8];
  int n_regions = 0;
  req.session_handle = "s";
  OK(tfc_wire_put_message(m, &req.base, S));
  ends[n_regions] = m->len, fields[n_regions++] = 1;
  req.session_handle = "";
  req.n_fetch = 1;
  req.fetch = fetch;
  OK(tfc_wire_put_message(m, &req.base, S));
  ends[n_regions] = m->len, fields[n_regions++] = 3;
  OK(tfc_wire_put_named_tensor(m, 2, "x:0", f.t[0], S));
  ends[n_regions] = m->len, fields[n_regions++] = 2;
  OK(tfc_wire_put_named_tensor(m, 2, "w", f.t[1], S));
  ends[n_regions] = m->len, fields[n_regions++] = 2;
  OK(tfc_wire_put_varint(m, 8, 300, S));
  ends[n_regions] = m->len, fields[n_regions++] = 8;
  uint8_t *bytes;
  size_t n;
  tfc_msg_in *in = read_back(m, &bytes, &n);
  tfc_msg_in_free(in);
  EXPECT_EQ(n, ends[n_regions - 1]);
  int region = 0, n_ok = 0;
  for (size_t cut = 0; cut <= n; cut++) {
    if (region < n_regions && cut > ends[region]) region++;
    char msg[512];
    int r = decode_bytes_run_step(bytes, cut, msg, sizeof msg);
    int boundary = cut == 0;
    for (int i = 0; i < n_regions; i++) boundary |= cut == ends[i];
    if (boundary) {
      EXPECT_EQ(r, TFC_OK);
      n_ok++;
    } else {
      char want[128];
      snprintf(want, sizeof want, "Invalid RunStepRequest: truncated field %u", fields[region]);
      EXPECT_EQ(r, TFC_INVALID_ARGUMENT);
      EXPECT_STREQ(msg, want);
    }
  }
  EXPECT_EQ(n_ok, n_regions + 1);
  free(bytes);
  free_feeds(&f);
}

/* Every byte of a valid message replaced by a few values: each result is a clean status. */
static void wire_mutated_messages_give_statuses_never_crashes(void) {
  feeds f = make_feeds();
  uint8_t *bytes;
  size_t n;
  tfc_msg_in *in = read_back(run_step_message(&f), &bytes, &n);
  tfc_msg_in_free(in);
  tfc_tensor_proto_set_max_bytes(1 << 20); /* a mutated dim must not ask for gigabytes of zeros */
  static const uint8_t values[] = {0x00, 0x01, 0x07, 0x0b, 0x7f, 0x80, 0xff};
  int n_ok = 0, n_err = 0;
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < sizeof values; k++) {
      uint8_t save = bytes[i];
      bytes[i] = values[k];
      char msg[512];
      int r = decode_bytes_run_step(bytes, n, msg, sizeof msg);
      bytes[i] = save;
      if (r == TFC_OK) {
        n_ok++;
        continue;
      }
      n_err++;
      EXPECT_TRUE(r == TFC_INVALID_ARGUMENT || r == TFC_RESOURCE_EXHAUSTED || r == TFC_UNIMPLEMENTED);
      EXPECT_TRUE(strncmp(msg, "Invalid RunStepRequest: ", 24) == 0 || strncmp(msg, "RunStepRequest: ", 16) == 0);
    }
  }
  EXPECT_TRUE(n_ok > 0 && n_err > 0);
  tfc_tensor_proto_set_max_bytes((size_t)16 << 30);
  free(bytes);
  free_feeds(&f);
}

typedef struct bad_case {
  uint8_t d[24];
  size_t n;
  int code;
  const char *msg;
} bad_case;

static void wire_rejects_malformed_framing_with_exact_messages(void) {
  static const bad_case cases[] = {
      {{0x0b}, 1, TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: field 1 has invalid wire type 3"},
      {{0x0c}, 1, TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: field 1 has invalid wire type 4"},
      {{0x1e}, 1, TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: field 3 has invalid wire type 6"},
      {{0x47}, 1, TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: field 8 has invalid wire type 7"},
      {{0x02, 0}, 2, TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: invalid field number 0"},
      {{0x80}, 1, TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: truncated field key"},
      {{0x40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 12, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: malformed varint in field 8"},
      {{0x10, 0x01}, 2, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: field 2 has wire type 0, expected 2 (length-delimited)"},
      {{0x12, 0x01, 0x0f}, 3, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: field 1 inside field 2 has invalid wire type 7"},
      {{0x12, 0x03, 0x12, 0x01, 0x0e}, 5, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: field 1 inside field 2 has invalid wire type 6"},
      {{0x12, 0x04, 0x12, 0x02, 0x22, 0x05}, 6, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: truncated field 4 inside field 2"},
      {{0x12, 0x04, 0x12, 0x05, 0x22, 0x00}, 6, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: truncated field 2 inside field 2"},
      {{0x12, 0x03, 0x12, 0x01, 0x08}, 5, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: truncated field 1 inside field 2"},
      {{0x12, 0x04, 0x0a, 0x02, 'a', 0}, 6, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: tensor name in field 2 contains a NUL byte"},
      {{0x12, 0x03, 0x0a, 0x01, 'a'}, 5, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: tensor 'a': TensorProto has invalid dtype 0"},
      {{0x12, 0x07, 0x12, 0x05, 0x08, 0x63, 0x22, 0x01, 0x00}, 9, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: tensor '' has invalid dtype 99"},
      {{0x12, 0x0b, 0x12, 0x09, 0x08, 0x01, 0x12, 0x03, 0x12, 0x01, 0x00, 0x22, 0x00}, 13, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: tensor '': Unparseable TensorProto"},
      {{0x12, 0x0f, 0x12, 0x0d, 0x08, 0x01, 0x12, 0x03, 0x12, 0x01, 0x08, 0x22, 0x04, 0, 0, 0, 0}, 17,
       TFC_INVALID_ARGUMENT, "Invalid RunStepRequest: tensor '': Unparseable TensorShapeProto"},
      {{0x12, 0x08, 0x12, 0x06, 0x08, 0x07, 0x22, 0x02, 'h', 'i'}, 10, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: tensor '': TensorProto of dtype string must use string_val, not tensor_content"},
      {{0x12, 0x06, 0x12, 0x04, 0x08, 0x14, 0x22, 0x00}, 8, TFC_UNIMPLEMENTED,
       "RunStepRequest: tensor '': TensorProto of dtype resource is not supported"},
      {{0x2a, 0x02, 0x0b, 0x00}, 4, TFC_INVALID_ARGUMENT,
       "Invalid RunStepRequest: malformed or too deeply nested fields"},
  };
  for (size_t i = 0; i < TFC_ARRAY_SIZE(cases); i++) {
    char msg[512];
    int r = decode_bytes_run_step(cases[i].d, cases[i].n, msg, sizeof msg);
    if (r != cases[i].code || strcmp(msg, cases[i].msg))
      tfc_test_fail(__FILE__, __LINE__, "case %zu: got %d \"%s\", want %d \"%s\"", i, r, msg, cases[i].code,
                    cases[i].msg);
  }
}

static void wire_content_size_mismatch_names_dtype_shape_and_sizes(void) {
  buf b = {.n = 0};
  PUT(&b, 0x0a, 26, 0x08, 1, 0x12, 8, 0x12, 2, 0x08, 2, 0x12, 2, 0x08, 2, 0x22, 12);
  put(&b, F4, 12);
  char msg[512];
  EXPECT_EQ(decode_bytes_recv(b.d, b.n, msg, sizeof msg), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "Invalid RecvTensorResponse: tensor_content of 12 bytes does not match float [2,2] (16 bytes)");
  /* A shape with unknown dims cannot hold content. */
  b.n = 0;
  PUT(&b, 0x0a, 31, 0x08, 1, 0x12, 13, 0x12, 11, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
      0x22, 12);
  put(&b, F4, 12);
  EXPECT_EQ(decode_bytes_recv(b.d, b.n, msg, sizeof msg), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "Invalid RecvTensorResponse: tensor has a partially known shape [?]");
  /* Huge dims cannot overflow the size check. */
  b.n = 0;
  PUT(&b, 0x0a, 42, 0x08, 1, 0x12, 24, 0x12, 10, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x12,
      10, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x22, 12);
  put(&b, F4, 12);
  EXPECT_EQ(decode_bytes_recv(b.d, b.n, msg, sizeof msg), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Invalid RecvTensorResponse: tensor_content of 12 bytes does not match float [");
  EXPECT_CONTAINS(msg, "(too many bytes)");
}

static void wire_respects_the_tensor_codec_byte_limit(void) {
  const int64_t d[] = {1024};
  tfc_tensor *t = patterned(TFC_DT_FLOAT, d, 1, 1);
  tfc_msg_out *m = tfc_msg_out_new();
  OK(tfc_wire_put_tensor(m, 1, t, S));
  tfc_msg_in *in = tfc_msg_in_from_out(m);
  tfc_tensor_proto_set_max_bytes(4095);
  Tensorflow__RecvTensorResponse *resp;
  tfc_wire_tensors o;
  char msg[512];
  EXPECT_EQ(decode_recv(in, &resp, &o, msg, sizeof msg), TFC_RESOURCE_EXHAUSTED);
  EXPECT_STREQ(msg, "RecvTensorResponse: tensor_content of 4096 bytes is larger than the limit of 4095 bytes");
  tfc_msg_in_free(in);
  /* Without content, zeros of a huge declared shape are refused by the codec. */
  const uint8_t zeros[] = {0x0a, 0x0b, 0x08, 0x01, 0x12, 0x07, 0x12, 0x05, 0x08, 0x80, 0x80, 0x80, 0x10};
  EXPECT_EQ(decode_bytes_recv(zeros, sizeof zeros, msg, sizeof msg), TFC_RESOURCE_EXHAUSTED);
  EXPECT_CONTAINS(msg, "RecvTensorResponse: TensorProto of dtype float and shape [33554432] is larger");
  tfc_tensor_proto_set_max_bytes((size_t)16 << 30);
  tfc_tensor_unref(t);
}

static void wire_put_rejects_resource_tensors_and_bad_field_numbers(void) {
  tfc_tensor *t = patterned(TFC_DT_FLOAT, NULL, 0, 1);
  tfc_msg_out *m = tfc_msg_out_new();
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_wire_put_tensor(m, 0, t, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "invalid protobuf field number 0");
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_wire_put_varint(m, 1 << 29, 1, &s), TFC_INVALID_ARGUMENT);
  tfc_status_clear(&s);
  EXPECT_EQ(m->len, 0);
  tfc_tensor_unref(t);

  /* A resource tensor has no TensorProto form here; the header only is built by hand. */
  tfc_tensor fake;
  memset(&fake, 0, sizeof fake);
  fake.dtype = TFC_DT_RESOURCE;
  EXPECT_EQ(tfc_wire_put_named_tensor(m, 2, "h", &fake, &s), TFC_UNIMPLEMENTED);
  EXPECT_STREQ(tfc_status_msg(&s), "a tensor of dtype resource cannot be sent in a TensorProto");
  EXPECT_EQ(m->len, 0);
  tfc_status_fini(&s);

  /* put_bytes and put_varint write what protobuf-c writes. */
  OK(tfc_wire_put_bytes(m, 4, "err", 3, S));
  OK(tfc_wire_put_varint(m, 3, (uint64_t)-5, S));
  uint8_t *ours;
  size_t n;
  tfc_msg_in *in = read_back(m, &ours, &n);
  Tensorflow__RunStepResponse r = TENSORFLOW__RUN_STEP_RESPONSE__INIT;
  r.status_code = -5;
  r.status_error_message = "err";
  size_t n_ref;
  uint8_t *ref = pack(&r.base, &n_ref);
  /* protobuf-c orders by field number: 3 then 4. */
  EXPECT_EQ(n, n_ref);
  EXPECT_TRUE(memcmp(ours, ref + 11, 5) == 0);
  EXPECT_TRUE(memcmp(ours + 5, ref, 11) == 0);
  free(ref);
  free(ours);
  tfc_msg_in_free(in);
}

static const tfc_test tests[] = {
    TFC_TEST(wire_tensor_proto_round_trips_every_common_dtype),
    TFC_TEST(wire_tensor_content_references_the_tensor_until_the_message_is_freed),
    TFC_TEST(wire_run_step_feeds_round_trip_and_match_protobuf_c),
    TFC_TEST(wire_empty_message_unpacks_to_defaults),
    TFC_TEST(wire_reads_fields_in_any_order),
    TFC_TEST(wire_scalar_shape_may_be_omitted_or_empty),
    TFC_TEST(wire_typed_values_fall_back_to_the_tensor_codec),
    TFC_TEST(wire_truncation_at_every_offset_is_invalid_argument),
    TFC_TEST(wire_mutated_messages_give_statuses_never_crashes),
    TFC_TEST(wire_rejects_malformed_framing_with_exact_messages),
    TFC_TEST(wire_content_size_mismatch_names_dtype_shape_and_sizes),
    TFC_TEST(wire_respects_the_tensor_codec_byte_limit),
    TFC_TEST(wire_put_rejects_resource_tensors_and_bad_field_numbers),
    {0},
};
TFC_TEST_MAIN(tests)
