/*
 * Unit tests of the partitioner (cases after TF's graph_partition_test.cc). Graphs are built
 * through the internal API, assigned to devices by hand, partitioned, and each result's
 * canonical text is compared with tests/unit/partition_golden/<case>.txt: for each partition
 * "# <device name>" then tfc_graph_to_text. Devices get fixed incarnations (1000 + i) so the
 * texts are stable. TFC_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing;
 * review the diff by eye before committing (attr names and values must be TF's).
 */
#include <stdint.h>
#include <stdio.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "device/device.h"
#include "graph/graph.h"
#include "graph/graph_text.h"
#include "harness.h"
#include "partition/partition.h"

#define GOLDEN_DIR TFC_FIXTURE_DIR "/../unit/partition_golden/"
#define MAX_DEVICES 4

typedef struct fixture {
  tfc_graph *g;
  tfc_device *cpu[MAX_DEVICES];
  tfc_device gpu; /* a fake GPU: only its name, type, incarnation and kernel table matter */
  tfc_kernel_table gpu_kernels;
  tfc_status s;
} fixture;

/* GPU rows as TF registers them: Reshape's shape, Shape's output and ConcatV2's axis (its
 * last input, wherever N puts it) in host memory. Rows
 * with no compute are enough: the partitioner only reads the masks. */
static void fake_gpu_init(fixture *f) {
  static const tfc_kernel_def rows[] = {
      {.op = TFC_OP_Const},
      {.op = TFC_OP_Identity},
      {.op = TFC_OP_Reshape, .host_memory_in = 1u << 1},
      {.op = TFC_OP_Shape, .host_memory_out = 1u << 0},
      {.op = TFC_OP_ConcatV2, .flags = TFC_KF_HOST_LAST_INPUT},
  };
  tfc_kernel_table_init(&f->gpu_kernels, "GPU");
  if (tfc_kernel_table_add(&f->gpu_kernels, rows, (int)TFC_ARRAY_SIZE(rows), &f->s))
    tfc_test_fail(__FILE__, __LINE__, "kernels: %s", tfc_status_msg(&f->s));
  static char name[] = "/job:localhost/replica:0/task:0/device:GPU:0";
  f->gpu.name = name;
  snprintf(f->gpu.type, sizeof f->gpu.type, "GPU");
  f->gpu.incarnation = 2000;
  f->gpu.kernels = &f->gpu_kernels;
}

static void fixture_init(fixture *f) {
  memset(f, 0, sizeof *f);
  tfc_status_init(&f->s);
  if (tfc_ops_init(&f->s)) tfc_test_fail(__FILE__, __LINE__, "ops: %s", tfc_status_msg(&f->s));
  f->g = tfc_graph_new();
  for (int i = 0; i < MAX_DEVICES; i++) {
    f->cpu[i] = tfc_cpu_device_new("localhost", 0, 0, i, NULL, 1, &f->s);
    if (!f->cpu[i]) tfc_test_fail(__FILE__, __LINE__, "device: %s", tfc_status_msg(&f->s));
    f->cpu[i]->incarnation = 1000 + (uint64_t)i;
  }
  fake_gpu_init(f);
}

static void fixture_fini(fixture *f) {
  for (int i = 0; i < MAX_DEVICES; i++) tfc_device_free(f->cpu[i]);
  tfc_kernel_table_fini(&f->gpu_kernels);
  tfc_graph_free(f->g);
  tfc_status_fini(&f->s);
}

/* ---------------- graph building ---------------- */

static tfc_node *finish(fixture *f, tfc_node_desc *d, const tfc_device *dev, int line) {
  tfc_node *n = tfc_node_desc_finish(d, &f->s);
  if (!n) tfc_test_fail(__FILE__, line, "node: %s", tfc_status_msg(&f->s));
  if (dev) n->assigned_device = strdup(dev->name);
  return n;
}

/* A float Const of shape [n] holding 1, 2, ..., n (int32 when is_int; a scalar 0 when
 * n < 0). */
static tfc_node *konst(fixture *f, const char *name, int64_t n, int is_int, const tfc_device *dev) {
  int rank = n < 0 ? 0 : 1, first = n < 0 ? 0 : 1;
  if (n < 0) n = 1;
  tfc_tensor *t = tfc_tensor_new(is_int ? TFC_DT_INT32 : TFC_DT_FLOAT, &n, rank, &f->s);
  for (int64_t i = 0; i < n; i++) {
    if (is_int) ((int32_t *)t->data)[i] = (int32_t)(i + first);
    else ((float *)t->data)[i] = (float)(i + first);
  }
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Const", name);
  tfc_attr_value v = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &v);
  v = tfc_attr_type(t->dtype);
  tfc_node_desc_set_attr(d, "dtype", &v);
  return finish(f, d, dev, __LINE__);
}

