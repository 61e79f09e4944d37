/* gen_seeds — writes the seed corpora of the fuzz harnesses (tests/fuzz/seeds/<harness>/) with
 * the library's own writers, in each harness's input format (see the comment at the top of
 * each harness):
 *   fuzz_rpc         RunStepRequest, RunGraphRequest, RecvTensorResponse and
 *                    RegisterGraphRequest messages as a client and a worker send them
 *                    (distributed_runtime/wire.h), after the selector byte;
 *   fuzz_checkpoint  bundles (io/bundle.h) of every dtype family, as index length + index +
 *                    data; the TF-written checkpoint fixtures in the same format;
 *   fuzz_events      an event file (io/events.h), a ZLIB TFRecord file (io/record.h); the
 *                    TF-written event file and GZIP TFRecord fixtures; after the flags byte.
 * Usage: gen_seeds FIXTURE_DIR OUT_DIR (OUT_DIR/<harness>/ must exist). Not run by the tests;
 * its output is committed. Aborts on any error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "distributed_runtime/msg.h"
#include "distributed_runtime/wire.h"
#include "graph/graph.h"
#include "io/bundle.h"
#include "io/events.h"
#include "io/record.h"
#include "ops/attr.h"
#include "proto/graphdef.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/master.pb-c.h"
#include "tensorflow/worker.pb-c.h"

#define DEVICE "/job:worker/replica:0/task:0/device:CPU:0"

static const char *g_fix, *g_out;
static tfc_status g_s;

static void check(int rc, const char *what) {
  if (rc != TFC_OK) {
    fprintf(stderr, "gen_seeds: %s: %s\n", what, tfc_status_msg(&g_s));
    abort();
  }
}

static void *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    abort();
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)len + 1);
  if (!p || fread(p, 1, (size_t)len, f) != (size_t)len) abort();
  fclose(f);
  *n = (size_t)len;
  return p;
}

static void put(const char *harness, const char *name, const void *a, size_t na, const void *b, size_t nb) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s/%s", g_out, harness, name);
  FILE *f = fopen(path, "wb");
  if (!f || (na && fwrite(a, 1, na, f) != na) || (nb && fwrite(b, 1, nb, f) != nb) || fclose(f)) {
    perror(path);
    abort();
  }
}

static tfc_tensor *floats(const int64_t *dims, int ndims) {
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, dims, ndims, &g_s);
  check(t ? TFC_OK : g_s.code, "tensor");
  for (int64_t i = 0; i < t->n_elems; i++) ((float *)t->data)[i] = 0.5f * (float)i;
  return t;
}

static tfc_tensor *strings(int n) {
  int64_t dims[1] = {n};
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, dims, 1, &g_s);
  check(t ? TFC_OK : g_s.code, "tensor");
  static const char *words[] = {"", "a", "hello", "a longer string of bytes"};
  for (int i = 0; i < n; i++)
    check(tfc_tstring_assign(&tfc_tensor_strings(t)[i], words[i % 4], strlen(words[i % 4]), &g_s), "string");
  return t;
}

static tfc_tensor *ints(int dtype, int n) {
  int64_t dims[1] = {n};
  tfc_tensor *t = tfc_tensor_new(dtype, dims, 1, &g_s);
  check(t ? TFC_OK : g_s.code, "tensor");
  for (size_t i = 0; i < t->n_bytes; i++)
    ((uint8_t *)t->data)[i] = dtype == TFC_DT_BOOL ? (uint8_t)(i & 1) : (uint8_t)(i * 37 + 1);
  return t;
}

/* Writes a message as the harness reads it: the selector byte, then the message's bytes. */
static void put_msg(const char *name, uint8_t selector, tfc_msg_out *m) {
  check(tfc_msg_out_status(m, &g_s), "message");
  tfc_msg_in *in = tfc_msg_in_from_out(m);
  size_t len;
  void *bytes = tfc_msg_in_flatten(in, &len);
  put("fuzz_rpc", name, &selector, 1, bytes, len);
  free(bytes);
  tfc_msg_in_free(in);
}