/* op(inputs..., ^controls...) on dev. */
static tfc_node *op(fixture *f, const char *type, const char *name, const tfc_device *dev,
                    const tfc_endpoint *ins, int n_ins, tfc_node *const *ctls, int n_ctls) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, type, name);
  if (strcmp(type, "AddN") == 0) tfc_node_desc_add_input_list(d, ins, n_ins);
  else
    for (int i = 0; i < n_ins; i++) tfc_node_desc_add_input(d, ins[i]);
  for (int i = 0; i < n_ctls; i++) tfc_node_desc_add_control(d, ctls[i]);
  return finish(f, d, dev, __LINE__);
}

static tfc_node *unary(fixture *f, const char *type, const char *name, tfc_node *a,
                       const tfc_device *dev) {
  tfc_endpoint in = {a, 0};
  return op(f, type, name, dev, &in, 1, NULL, 0);
}

static tfc_node *noop(fixture *f, const char *name, tfc_node *const *ctls, int n_ctls,
                      const tfc_device *dev) {
  return op(f, "NoOp", name, dev, NULL, 0, ctls, n_ctls);
}

/* ---------------- partitioning and goldens ---------------- */

static int partition(fixture *f, tfc_partitions *out) {
  tfc_device *devs[MAX_DEVICES + 1];
  for (int i = 0; i < MAX_DEVICES; i++) devs[i] = f->cpu[i];
  devs[MAX_DEVICES] = &f->gpu;
  tfc_partition_options opts = {devs, MAX_DEVICES + 1};
  return tfc_partition_graph(f->g, &opts, out, &f->s);
}

static char *partitions_text(const tfc_partitions *p) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  for (int i = 0; i < p->n; i++) {
    tfc_strbuf_printf(&b, "# %s\n", p->parts[i].device->name);
    tfc_graph_to_text(p->parts[i].graph, &b);
  }
  return tfc_strbuf_take(&b);
}

static char *read_file(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, fp)) > 0) tfc_strbuf_append(&b, buf, n);
  fclose(fp);
  return tfc_strbuf_take(&b);
}

/* Partitions f's graph and compares the text with the golden file of `name`. */
static void expect_golden(fixture *f, const char *name) {
  tfc_partitions p;
  if (partition(f, &p)) tfc_test_fail(__FILE__, __LINE__, "partition: %s", tfc_status_msg(&f->s));
  char *got = partitions_text(&p);
  tfc_partitions_fini(&p);
  char path[512];
  snprintf(path, sizeof path, GOLDEN_DIR "%s.txt", name);
  const char *update = getenv("TFC_UPDATE_GOLDEN");
  if (update && strcmp(update, "1") == 0) {
    FILE *fp = fopen(path, "wb");
    int bad = !fp || fputs(got, fp) < 0;
    if ((fp && fclose(fp)) || bad) tfc_test_fail(__FILE__, __LINE__, "cannot write %s", path);
  }
  char *want = read_file(path);
  if (!want)
    tfc_test_fail(__FILE__, __LINE__, "no golden %s (TFC_UPDATE_GOLDEN=1 writes it)", path);
  if (strcmp(got, want) != 0)
    tfc_test_fail(__FILE__, __LINE__, "%s differs from the golden.\n--- got:\n%s--- want:\n%s",
                  path, got, want);
  free(got);
  free(want);
}

/* ---------------- golden cases ---------------- */

static void partition_single_device_copies_graph_without_send_recv(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 2, 0, f.cpu[0]);
  tfc_node *b = konst(&f, "b", 2, 0, f.cpu[0]);
  tfc_endpoint ab[2] = {{a, 0}, {b, 0}};
  tfc_node *s = op(&f, "AddN", "sum", f.cpu[0], ab, 2, NULL, 0);
  noop(&f, "done", &s, 1, f.cpu[0]);
  expect_golden(&f, "single_device");
  fixture_fini(&f);
}

static void partition_inserts_send_recv_on_cut_data_edge(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 3, 0, f.cpu[0]);
  tfc_node *b = unary(&f, "Identity", "b", a, f.cpu[1]);
  unary(&f, "Identity", "c", b, f.cpu[1]);
  expect_golden(&f, "cross_device_data");
  fixture_fini(&f);
}

/* The first node sits on CPU:1, so its partition comes first. */
static void partition_sends_dummy_const_for_cut_control_edge(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 1, 0, f.cpu[1]);
  noop(&f, "after_a", &a, 1, f.cpu[0]);
  expect_golden(&f, "cross_device_control");
  fixture_fini(&f);
}

/* One pair per (src, output, device): three consumers of a:0 on CPU:1 share a _Recv; a:1
 * gets its own pair; the consumer on CPU:0 reads a directly. */
static void partition_shares_one_recv_between_consumers_on_a_device(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *c = konst(&f, "c", 2, 0, f.cpu[0]);
  tfc_node_desc *d = tfc_node_desc_new(f.g, "Unpack", "a");
  tfc_node_desc_add_input(d, (tfc_endpoint){c, 0});
  tfc_attr_value v = tfc_attr_int(2);
  tfc_node_desc_set_attr(d, "num", &v);
  tfc_node *a = finish(&f, d, f.cpu[0], __LINE__);
  unary(&f, "Identity", "x", a, f.cpu[1]);
  unary(&f, "Identity", "y", a, f.cpu[1]);
  tfc_endpoint aa[3] = {{a, 0}, {a, 0}, {a, 1}};
  op(&f, "AddN", "z", f.cpu[1], aa, 3, NULL, 0);
  unary(&f, "Identity", "local", a, f.cpu[0]);
  expect_golden(&f, "multi_use");
  fixture_fini(&f);
}

/* Data and control from the same source are two pairs; a second control consumer on the
 * same device reuses the control pair. */
static void partition_keeps_data_and_control_pairs_apart(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 2, 0, f.cpu[0]);
  tfc_endpoint in = {a, 0};
  op(&f, "Identity", "b", f.cpu[1], &in, 1, &a, 1);
  noop(&f, "c", &a, 1, f.cpu[1]);
  expect_golden(&f, "data_and_control");
  fixture_fini(&f);
}

static void partition_fans_out_to_three_devices(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 2, 0, f.cpu[0]);
  tfc_node *b = unary(&f, "Identity", "b", a, f.cpu[1]);
  tfc_node *c = unary(&f, "Identity", "c", a, f.cpu[2]);
  tfc_node *d = unary(&f, "Identity", "d", a, f.cpu[3]);
  tfc_endpoint bcd[3] = {{b, 0}, {c, 0}, {d, 0}};
  op(&f, "AddN", "sum", f.cpu[0], bcd, 3, &d, 1);
  expect_golden(&f, "fan_out");
  fixture_fini(&f);
}

/* On the fake GPU, Reshape reads its shape and Shape writes its output in host memory:
 * those ends use _HostRecv / _HostSend; CPU ends always use _Send / _Recv. A Const in
 * device memory feeding Reshape's shape on the same GPU is cut by a same-device pair. */
static void partition_uses_host_send_recv_for_host_memory_args(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *x = konst(&f, "x", 2, 0, &f.gpu);
  tfc_node *shp = konst(&f, "shp", 2, 1, f.cpu[0]);
  tfc_endpoint in[2] = {{x, 0}, {shp, 0}};
  tfc_node *r = op(&f, "Reshape", "r", &f.gpu, in, 2, NULL, 0);
  tfc_node *s = unary(&f, "Shape", "s", r, &f.gpu);
  unary(&f, "Identity", "s_cpu", s, f.cpu[0]);
  unary(&f, "Identity", "r_cpu", r, f.cpu[0]);
  tfc_node *gshp = konst(&f, "gshp", 2, 1, &f.gpu);
  tfc_endpoint in2[2] = {{r, 0}, {gshp, 0}};
  op(&f, "Reshape", "r2", &f.gpu, in2, 2, NULL, 0);
  tfc_endpoint in3[2] = {{r, 0}, {s, 0}};
  op(&f, "Reshape", "r3", &f.gpu, in3, 2, NULL, 0);
  expect_golden(&f, "host_memory");
  fixture_fini(&f);
}

/* ConcatV2's axis is its last input: with N = 3 values (flat index 3) it comes through a
 * _HostRecv, the values through _Recv into device memory; the GPU Const used as an axis is
 * cut by a same-device pair into host memory. */