static void rpc_seeds(void) {
  int64_t d22[2] = {2, 2}, d3[1] = {3};
  tfc_tensor *a = floats(d22, 2), *b = strings(3), *c = floats(d3, 1), *i64 = ints(TFC_DT_INT64, 4),
             *scalar = floats(NULL, 0), *b8 = ints(TFC_DT_BOOL, 2);

  /* RunStepRequest: two feeds, a fetch, a target, options. */
  Tensorflow__RunStepRequest rs = TENSORFLOW__RUN_STEP_REQUEST__INIT;
  Tensorflow__RunOptions ro = TENSORFLOW__RUN_OPTIONS__INIT;
  char *fetch[] = {"c:0", "d:1"}, *target[] = {"init"};
  rs.session_handle = "session-1";
  rs.n_fetch = 2;
  rs.fetch = fetch;
  rs.n_target = 1;
  rs.target = target;
  ro.timeout_in_ms = 5000;
  rs.options = &ro;
  rs.store_errors_in_response_body = 1;
  tfc_msg_out *m = tfc_msg_out_new();
  check(tfc_wire_put_message(m, &rs.base, &g_s), "RunStepRequest");
  check(tfc_wire_put_named_tensor(m, 2, "a:0", a, &g_s), "feed");
  check(tfc_wire_put_named_tensor(m, 2, "b:0", b, &g_s), "feed");
  check(tfc_wire_put_named_tensor(m, 2, "s:0", scalar, &g_s), "feed");
  put_msg("run_step.bin", 0, m);
  m = tfc_msg_out_new();
  check(tfc_wire_put_message(m, &rs.base, &g_s), "RunStepRequest");
  check(tfc_wire_put_named_tensor(m, 2, "i:0", i64, &g_s), "feed");
  put_msg("run_step_segments.bin", 0 | 5 << 2, m);

  /* RunGraphRequest: the harness runs a graph that returns its one float feed. */
  Tensorflow__RunGraphRequest rg = TENSORFLOW__RUN_GRAPH_REQUEST__INIT;
  char *recv[] = {"y"};
  rg.step_id = 12345;
  rg.n_recv_key = 1;
  rg.recv_key = recv;
  m = tfc_msg_out_new();
  check(tfc_wire_put_message(m, &rg.base, &g_s), "RunGraphRequest");
  check(tfc_wire_put_named_tensor(m, 3, "x", c, &g_s), "send");
  put_msg("run_graph_echo.bin", 1, m);
  rg.graph_handle = "0123456789abcdef";
  rg.is_partial = 1;
  m = tfc_msg_out_new();
  check(tfc_wire_put_message(m, &rg.base, &g_s), "RunGraphRequest");
  check(tfc_wire_put_named_tensor(m, 3, "x", b8, &g_s), "send");
  check(tfc_wire_put_named_tensor(m, 3, "z", b, &g_s), "send");
  put_msg("run_graph_unknown.bin", 1 | 3 << 2, m);

  /* RecvTensorResponse, as recv_ready writes it: the tensor, then is_dead when set. */
  m = tfc_msg_out_new();
  check(tfc_wire_put_tensor(m, 1, a, &g_s), "tensor");
  put_msg("recv_tensor.bin", 2, m);
  m = tfc_msg_out_new();
  check(tfc_wire_put_tensor(m, 1, b, &g_s), "tensor");
  check(tfc_wire_put_varint(m, 2, 1, &g_s), "is_dead");
  put_msg("recv_tensor_dead_strings.bin", 2 | 7 << 2, m);

  /* RegisterGraphRequest: c = Const; i = Identity(c), on the worker's CPU. */
  tfc_graph *g = tfc_graph_new();
  tfc_node_desc *d = tfc_node_desc_new(g, "Const", "c");
  tfc_tensor_ref(c);
  tfc_attr_value v = tfc_attr_tensor(c);
  tfc_node_desc_set_attr(d, "value", &v);
  v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "dtype", &v);
  tfc_node_desc_set_device(d, DEVICE);
  tfc_node *cn = tfc_node_desc_finish(d, &g_s);
  check(cn ? TFC_OK : g_s.code, "Const");
  d = tfc_node_desc_new(g, "Identity", "i");
  tfc_node_desc_add_input(d, (tfc_endpoint){cn, 0});
  tfc_node_desc_set_device(d, DEVICE);
  check(tfc_node_desc_finish(d, &g_s) ? TFC_OK : g_s.code, "Identity");
  void *gd;
  size_t gd_len;
  check(tfc_graphdef_export(g, &gd, &gd_len, &g_s), "export");
  Tensorflow__RegisterGraphRequest rq = TENSORFLOW__REGISTER_GRAPH_REQUEST__INIT;
  rq.session_handle = "session-1";
  rq.graph_def = tensorflow__graph_def__unpack(NULL, gd_len, gd);
  if (!rq.graph_def) abort();
  m = tfc_msg_out_new();
  check(tfc_wire_put_message(m, &rq.base, &g_s), "RegisterGraphRequest");
  put_msg("register_graph.bin", 3, m);
  tensorflow__graph_def__free_unpacked(rq.graph_def, NULL);
  free(gd);
  tfc_graph_free(g);

  tfc_tensor_unref(a);
  tfc_tensor_unref(b);
  tfc_tensor_unref(c);
  tfc_tensor_unref(i64);
  tfc_tensor_unref(scalar);
  tfc_tensor_unref(b8);
}