static void partition_keeps_a_variadic_ops_last_input_in_host_memory(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *x = konst(&f, "x", 2, 0, f.cpu[0]);
  tfc_node *y = konst(&f, "y", 2, 0, &f.gpu);
  tfc_node *axis = konst(&f, "axis", -1, 1, f.cpu[0]);
  tfc_endpoint in[4] = {{x, 0}, {y, 0}, {x, 0}, {axis, 0}};
  tfc_node_desc *d = tfc_node_desc_new(f.g, "ConcatV2", "c3");
  tfc_node_desc_add_input_list(d, in, 3);
  tfc_node_desc_add_input(d, in[3]);
  finish(&f, d, &f.gpu, __LINE__);
  tfc_node *gaxis = konst(&f, "gaxis", -1, 1, &f.gpu);
  d = tfc_node_desc_new(f.g, "ConcatV2", "c2");
  tfc_node_desc_add_input_list(d, (tfc_endpoint[]){{y, 0}, {y, 0}}, 2);
  tfc_node_desc_add_input(d, (tfc_endpoint){gaxis, 0});
  finish(&f, d, &f.gpu, __LINE__);
  expect_golden(&f, "host_last_input");
  fixture_fini(&f);
}

/* A node of the input graph already named like a generated one is skipped over. */
static void partition_new_names_avoid_existing_nodes(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 1, 0, f.cpu[0]);
  unary(&f, "Identity", "b", a, f.cpu[1]);
  unary(&f, "Identity", "a/_1", a, f.cpu[1]);
  expect_golden(&f, "name_collision");
  fixture_fini(&f);
}

/* ---------------- invariants ---------------- */

static const char *attr_str(const tfc_node *n, const char *name) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  return v && v->kind == TFC_ATTR_STRING ? v->u.s.data : NULL;
}

static int is_op(const tfc_node *n, const char *a, const char *b) {
  return strcmp(n->op->name, a) == 0 || strcmp(n->op->name, b) == 0;
}

/* A mesh of data and control edges over three devices: every partition node carries its
 * partition's device; nodes = input + sends + recvs + dummies; each recv has exactly one
 * send with its tensor name, and the pair's devices are those of their partitions. */
static void partition_nodes_are_assigned_and_counted(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *prev[3];
  for (int i = 0; i < 3; i++) {
    char name[16];
    snprintf(name, sizeof name, "k%d", i);
    prev[i] = konst(&f, name, 2, 0, f.cpu[i]);
  }
  for (int layer = 0; layer < 3; layer++) {
    tfc_node *cur[3];
    for (int i = 0; i < 3; i++) {
      char name[16];
      snprintf(name, sizeof name, "n%d_%d", layer, i);
      tfc_endpoint ins[3] = {{prev[0], 0}, {prev[1], 0}, {prev[2], 0}};
      cur[i] = op(&f, "AddN", name, f.cpu[(i + layer) % 3], ins, 3, &prev[(i + 1) % 3], 1);
    }
    memcpy(prev, cur, sizeof prev);
  }
  tfc_partitions p;
  EXPECT_EQ(partition(&f, &p), TFC_OK);
  EXPECT_EQ(p.n, 3);
  int total = 0, sends = 0, recvs = 0, dummies = 0;
  for (int i = 0; i < p.n; i++) {
    const tfc_graph *pg = p.parts[i].graph;
    total += pg->n_nodes;
    for (int j = 0; j < pg->n_nodes; j++) {
      const tfc_node *n = pg->nodes[j];
      EXPECT_STREQ(n->assigned_device, p.parts[i].device->name);
      const tfc_node *orig = tfc_graph_find(f.g, n->name);
      if (orig) {
        EXPECT_STREQ(n->device, orig->device);
        EXPECT_EQ(n->n_inputs, orig->n_inputs);
        EXPECT_EQ(n->n_control_inputs, orig->n_control_inputs);
      } else if (strcmp(n->op->name, "Const") == 0) {
        dummies++;
        EXPECT_EQ(n->n_control_inputs, 1);
      } else if (is_op(n, "_Send", "_HostSend")) {
        sends++;
        EXPECT_STREQ(attr_str(n, "send_device"), p.parts[i].device->name);
      } else {
        EXPECT_TRUE(is_op(n, "_Recv", "_HostRecv"));
        recvs++;
        EXPECT_STREQ(attr_str(n, "recv_device"), p.parts[i].device->name);
        int matches = 0;
        for (int pi = 0; pi < p.n; pi++)
          for (int k = 0; k < p.parts[pi].graph->n_nodes; k++) {
            const tfc_node *m = p.parts[pi].graph->nodes[k];
            if (is_op(m, "_Send", "_HostSend") &&
                strcmp(attr_str(m, "tensor_name"), attr_str(n, "tensor_name")) == 0) {
              matches++;
              EXPECT_STREQ(attr_str(m, "recv_device"), p.parts[i].device->name);
            }
          }
        EXPECT_EQ(matches, 1);
      }
    }
  }
  EXPECT_EQ(sends, recvs);
  EXPECT_TRUE(sends > 0 && dummies > 0);
  EXPECT_EQ(total, f.g->n_nodes + sends + recvs + dummies);
  tfc_partitions_fini(&p);
  fixture_fini(&f);
}

/* ---------------- errors ---------------- */

static void expect_error(fixture *f, int code, const char *msg) {
  tfc_partitions p;
  EXPECT_EQ(partition(f, &p), code);
  EXPECT_EQ(f->s.code, code);
  EXPECT_STREQ(tfc_status_msg(&f->s), msg);
  EXPECT_EQ(p.n, 0);
  EXPECT_TRUE(p.parts == NULL);
}

static void partition_rejects_unassigned_node(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 1, 0, f.cpu[0]);
  unary(&f, "Identity", "b", a, f.cpu[1]);
  unary(&f, "Identity", "c", a, NULL);
  expect_error(&f, TFC_INVALID_ARGUMENT, "Node 'c' (Identity) has no assigned device");
  fixture_fini(&f);
}

static void partition_rejects_unknown_device(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 1, 0, f.cpu[0]);
  tfc_node *b = unary(&f, "Identity", "b", a, NULL);
  b->assigned_device = strdup("/job:localhost/replica:0/task:0/device:CPU:9");
  expect_error(&f, TFC_INVALID_ARGUMENT,
               "Node 'b' (Identity) is assigned to device "
               "'/job:localhost/replica:0/task:0/device:CPU:9', which is not among the devices "
               "being partitioned for");
  fixture_fini(&f);
}

/* The fake GPU has no AddN kernel: the placer would never have put one there. */
static void partition_reports_missing_kernel_as_internal(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = konst(&f, "a", 4, 0, f.cpu[0]);
  tfc_endpoint in[2] = {{a, 0}, {a, 0}};
  op(&f, "AddN", "sum", &f.gpu, in, 2, NULL, 0);
  expect_error(&f, TFC_INTERNAL,
               "Node 'sum' (AddN) has no kernel on its device "
               "/job:localhost/replica:0/task:0/device:GPU:0");
  fixture_fini(&f);
}

/* ---------------- control flow across devices ---------------- */

static tfc_node *enter(fixture *f, const char *name, tfc_node *in, const char *frame, int is_constant,
                       const tfc_device *dev) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Enter", name);
  tfc_node_desc_add_input(d, (tfc_endpoint){in, 0});
  tfc_attr_value v;
  if (tfc_attr_string(frame, strlen(frame), &v, &f->s)) tfc_test_fail(__FILE__, __LINE__, "attr");
  tfc_node_desc_set_attr(d, "frame_name", &v);
  v = tfc_attr_bool(is_constant);
  tfc_node_desc_set_attr(d, "is_constant", &v);
  return finish(f, d, dev, __LINE__);
}

/* Merge(in, <back edge>): input 1 stands in as `in` until set_back_edge, as the importer
 * builds a loop. */
static tfc_node *loop_merge(fixture *f, const char *name, tfc_node *in, const tfc_device *dev) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Merge", name);
  tfc_endpoint ins[2] = {{in, 0}, {in, 0}};
  tfc_node_desc_add_input_list(d, ins, 2);
  return finish(f, d, dev, __LINE__);
}

static void set_back_edge(tfc_node *merge, tfc_node *next) { merge->inputs[1] = (tfc_endpoint){next, 0}; }

typedef struct loop_nodes {
  tfc_node *enter, *merge, *cond, *sw, *body, *next, *exit;
} loop_nodes;

/* while (i < n) i = i + one, in frame `frame`, starting from x; placed on devs[0..] as
 * "ENTER MERGE LESS LOOPCOND SWITCH BODY NEXT EXIT" (device indexes, NULL pred: none). With
 * no_loop_cond the Switch takes the Less directly. */