/* A checkpoint seed: the index's length (uint32 LE), the index, the data. */
static void put_ckpt(const char *name, const char *prefix) {
  char path[1024];
  size_t ni, nd;
  snprintf(path, sizeof path, "%s.index", prefix);
  void *index = slurp(path, &ni);
  snprintf(path, sizeof path, "%s.data-00000-of-00001", prefix);
  void *data = slurp(path, &nd);
  uint8_t *buf = malloc(4 + ni);
  if (!buf) abort();
  buf[0] = (uint8_t)ni;
  buf[1] = (uint8_t)(ni >> 8);
  buf[2] = (uint8_t)(ni >> 16);
  buf[3] = (uint8_t)(ni >> 24);
  memcpy(buf + 4, index, ni);
  put("fuzz_checkpoint", name, buf, 4 + ni, data, nd);
  free(buf);
  free(index);
  free(data);
}

static void checkpoint_seeds(void) {
  char prefix[1024];
  snprintf(prefix, sizeof prefix, "%s/fuzz_checkpoint/.tmp_bundle", g_out);
  /* Forty entries: the index's data block has restart points (every 16 keys). */
  tfc_bundle_writer *w = tfc_bundle_writer_new(prefix, &g_s);
  check(w ? TFC_OK : g_s.code, "bundle writer");
  static const int dtypes[] = {TFC_DT_FLOAT, TFC_DT_DOUBLE, TFC_DT_INT32, TFC_DT_INT64, TFC_DT_BOOL,
                               TFC_DT_UINT8, TFC_DT_HALF, TFC_DT_COMPLEX64};
  for (int i = 0; i < 40; i++) {
    char key[64];
    snprintf(key, sizeof key, "layer_%02d/%s", i, i % 5 == 4 ? "names" : "kernel");
    tfc_tensor *t = i % 5 == 4 ? strings(i % 7) : ints(dtypes[i % 8], i % 6);
    check(tfc_bundle_writer_add(w, key, t, &g_s), "bundle add");
    tfc_tensor_unref(t);
  }
  int64_t d22[2] = {2, 2};
  tfc_tensor *t = floats(d22, 2);
  check(tfc_bundle_writer_add(w, "w", t, &g_s), "bundle add");
  tfc_tensor_unref(t);
  check(tfc_bundle_writer_finish(w, &g_s), "bundle finish");
  tfc_bundle_writer_free(w);
  put_ckpt("tfc_bundle_all_dtypes.bin", prefix);
  tfc_bundle_delete(prefix);

  char fix[1024];
  snprintf(fix, sizeof fix, "%s/ckpt_tf/model", g_fix);
  put_ckpt("tf_model.bin", fix);
  snprintf(fix, sizeof fix, "%s/ckpt_tfc/model", g_fix);
  put_ckpt("tfc_model.bin", fix);
  snprintf(fix, sizeof fix, "%s/ckpt_saver/model.ckpt-7", g_fix);
  put_ckpt("tf_saver_model.bin", fix);
}