static loop_nodes counter_loop(fixture *f, const char *frame, tfc_node *x, tfc_node *n, tfc_node *one,
                               const int *d, int no_loop_cond) {
  char nm[64];
  loop_nodes l;
  snprintf(nm, sizeof nm, "%s/enter", frame);
  l.enter = enter(f, nm, x, frame, 0, f->cpu[d[0]]);
  snprintf(nm, sizeof nm, "%s/enter_n", frame);
  tfc_node *en = enter(f, nm, n, frame, 1, f->cpu[d[2]]);
  snprintf(nm, sizeof nm, "%s/enter_one", frame);
  tfc_node *eo = enter(f, nm, one, frame, 1, f->cpu[d[5]]);
  snprintf(nm, sizeof nm, "%s/merge", frame);
  l.merge = loop_merge(f, nm, l.enter, f->cpu[d[1]]);
  snprintf(nm, sizeof nm, "%s/less", frame);
  tfc_endpoint lin[2] = {{l.merge, 0}, {en, 0}};
  tfc_node *less = op(f, "Less", nm, f->cpu[d[2]], lin, 2, NULL, 0);
  snprintf(nm, sizeof nm, "%s/cond", frame);
  l.cond = no_loop_cond ? less : unary(f, "LoopCond", nm, less, f->cpu[d[3]]);
  snprintf(nm, sizeof nm, "%s/switch", frame);
  tfc_endpoint sin[2] = {{l.merge, 0}, {l.cond, 0}};
  l.sw = op(f, "Switch", nm, f->cpu[d[4]], sin, 2, NULL, 0);
  snprintf(nm, sizeof nm, "%s/body", frame);
  tfc_endpoint bin[2] = {{l.sw, 1}, {eo, 0}};
  l.body = op(f, "Add", nm, f->cpu[d[5]], bin, 2, NULL, 0);
  snprintf(nm, sizeof nm, "%s/next", frame);
  l.next = unary(f, "NextIteration", nm, l.body, f->cpu[d[6]]);
  set_back_edge(l.merge, l.next);
  snprintf(nm, sizeof nm, "%s/exit", frame);
  l.exit = unary(f, "Exit", nm, l.sw, f->cpu[d[7]]);
  return l;
}

static const tfc_node *find_in(const tfc_partitions *p, int part, const char *name) {
  return tfc_graph_find(p->parts[part].graph, name);
}

/* TF's CheckLoopConstruction: every _Recv inside a loop frame has a control input from a
 * control loop's Merge, and every partition holding such a _Recv has a control loop:
 * _cloop Enter, Merge, Switch and NextIteration, the Merge's input 1 being that
 * NextIteration (a back edge). Returns how many control loops there are; checks the count of
 * _Recvs inside frames unless want_recvs_in_loop < 0. */
static int check_loop_construction(const tfc_partitions *p, int want_recvs_in_loop) {
  int recvs_in_loop = 0, loops = 0;
  for (int i = 0; i < p->n; i++) {
    const tfc_graph *g = p->parts[i].graph;
    int enters = 0, merges = 0, switches = 0, nexts = 0, in_loop = 0;
    for (int k = 0; k < g->n_nodes; k++) {
      const tfc_node *n = g->nodes[k];
      int cloop = strncmp(n->name, "_cloop", 6) == 0;
      if (cloop) {
        EXPECT_STREQ(n->assigned_device, p->parts[i].device->name);
        enters += strcmp(n->op->name, "Enter") == 0;
        switches += strcmp(n->op->name, "Switch") == 0;
        nexts += strcmp(n->op->name, "NextIteration") == 0;
        if (strcmp(n->op->name, "Merge") == 0) {
          merges++;
          EXPECT_TRUE(tfc_node_input_is_back_edge(n, 1));
          EXPECT_STREQ(n->inputs[1].node->op->name, "NextIteration");
          EXPECT_STREQ(n->inputs[0].node->op->name, "Enter");
        }
      }
      if (strcmp(n->op->name, "_Recv") == 0)
        for (int c = 0; c < n->n_control_inputs; c++)
          if (strncmp(n->control_inputs[c]->name, "_cloop", 6) == 0) {
            EXPECT_STREQ(n->control_inputs[c]->op->name, "Merge");
            in_loop++;
          }
    }
    EXPECT_EQ(merges, enters);
    EXPECT_EQ(switches, enters);
    EXPECT_EQ(nexts, enters);
    if (in_loop) EXPECT_TRUE(enters > 0);
    recvs_in_loop += in_loop;
    loops += enters;
  }
  if (want_recvs_in_loop >= 0) EXPECT_EQ(recvs_in_loop, want_recvs_in_loop);
  return loops;
}

/* A loop whose test runs on CPU:1 and the rest on CPU:0 (TF's CrossDeviceLoop shape): each
 * device gets a control loop, the in-frame _Recvs run after its Merge, the predicate goes to
 * CPU:1 through a _Send/_Recv, and Switch, Exit and NextIteration move next to their data. */
static void partition_adds_control_loops_for_a_cross_device_loop(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *x = konst(&f, "x", -1, 0, f.cpu[0]);
  tfc_node *n = konst(&f, "n", -1, 0, f.cpu[0]);
  tfc_node *one = konst(&f, "one", -1, 0, f.cpu[0]);
  /* enter merge less loopcond switch body next exit */
  const int d[8] = {0, 0, 1, 0, 1, 1, 1, 1};
  loop_nodes l = counter_loop(&f, "loop", x, n, one, d, 0);
  unary(&f, "Identity", "out", l.exit, f.cpu[1]);
  expect_golden(&f, "cross_device_loop");
  tfc_partitions p;
  EXPECT_EQ(partition(&f, &p), TFC_OK);
  EXPECT_EQ(p.n, 2);
  /* in-frame recvs: merge, cond (for both Switches) and switch:1 on CPU:1; less and body
   * on CPU:0 */
  EXPECT_EQ(check_loop_construction(&p, 5), 2);
  EXPECT_TRUE(find_in(&p, 0, "loop/switch") != NULL); /* with its data input, Merge */
  EXPECT_TRUE(find_in(&p, 0, "loop/exit") != NULL);   /* with the Switch */
  EXPECT_TRUE(find_in(&p, 0, "loop/next") != NULL);   /* with its consumer, Merge */
  EXPECT_TRUE(find_in(&p, 1, "loop/enter_n") != NULL); /* with its consumer, less */
  EXPECT_STREQ(find_in(&p, 0, "loop/switch")->assigned_device, f.cpu[0]->name);
  tfc_partitions_fini(&p);
  fixture_fini(&f);
}

/* Nested loops whose inner body crosses devices: the inner frame's control loop on CPU:1 is
 * entered from the outer frame's control loop Merge there, the outer one from an empty Const. */
static void partition_nests_control_loops_of_nested_frames(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *x = konst(&f, "x", -1, 0, f.cpu[0]);
  tfc_node *n = konst(&f, "n", -1, 0, f.cpu[0]);
  tfc_node *one = konst(&f, "one", -1, 0, f.cpu[0]);
  /* the outer loop's body is the inner loop: build the outer loop by hand around it */
  tfc_node *oe = enter(&f, "outer/enter", x, "outer", 0, f.cpu[0]);
  tfc_node *on = enter(&f, "outer/enter_n", n, "outer", 1, f.cpu[0]);
  tfc_node *oo = enter(&f, "outer/enter_one", one, "outer", 1, f.cpu[0]);
  tfc_node *om = loop_merge(&f, "outer/merge", oe, f.cpu[0]);
  tfc_endpoint lin[2] = {{om, 0}, {on, 0}};
  tfc_node *less = op(&f, "Less", "outer/less", f.cpu[0], lin, 2, NULL, 0);
  tfc_node *oc = unary(&f, "LoopCond", "outer/cond", less, f.cpu[0]);
  tfc_endpoint sin[2] = {{om, 0}, {oc, 0}};
  tfc_node *osw = op(&f, "Switch", "outer/switch", f.cpu[0], sin, 2, NULL, 0);
  tfc_node *start = unary(&f, "Identity", "outer/start", osw, f.cpu[0]);
  start->inputs[0].index = 1;
  const int inner_d[8] = {0, 0, 0, 0, 0, 1, 0, 0}; /* the inner body on CPU:1 */
  loop_nodes in = counter_loop(&f, "inner", start, on, oo, inner_d, 0);
  tfc_node *onext = unary(&f, "NextIteration", "outer/next", in.exit, f.cpu[0]);
  set_back_edge(om, onext);
  unary(&f, "Exit", "outer/exit", osw, f.cpu[0]);
  tfc_partitions p;
  if (partition(&f, &p)) tfc_test_fail(__FILE__, __LINE__, "partition: %s", tfc_status_msg(&f.s));
  EXPECT_EQ(p.n, 2);
  /* CPU:1: outer and inner control loops; CPU:0 none (nothing comes back inside a frame
   * except the inner body's value, whose consumer NextIteration moved to CPU:1) */
  const tfc_graph *g1 = p.parts[1].graph;
  const tfc_node *inner_enter = NULL, *outer_merge = NULL, *root_const = NULL;
  for (int k = 0; k < g1->n_nodes; k++) {
    const tfc_node *nd = g1->nodes[k];
    const tfc_attr_value *fn = tfc_node_attr(nd, "frame_name");
    if (strncmp(nd->name, "_cloop", 6) == 0 && strcmp(nd->op->name, "Enter") == 0 && fn) {
      if (strcmp(fn->u.s.data, "inner") == 0) inner_enter = nd;
      else if (strcmp(fn->u.s.data, "outer") == 0) root_const = nd->inputs[0].node;
    }
    if (strncmp(nd->name, "_cloop", 6) == 0 && strcmp(nd->op->name, "Merge") == 0 && nd->inputs[0].node->inputs[0].node == root_const)
      outer_merge = nd;
  }
  EXPECT_TRUE(inner_enter != NULL);
  EXPECT_TRUE(root_const != NULL);
  EXPECT_STREQ(root_const->op->name, "Const");
  EXPECT_EQ(root_const->n_inputs, 0);
  EXPECT_TRUE(outer_merge != NULL);
  EXPECT_TRUE(inner_enter->inputs[0].node == outer_merge);
  int loops = check_loop_construction(&p, -1);
  EXPECT_TRUE(loops >= 2);
  tfc_partitions_fini(&p);
  fixture_fini(&f);
}