/* An events seed: the harness's flags byte, then the file. */
static void put_events(const char *name, uint8_t flags, const void *p, size_t n) {
  put("fuzz_events", name, &flags, 1, p, n);
}

static void copy_fixture(const char *fixture, const char *name, uint8_t flags) {
  char path[1024];
  size_t n;
  snprintf(path, sizeof path, "%s/%s", g_fix, fixture);
  void *p = slurp(path, &n);
  put_events(name, flags, p, n);
  free(p);
}

static void events_seeds(void) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/fuzz_events/.tmp_logdir", g_out);
  tfc_event_writer *w = tfc_event_writer_new(dir, NULL, &g_s);
  check(w ? TFC_OK : g_s.code, "event writer");
  /* Summary{value {tag: "loss" simple_value: 0.25}} */
  static const uint8_t summary[] = {0x0a, 0x0b, 0x0a, 0x04, 'l', 'o', 's', 's', 0x15, 0x00, 0x00, 0x80, 0x3e};
  check(tfc_event_writer_add_summary(w, summary, sizeof summary, 3, &g_s), "summary");
  static const uint8_t graph[] = {0x0a, 0x0a, 0x0a, 0x01, 'x', 0x12, 0x05, 'N', 'o', 'O', 'p'};
  check(tfc_event_writer_add_graph_def(w, graph, sizeof graph, &g_s), "graph");
  check(tfc_event_writer_add_session_log(w, 3, "model.ckpt-3", 3, &g_s), "session log");
  check(tfc_event_writer_close(w, &g_s), "close");
  size_t n;
  void *p = slurp(tfc_event_writer_path(w), &n);
  put_events("tfc_events.bin", 0, p, n);
  free(p);
  unlink(tfc_event_writer_path(w));
  rmdir(dir);
  tfc_event_writer_free(w);

  char path[1024];
  snprintf(path, sizeof path, "%s/fuzz_events/.tmp_records", g_out);
  tfc_record_writer *r = tfc_record_writer_open(path, TFC_COMPRESSION_ZLIB, 0, &g_s);
  check(r ? TFC_OK : g_s.code, "record writer");
  check(tfc_record_write(r, "first", 5, &g_s), "record");
  check(tfc_record_write(r, "", 0, &g_s), "record");
  check(tfc_record_write(r, summary, sizeof summary, &g_s), "record");
  check(tfc_record_writer_close(r, &g_s), "record close");
  p = slurp(path, &n);
  put_events("tfc_records.zlib", 0, p, n);
  free(p);
  unlink(path);

  copy_fixture("events_tf.out.tfevents", "tf_events.bin", 0);
  copy_fixture("events_tf.out.tfevents", "tf_events_gzip.bin", 2);
  copy_fixture("example_records.tfrecord.gz", "tf_records.gz", 0);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: gen_seeds FIXTURE_DIR OUT_DIR\n");
    return 2;
  }
  g_fix = argv[1];
  g_out = argv[2];
  tfc_status_init(&g_s);
  rpc_seeds();
  checkpoint_seeds();
  events_seeds();
  tfc_status_fini(&g_s);
  return 0;
}