/* A frame without LoopCond cannot be led across devices. */
static void partition_rejects_cross_device_loop_without_loop_cond(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *x = konst(&f, "x", -1, 0, f.cpu[0]);
  tfc_node *n = konst(&f, "n", -1, 0, f.cpu[0]);
  tfc_node *one = konst(&f, "one", -1, 0, f.cpu[0]);
  const int d[8] = {0, 0, 1, 0, 1, 1, 1, 1};
  counter_loop(&f, "loop", x, n, one, d, 1);
  expect_error(&f, TFC_INVALID_ARGUMENT, "A cross-device loop must have a pivot predicate: loop");
  fixture_fini(&f);
}

/* Two inputs from different frames are refused before any partitioning, with TF's text. */
static void partition_rejects_inputs_from_different_frames(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *x = konst(&f, "x", -1, 0, f.cpu[0]);
  tfc_node *e1 = enter(&f, "e1", x, "foo_1", 0, f.cpu[0]);
  tfc_node *e2 = enter(&f, "e2", x, "foo_2", 0, f.cpu[1]);
  tfc_endpoint in[2] = {{e1, 0}, {e2, 0}};
  op(&f, "Add", "add", f.cpu[1], in, 2, NULL, 0);
  expect_error(&f, TFC_INVALID_ARGUMENT,
               "{{node add}} has inputs from different frames. The input {{node e2}} is in frame 'foo_2'. "
               "The input {{node e1}} is in frame 'foo_1'.");
  fixture_fini(&f);
}

static void partition_of_empty_graph_is_empty(void) {
  fixture f;
  fixture_init(&f);
  tfc_partitions p;
  EXPECT_EQ(partition(&f, &p), TFC_OK);
  EXPECT_EQ(p.n, 0);
  tfc_partitions_fini(&p);
  fixture_fini(&f);
}

static const tfc_test tests[] = {
    TFC_TEST(partition_single_device_copies_graph_without_send_recv),
    TFC_TEST(partition_inserts_send_recv_on_cut_data_edge),
    TFC_TEST(partition_sends_dummy_const_for_cut_control_edge),
    TFC_TEST(partition_shares_one_recv_between_consumers_on_a_device),
    TFC_TEST(partition_keeps_data_and_control_pairs_apart),
    TFC_TEST(partition_fans_out_to_three_devices),
    TFC_TEST(partition_uses_host_send_recv_for_host_memory_args),
    TFC_TEST(partition_keeps_a_variadic_ops_last_input_in_host_memory),
    TFC_TEST(partition_new_names_avoid_existing_nodes),
    TFC_TEST(partition_nodes_are_assigned_and_counted),
    TFC_TEST(partition_rejects_unassigned_node),
    TFC_TEST(partition_rejects_unknown_device),
    TFC_TEST(partition_reports_missing_kernel_as_internal),
    TFC_TEST(partition_of_empty_graph_is_empty),
    TFC_TEST(partition_adds_control_loops_for_a_cross_device_loop),
    TFC_TEST(partition_nests_control_loops_of_nested_frames),
    TFC_TEST(partition_rejects_cross_device_loop_without_loop_cond),
    TFC_TEST(partition_rejects_inputs_from_different_frames),
    {0}};
TFC_TEST_MAIN(tests)
