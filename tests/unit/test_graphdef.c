/* GraphDef import and export through the internal API. GraphDefs are hand-encoded with the
 * small writer in pb_writer.h (field numbers from graph.proto / node_def.proto / attr_value.proto). */
#include <stdint.h>

#include "harness.h"
#include "pb_writer.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"
#include "graph/graph.h"
#include "proto/graphdef.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/op_def.pb-c.h"


/* NodeDef.attr entry with an already-encoded AttrValue. */
static void attr_entry(pbw *nd, const char *key, const pbw *value) {
  pbw e = {.n = 0};
  w_str(&e, 1, key);
  w_msg(&e, 2, value);
  w_msg(nd, 5, &e);
}
static void attr_type(pbw *nd, const char *key, int dt) {
  pbw v = {.n = 0};
  w_int(&v, 6, dt);
  attr_entry(nd, key, &v);
}
/* shape attr; rank -1 = unknown rank */
static void attr_shape(pbw *nd, const char *key, const int64_t *dims, int rank) {
  pbw sh = {.n = 0}, v = {.n = 0};
  if (rank < 0) w_int(&sh, 3, 1);
  for (int i = 0; i < rank; i++) {
    pbw d = {.n = 0};
    w_int(&d, 1, dims[i]);
    w_msg(&sh, 2, &d);
  }
  w_msg(&v, 7, &sh);
  attr_entry(nd, key, &v);
}
/* value attr: a float tensor of shape [1, n] from float_val */
static void attr_float_tensor(pbw *nd, const char *key, const float *vals, int n) {
  pbw t = {.n = 0}, sh = {.n = 0}, d = {.n = 0}, v = {.n = 0};
  w_int(&t, 1, 1);
  w_int(&d, 1, 1);
  w_msg(&sh, 2, &d);
  d.n = 0;
  w_int(&d, 1, n);
  w_msg(&sh, 2, &d);
  w_msg(&t, 2, &sh);
  for (int i = 0; i < n; i++) {
    w_tag(&t, 5, 5);
    memcpy(t.b + t.n, &vals[i], 4);
    t.n += 4;
  }
  w_msg(&v, 8, &t);
  attr_entry(nd, key, &v);
}

static pbw node(const char *name, const char *op, const char *const *inputs) {
  pbw nd = {.n = 0};
  w_str(&nd, 1, name);
  w_str(&nd, 2, op);
  for (; inputs && *inputs; inputs++) w_str(&nd, 3, *inputs);
  return nd;
}
static void add_node(pbw *gd, const pbw *nd) { w_msg(gd, 1, nd); }
static void versions(pbw *gd, int producer, int min_consumer, int bad) {
  pbw v = {.n = 0};
  w_int(&v, 1, producer);
  if (min_consumer) w_int(&v, 2, min_consumer);
  if (bad) w_int(&v, 3, bad);
  w_msg(gd, 4, &v);
}

static pbw placeholder(const char *name) {
  pbw nd = node(name, "Placeholder", NULL);
  attr_type(&nd, "dtype", 1);
  return nd;
}
static pbw constant(const char *name, float v) {
  pbw nd = node(name, "Const", NULL);
  attr_type(&nd, "dtype", 1);
  attr_float_tensor(&nd, "value", &v, 1);
  return nd;
}

/* A small graph in an inconvenient order: the consumer comes first.
 *   y = MatMul(x, w) with ^init control input; x Placeholder, w Identity(c), c Const. */
static pbw sample_graph(void) {
  pbw gd = {.n = 0};
  const char *mm_in[] = {"x", "w:0", "^init", NULL};
  pbw mm = node("y", "MatMul", mm_in);
  attr_type(&mm, "T", 1);
  add_node(&gd, &mm);
  const char *id_in[] = {"c", NULL};
  pbw id = node("w", "Identity", id_in);
  attr_type(&id, "T", 1);
  add_node(&gd, &id);
  pbw x = placeholder("x");
  attr_shape(&x, "shape", (int64_t[]){1, 1}, 2);
  add_node(&gd, &x);
  pbw c = constant("c", 2.0f);
  add_node(&gd, &c);
  pbw init = node("init", "NoOp", NULL);
  add_node(&gd, &init);
  versions(&gd, 27, 0, 0);
  return gd;
}

static tfc_status st;
static tfc_graph *new_graph(void) {
  tfc_status_fini(&st);
  tfc_status_init(&st);
  return tfc_graph_new();
}

/* A canonical dump: one line per node, "name = Op(inputs) @device". */
static char *dump(tfc_graph *g) {
  static char buf[8192];
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < g->n_nodes; i++) {
    tfc_node *nd = g->nodes[i];
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s = %s(", nd->name, nd->op->name);
    for (int j = 0; j < nd->n_inputs; j++)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s:%d", j ? ", " : "", nd->inputs[j].node->name,
                            nd->inputs[j].index);
    for (int j = 0; j < nd->n_control_inputs; j++)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s^%s", nd->n_inputs + j ? ", " : "",
                            nd->control_inputs[j]->name);
    n += (size_t)snprintf(buf + n, sizeof buf - n, ")%s%s\n", nd->device[0] ? " @" : "", nd->device);
  }
  return buf;
}

static void import_sorts_out_of_order_nodes_and_round_trips(void) {
  tfc_graph *g = new_graph();
  pbw gd = sample_graph();
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_OK);
  /* TF's order: of the nodes whose inputs exist, the first in the file (w is ready once c is
   * made and comes before init). */
  EXPECT_STREQ(dump(g),
               "x = Placeholder()\n"
               "c = Const()\n"
               "w = Identity(c:0)\n"
               "init = NoOp()\n"
               "y = MatMul(x:0, w:0, ^init)\n");
  EXPECT_EQ(g->producer, 27);
  EXPECT_EQ(g->min_consumer, 0);
  /* Missing attrs were filled from the op def. */
  int b = -1;
  EXPECT_EQ(tfc_node_attr_bool(tfc_graph_find(g, "y"), "transpose_a", &b), 0);
  EXPECT_EQ(b, 0);
  /* Shape inference ran: [1,1] x [1,1]. */
  tfc_shape y_shape = tfc_graph_find(g, "y")->output_shapes[0];
  EXPECT_EQ(y_shape.rank, 2);
  EXPECT_EQ(y_shape.dims[0], 1);
  EXPECT_EQ(y_shape.dims[1], 1);

  void *bytes;
  size_t len;
  EXPECT_EQ(tfc_graphdef_export(g, &bytes, &len, &st), TFC_OK);
  tfc_graph *g2 = tfc_graph_new();
  EXPECT_EQ(tfc_graphdef_import(g2, bytes, len, NULL, NULL, &st), TFC_OK);
  char first[8192];
  snprintf(first, sizeof first, "%s", dump(g));
  EXPECT_STREQ(dump(g2), first);
  void *bytes2;
  size_t len2;
  EXPECT_EQ(tfc_graphdef_export(g2, &bytes2, &len2, &st), TFC_OK);
  EXPECT_EQ(len2, len);
  EXPECT_TRUE(memcmp(bytes, bytes2, len) == 0);

  /* The exported NodeDef of y spells its inputs as TF does. */
  Tensorflow__GraphDef *out = tensorflow__graph_def__unpack(NULL, len, bytes);
  EXPECT_TRUE(out != NULL);
  EXPECT_EQ(out->n_node, 5);
  EXPECT_EQ(out->versions->producer, 27);
  Tensorflow__NodeDef *y = out->node[4];
  EXPECT_STREQ(y->name, "y");
  EXPECT_EQ(y->n_input, 3);
  EXPECT_STREQ(y->input[0], "x");
  EXPECT_STREQ(y->input[1], "w");
  EXPECT_STREQ(y->input[2], "^init");
  EXPECT_EQ(y->n_attr, 3); /* T, transpose_a, transpose_b */
  EXPECT_STREQ(y->attr[0]->key, "T");
  tensorflow__graph_def__free_unpacked(out, NULL);
  free(bytes);
  free(bytes2);
  tfc_graph_free(g);
  tfc_graph_free(g2);
}

static void import_applies_prefix_and_default_device(void) {
  tfc_graph *g = new_graph();
  pbw gd = sample_graph();
  tfc_import_options o = {.prefix = "imported/", .default_device = "/cpu:0"};
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, NULL, &st), TFC_OK);
  EXPECT_STREQ(dump(g),
               "imported/x = Placeholder() @/cpu:0\n"
               "imported/c = Const() @/cpu:0\n"
               "imported/w = Identity(imported/c:0) @/cpu:0\n"
               "imported/init = NoOp() @/cpu:0\n"
               "imported/y = MatMul(imported/x:0, imported/w:0, ^imported/init) @/cpu:0\n");
  /* Same prefix again with uniquify_prefix: "imported_1/..." */
  o.uniquify_prefix = 1;
  o.default_device = NULL;
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, NULL, &st), TFC_OK);
  EXPECT_TRUE(tfc_graph_find(g, "imported_1/y") != NULL);
  EXPECT_STREQ(tfc_graph_find(g, "imported_1/y")->inputs[0].node->name, "imported_1/x");
  tfc_graph_free(g);
}

static void import_twice_fails_without_uniquify_and_renames_with_it(void) {
  tfc_graph *g = new_graph();
  pbw gd = sample_graph();
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_OK);
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&st), "Node name 'y' already exists in the Graph");
  EXPECT_EQ(g->n_nodes, 5);
  tfc_status_clear(&st);
  tfc_import_options o = {.uniquify_names = 1};
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, NULL, &st), TFC_OK);
  EXPECT_EQ(g->n_nodes, 10);
  tfc_node *y1 = tfc_graph_find(g, "y_1");
  EXPECT_TRUE(y1 != NULL);
  EXPECT_STREQ(y1->inputs[1].node->name, "w_1");
  EXPECT_STREQ(y1->control_inputs[0]->name, "init_1");
  tfc_graph_free(g);
}

static void import_maps_inputs_and_reports_unused_mappings(void) {
  tfc_graph *g = new_graph();
  pbw pre = {.n = 0};
  pbw a = placeholder("feed");
  add_node(&pre, &a);
  pbw b = node("gate", "NoOp", NULL);
  add_node(&pre, &b);
  EXPECT_EQ(tfc_graphdef_import(g, pre.b, pre.n, NULL, NULL, &st), TFC_OK);
  tfc_node *feed = tfc_graph_find(g, "feed"), *gate = tfc_graph_find(g, "gate");

  pbw gd = sample_graph();
  tfc_import_input_mapping maps[3] = {{"x", 0, {feed, 0}}, {"init", -1, {gate, -1}}, {"absent", 2, {feed, 0}}};
  tfc_import_tensor_ref rets[2] = {{"y", 0}, {"x", 0}};
  char *ret_ops[1] = {"w"};
  tfc_node *deps[1] = {gate};
  tfc_import_options o = {.prefix = "m",
                          .n_input_mappings = 3,
                          .input_mappings = maps,
                          .n_control_deps = 1,
                          .control_deps = deps,
                          .n_return_outputs = 2,
                          .return_outputs = rets,
                          .n_return_ops = 1,
                          .return_ops = ret_ops};
  tfc_import_results r;
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, &r, &st), TFC_OK);
  /* x is still imported, but y reads feed; y's ^init became ^gate. Nodes with no input from
   * the GraphDef (x, c, init) got the extra control dependency on gate. y's only pending
   * input is w, so it is made before init (TF's order). */
  EXPECT_STREQ(dump(g),
               "feed = Placeholder()\n"
               "gate = NoOp()\n"
               "m/x = Placeholder(^gate)\n"
               "m/c = Const(^gate)\n"
               "m/w = Identity(m/c:0)\n"
               "m/y = MatMul(feed:0, m/w:0, ^gate)\n"
               "m/init = NoOp(^gate)\n");
  EXPECT_EQ(r.n_return_outputs, 2);
  EXPECT_STREQ(r.return_outputs[0].node->name, "m/y");
  EXPECT_TRUE(r.return_outputs[1].node == feed); /* a mapped return output is the mapped tensor */
  EXPECT_EQ(r.n_return_ops, 1);
  EXPECT_STREQ(r.return_ops[0]->name, "m/w");
  EXPECT_EQ(r.n_missing_unused, 1);
  EXPECT_STREQ(r.missing_unused_names[0], "absent");
  EXPECT_EQ(r.missing_unused_indexes[0], 2);
  tfc_import_results_fini(&r);
  tfc_graph_free(g);
}

static void import_reports_unknown_return_names(void) {
  tfc_graph *g = new_graph();
  pbw gd = sample_graph();
  tfc_import_tensor_ref rets[1] = {{"nope", 0}};
  tfc_import_options o = {.n_return_outputs = 1, .return_outputs = rets};
  tfc_import_results r;
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, &r, &st), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&st), "Requested return tensor 'nope:0' not found in graph def");
  EXPECT_EQ(g->n_nodes, 0);
  EXPECT_EQ(r.n_return_outputs, 0);
  tfc_status_clear(&st);
  rets[0].name = "x";
  rets[0].index = 3;
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, &r, &st), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&st), "Invalid return output 3 of node 'x', which has 1 output(s)");
  EXPECT_EQ(g->n_nodes, 0);
  tfc_graph_free(g);
}

static void import_unknown_op_names_node_and_op(void) {
  tfc_graph *g = new_graph();
  pbw gd = {.n = 0};
  pbw n = node("weird", "NoSuchOp", NULL);
  add_node(&gd, &n);
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_NOT_FOUND);
  EXPECT_CONTAINS(tfc_status_msg(&st), "Op type not registered 'NoSuchOp' in binary running on ");
  EXPECT_CONTAINS(tfc_status_msg(&st), "while building NodeDef 'weird'");
  tfc_graph_free(g);
}

static void import_input_errors_name_the_node(void) {
  struct {
    const char *inputs[3];
    const char *msg;
  } cases[] = {
      {{"nope", NULL}, "Node 'i': Unknown input node 'nope'"},
      {{"p:x", NULL}, "Node 'i': Unknown input node 'p:x'"},
      {{"p:1", NULL}, "Node 'i': Connecting to invalid output 1 of source node p which has 1 outputs"},
      {{"^p", "p", NULL}, "Node 'i': Control dependencies must come after regular dependencies"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    tfc_graph *g = new_graph();
    pbw gd = {.n = 0};
    pbw p = placeholder("p");
    add_node(&gd, &p);
    pbw i = node("i", "Identity", cases[k].inputs);
    attr_type(&i, "T", 1);
    add_node(&gd, &i);
    EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
    EXPECT_CONTAINS(tfc_status_msg(&st), cases[k].msg);
    EXPECT_EQ(g->n_nodes, 0);
    tfc_graph_free(g);
  }
}

static void import_rejects_duplicate_names_in_the_graphdef(void) {
  tfc_graph *g = new_graph();
  pbw gd = {.n = 0};
  pbw a = placeholder("a"), b = placeholder("a");
  add_node(&gd, &a);
  add_node(&gd, &b);
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&st), "Node 'a' is not unique");
  tfc_graph_free(g);
}

/* A failure on a late node leaves the graph exactly as it was, names included. */
static void failed_import_rolls_back_every_node(void) {
  tfc_graph *g = new_graph();
  pbw pre = {.n = 0};
  pbw keep = placeholder("keep");
  add_node(&pre, &keep);
  EXPECT_EQ(tfc_graphdef_import(g, pre.b, pre.n, NULL, NULL, &st), TFC_OK);
  int producer = g->producer;

  pbw gd = sample_graph();
  pbw bad = node("zz_bad", "Identity", (const char *[]){"y", NULL});
  attr_type(&bad, "T", 3); /* int32 Identity fed a float: an attr conflict */
  add_node(&gd, &bad);
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "zz_bad");
  EXPECT_STREQ(dump(g), "keep = Placeholder()\n");
  EXPECT_TRUE(tfc_graph_find(g, "y") == NULL);
  EXPECT_TRUE(tfc_graph_find(g, "keep") != NULL);
  EXPECT_EQ(g->producer, producer);
  /* The graph is still usable: the good part imports now. */
  tfc_status_clear(&st);
  pbw good = sample_graph();
  EXPECT_EQ(tfc_graphdef_import(g, good.b, good.n, NULL, NULL, &st), TFC_OK);
  EXPECT_EQ(g->n_nodes, 6);
  tfc_graph_free(g);
}

static void import_rejects_cycles(void) {
  tfc_graph *g = new_graph();
  pbw gd = {.n = 0};
  pbw a = node("a", "Identity", (const char *[]){"b", NULL});
  pbw b = node("b", "Identity", (const char *[]){"a", NULL});
  pbw c = node("c", "NoOp", (const char *[]){"^c", NULL});
  attr_type(&a, "T", 1);
  attr_type(&b, "T", 1);
  add_node(&gd, &a);
  add_node(&gd, &b);
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "2 nodes in a cycle");
  EXPECT_CONTAINS(tfc_status_msg(&st), "'a'");
  tfc_graph_free(g);
  g = new_graph();
  pbw self = {.n = 0};
  add_node(&self, &c);
  EXPECT_EQ(tfc_graphdef_import(g, self.b, self.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "1 nodes in a cycle");
  tfc_graph_free(g);
}

/* Producer 9 graphs (rust multiplication.pb) wrote unknown Placeholder shapes as `shape {}`. */
static void old_producer_placeholder_scalar_shape_means_unknown(void) {
  for (int k = 0; k < 3; k++) {
    int producer = k == 0 ? 9 : k == 1 ? 20 : 21;
    tfc_graph *g = new_graph();
    pbw gd = {.n = 0};
    pbw p = placeholder("p");
    attr_shape(&p, "shape", NULL, 0);
    add_node(&gd, &p);
    versions(&gd, producer, 0, 0);
    EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_OK);
    tfc_node *n = tfc_graph_find(g, "p");
    const tfc_attr_value *sh = tfc_node_attr(n, "shape");
    EXPECT_EQ(sh->u.shape->rank, producer < 21 ? -1 : 0);
    EXPECT_EQ(n->output_shapes[0].rank, producer < 21 ? -1 : 0);
    EXPECT_EQ(g->producer, producer);
    tfc_graph_free(g);
  }
}

static void import_checks_versions(void) {
  tfc_graph *g = new_graph();
  pbw gd = {.n = 0};
  pbw p = placeholder("p");
  add_node(&gd, &p);
  pbw too_new = gd, bad = gd, neg = gd, none = gd;
  versions(&too_new, 200, TFC_GRAPH_DEF_VERSION + 1, 0);
  versions(&bad, 30, 0, TFC_GRAPH_DEF_VERSION);
  versions(&neg, -1, 0, 0);
  EXPECT_EQ(tfc_graphdef_import(g, too_new.b, too_new.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "GraphDef min consumer version 135 above current version 134");
  tfc_status_clear(&st);
  EXPECT_EQ(tfc_graphdef_import(g, bad.b, bad.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "GraphDef disallows consumer version 134");
  tfc_status_clear(&st);
  EXPECT_EQ(tfc_graphdef_import(g, neg.b, neg.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "GraphDef producer version -1 below min producer 0");
  EXPECT_EQ(g->n_nodes, 0);
  /* No versions at all (very old graphs): accepted, producer 0. */
  tfc_status_clear(&st);
  EXPECT_EQ(tfc_graphdef_import(g, none.b, none.n, NULL, NULL, &st), TFC_OK);
  EXPECT_EQ(g->producer, 0);
  /* A second import merges: producer = min, min_consumer = max. */
  pbw more = {.n = 0};
  pbw q = placeholder("q");
  add_node(&more, &q);
  versions(&more, 27, 12, 0);
  EXPECT_EQ(tfc_graphdef_import(g, more.b, more.n, NULL, NULL, &st), TFC_OK);
  EXPECT_EQ(g->producer, 0);
  EXPECT_EQ(g->min_consumer, 12);
  tfc_graph_free(g);
}

static void import_rejects_malformed_bytes(void) {
  tfc_graph *g = new_graph();
  static const uint8_t bad[] = {0x0a, 0x10, 0x0a, 0x01};
  EXPECT_EQ(tfc_graphdef_import(g, bad, sizeof bad, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&st), "Invalid GraphDef");
  /* An empty GraphDef is fine. */
  tfc_status_clear(&st);
  EXPECT_EQ(tfc_graphdef_import(g, "", 0, NULL, NULL, &st), TFC_OK);
  EXPECT_EQ(g->n_nodes, 0);
  /* A bad attr value names the node. */
  pbw gd = {.n = 0};
  pbw p = placeholder("p");
  pbw shape_bad = {.n = 0}, d = {.n = 0}, sh = {.n = 0};
  w_int(&d, 1, -7);
  w_msg(&sh, 2, &d);
  w_msg(&shape_bad, 7, &sh);
  attr_entry(&p, "shape", &shape_bad);
  add_node(&gd, &p);
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&st), "Node 'p': attr 'shape': Shape has dimension 0 of size -7");
  tfc_graph_free(g);
}

static void nodedef_and_versions_export(void) {
  tfc_graph *g = new_graph();
  pbw gd = sample_graph();
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, NULL, NULL, &st), TFC_OK);
  void *bytes;
  size_t len;
  EXPECT_EQ(tfc_nodedef_export(tfc_graph_find(g, "w"), &bytes, &len, &st), TFC_OK);
  Tensorflow__NodeDef *nd = tensorflow__node_def__unpack(NULL, len, bytes);
  EXPECT_STREQ(nd->name, "w");
  EXPECT_STREQ(nd->op, "Identity");
  EXPECT_EQ(nd->n_input, 1);
  EXPECT_STREQ(nd->input[0], "c");
  EXPECT_EQ(nd->n_attr, 1);
  EXPECT_EQ(nd->attr[0]->value->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
  tensorflow__node_def__free_unpacked(nd, NULL);
  free(bytes);
  EXPECT_EQ(tfc_versiondef_export(g, &bytes, &len, &st), TFC_OK);
  EXPECT_EQ(len, 2);
  EXPECT_EQ(((uint8_t *)bytes)[0], 0x08);
  EXPECT_EQ(((uint8_t *)bytes)[1], 27);
  free(bytes);
  tfc_graph_free(g);
}

static void oplist_exports_public_ops_with_defaults(void) {
  tfc_status_init(&st);
  void *bytes;
  size_t len;
  EXPECT_EQ(tfc_oplist_export(&bytes, &len, &st), TFC_OK);
  Tensorflow__OpList *l = tensorflow__op_list__unpack(NULL, len, bytes);
  EXPECT_TRUE(l != NULL);
  const Tensorflow__OpDef *mm = NULL;
  for (size_t i = 0; i < l->n_op; i++) {
    EXPECT_TRUE(l->op[i]->name[0] != '_');
    if (strcmp(l->op[i]->name, "MatMul") == 0) mm = l->op[i];
  }
  EXPECT_TRUE(mm != NULL);
  EXPECT_EQ(mm->n_input_arg, 2);
  EXPECT_STREQ(mm->input_arg[0]->type_attr, "T");
  EXPECT_STREQ(mm->output_arg[0]->name, "product");
  const Tensorflow__OpDef__AttrDef *ta = NULL, *t = NULL;
  for (size_t i = 0; i < mm->n_attr; i++) {
    if (strcmp(mm->attr[i]->name, "transpose_a") == 0) ta = mm->attr[i];
    if (strcmp(mm->attr[i]->name, "T") == 0) t = mm->attr[i];
  }
  EXPECT_STREQ(ta->type, "bool");
  EXPECT_EQ(ta->default_value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_B);
  EXPECT_EQ(ta->default_value->b, 0);
  EXPECT_STREQ(t->type, "type");
  EXPECT_TRUE(t->allowed_values && t->allowed_values->list && t->allowed_values->list->n_type >= 4);
  tensorflow__op_list__free_unpacked(l, NULL);
  free(bytes);

  EXPECT_EQ(tfc_opdef_export(tfc_op_lookup("Placeholder"), &bytes, &len, &st), TFC_OK);
  Tensorflow__OpDef *od = tensorflow__op_def__unpack(NULL, len, bytes);
  EXPECT_STREQ(od->name, "Placeholder");
  EXPECT_EQ(od->n_output_arg, 1);
  EXPECT_STREQ(od->output_arg[0]->type_attr, "dtype");
  tensorflow__op_def__free_unpacked(od, NULL);
  free(bytes);
}


static void attr_string_list(pbw *nd, const char *key, const char *s0) {
  pbw l = {.n = 0}, v = {.n = 0};
  w_str(&l, 2, s0);
  w_msg(&v, 1, &l);
  attr_entry(nd, key, &v);
}

/* _class "loc:@x" follows x's new name; an unknown target is an error unless validation is
 * off. */
static void import_rewrites_colocation_to_final_names(void) {
  tfc_graph *g = new_graph();
  pbw gd = {.n = 0};
  pbw x = placeholder("x");
  pbw y = node("y", "Identity", (const char *[]){"x", NULL});
  attr_type(&y, "T", 1);
  attr_string_list(&y, "_class", "loc:@x");
  add_node(&gd, &x);
  add_node(&gd, &y);
  tfc_import_options o = {.prefix = "q"};
  EXPECT_EQ(tfc_graphdef_import(g, gd.b, gd.n, &o, NULL, &st), TFC_OK);
  const tfc_attr_value *cls = tfc_node_attr(tfc_graph_find(g, "q/y"), "_class");
  EXPECT_EQ(cls->u.list.n, 1);
  EXPECT_STREQ(cls->u.list.items[0].u.s.data, "loc:@q/x");

  pbw bad = {.n = 0};
  pbw z = placeholder("z");
  attr_string_list(&z, "_class", "loc:@elsewhere");
  add_node(&bad, &z);
  EXPECT_EQ(tfc_graphdef_import(g, bad.b, bad.n, NULL, NULL, &st), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&st), "Node 'z' expects to be colocated with unknown node 'elsewhere'");
  tfc_status_clear(&st);
  o.skip_colocation_validation = 1;
  EXPECT_EQ(tfc_graphdef_import(g, bad.b, bad.n, &o, NULL, &st), TFC_OK);
  EXPECT_STREQ(tfc_node_attr(tfc_graph_find(g, "q/z"), "_class")->u.list.items[0].u.s.data, "loc:@elsewhere");
  tfc_graph_free(g);
}

/* ---- the C API over the same code ---- */

/* TF reports an unused input-map key when its node is not in the GraphDef or has no such
 * output; an unused key of an existing output (y:0) or a control key (^x) is not reported. */
static void capi_import_reports_mappings_to_missing_outputs(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  pbw pre = {.n = 0};
  pbw a = placeholder("feed");
  add_node(&pre, &a);
  TF_Buffer *pb = TF_NewBufferFromString(pre.b, pre.n);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, pb, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(pb);
  TF_Operation *feed = TF_GraphOperationByName(g, "feed");

  pbw gd = sample_graph();
  TF_Buffer *buf = TF_NewBufferFromString(gd.b, gd.n);
  o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "m");
  TF_ImportGraphDefOptionsAddInputMapping(o, "y", 0, (TF_Output){feed, 0});
  TF_ImportGraphDefOptionsAddInputMapping(o, "y", 1, (TF_Output){feed, 0});
  TF_ImportGraphDefOptionsAddInputMapping(o, "ghost", 0, (TF_Output){feed, 0});
  TF_ImportGraphDefOptionsAddInputMapping(o, "c", 0, (TF_Output){feed, 0});
  TF_ImportGraphDefOptionsRemapControlDependency(o, "x", feed);
  TF_ImportGraphDefResults *r = TF_GraphImportGraphDefWithResults(g, buf, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  const char **names;
  int *idx, n;
  TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &idx);
  EXPECT_EQ(n, 2);
  EXPECT_STREQ(names[0], "y");
  EXPECT_EQ(idx[0], 1);
  EXPECT_STREQ(names[1], "ghost");
  EXPECT_EQ(idx[1], 0);
  /* c:0 was mapped: m/w reads feed */
  TF_Operation *w = TF_GraphOperationByName(g, "m/w");
  EXPECT_TRUE(TF_OperationInput((TF_Input){w, 0}).oper == feed);
  TF_DeleteImportGraphDefResults(r);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void capi_import_export_round_trip(void) {
  pbw gd = sample_graph();
  TF_Buffer *buf = TF_NewBufferFromString(gd.b, gd.n);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "net");
  TF_ImportGraphDefOptionsAddReturnOutput(o, "y", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(o, "init");
  TF_ImportGraphDefOptionsAddInputMapping(o, "ghost", 1, (TF_Output){NULL, 0});
  EXPECT_EQ(TF_ImportGraphDefOptionsNumReturnOutputs(o), 1);
  EXPECT_EQ(TF_ImportGraphDefOptionsNumReturnOperations(o), 1);
  /* The mapping to a NULL output is rejected before anything is added. */
  TF_GraphImportGraphDef(g, buf, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteImportGraphDefOptions(o);

  o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "net");
  TF_ImportGraphDefOptionsAddReturnOutput(o, "y", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(o, "init");
  TF_ImportGraphDefResults *r = TF_GraphImportGraphDefWithResults(g, buf, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int n;
  TF_Output *outs;
  TF_ImportGraphDefResultsReturnOutputs(r, &n, &outs);
  EXPECT_EQ(n, 1);
  EXPECT_STREQ(TF_OperationName(outs[0].oper), "net/y");
  TF_Operation **ops;
  TF_ImportGraphDefResultsReturnOperations(r, &n, &ops);
  EXPECT_EQ(n, 1);
  EXPECT_STREQ(TF_OperationName(ops[0]), "net/init");
  const char **names;
  int *idx;
  TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &idx);
  EXPECT_EQ(n, 0);
  TF_DeleteImportGraphDefResults(r);

  /* With return outputs: the count must match the options. */
  TF_Output ret[1];
  TF_ImportGraphDefOptionsSetUniquifyPrefix(o, 1);
  TF_GraphImportGraphDefWithReturnOutputs(g, buf, o, ret, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Expected 'num_return_outputs' to be 1, got 2");
  TF_GraphImportGraphDefWithReturnOutputs(g, buf, o, ret, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_STREQ(TF_OperationName(ret[0].oper), "net_1/y");
  TF_DeleteImportGraphDefOptions(o);

  /* Export, then import into a fresh graph with no options. */
  TF_Buffer *out = TF_NewBuffer();
  TF_GraphToGraphDef(g, out, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_GraphToGraphDef(g, out, s); /* a filled buffer is refused */
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Passing non-empty TF_Buffer is invalid.");
  TF_Graph *g2 = TF_NewGraph();
  TF_GraphImportGraphDef(g2, out, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_TRUE(TF_GraphOperationByName(g2, "net_1/w") != NULL);

  TF_Buffer *nd = TF_NewBuffer();
  TF_OperationToNodeDef(TF_GraphOperationByName(g2, "net/w"), nd, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  Tensorflow__NodeDef *w = tensorflow__node_def__unpack(NULL, nd->length, nd->data);
  EXPECT_STREQ(w->input[0], "net/c");
  tensorflow__node_def__free_unpacked(w, NULL);

  TF_Buffer *ver = TF_NewBuffer();
  TF_GraphVersions(g2, ver, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(ver->length, 2);
  EXPECT_EQ(((const uint8_t *)ver->data)[1], 27);

  /* Garbage in: "Invalid GraphDef", graph untouched; a NULL status does not crash. */
  TF_Buffer *junk = TF_NewBufferFromString("\x0a\x7f", 2);
  TF_GraphImportGraphDef(g2, junk, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Invalid GraphDef");
  TF_GraphImportGraphDef(g2, junk, NULL, NULL);
  TF_DeleteBuffer(junk);
  TF_DeleteBuffer(ver);
  TF_DeleteBuffer(nd);
  TF_DeleteBuffer(out);
  TF_DeleteBuffer(buf);
  TF_DeleteGraph(g2);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void capi_op_defs(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *b = TF_NewBuffer();
  TF_GraphGetOpDef(g, "MatMul", b, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  Tensorflow__OpDef *od = tensorflow__op_def__unpack(NULL, b->length, b->data);
  EXPECT_STREQ(od->name, "MatMul");
  tensorflow__op_def__free_unpacked(od, NULL);
  TF_Buffer *b2 = TF_NewBuffer();
  TF_GraphGetOpDef(g, "NotAnOp", b2, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "Op type not registered 'NotAnOp'");
  TF_Buffer *all = TF_GetAllOpList();
  EXPECT_TRUE(all && all->length > 0);
  Tensorflow__OpList *l = tensorflow__op_list__unpack(NULL, all->length, all->data);
  EXPECT_TRUE(l && l->n_op > 5);
  tensorflow__op_list__free_unpacked(l, NULL);
  TF_DeleteBuffer(all);
  TF_DeleteBuffer(b);
  TF_DeleteBuffer(b2);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void capi_attr_value_and_shape_protos(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "p");
  const uint8_t dtype[] = {0x30, 0x03}; /* AttrValue { type: DT_INT32 } */
  TF_SetAttrValueProto(d, "dtype", dtype, sizeof dtype, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  const uint8_t shape[] = {0x12, 0x02, 0x08, 0x05, 0x12, 0x03, 0x08, 0xff, 0x01}; /* [5, 127] */
  TF_SetAttrTensorShapeProto(d, "shape", shape, sizeof shape, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_SetAttrValueProto(d, "bad", "\x30", 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Unparseable AttrValue");
  TF_Operation *p = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_OperationOutputType((TF_Output){p, 0}), TF_INT32);

  TF_Buffer *v = TF_NewBuffer();
  TF_OperationGetAttrValueProto(p, "dtype", v, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(v->length, 2);
  EXPECT_TRUE(memcmp(v->data, dtype, 2) == 0);
  TF_Buffer *sh = TF_NewBuffer();
  TF_OperationGetAttrTensorShapeProto(p, "shape", sh, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(sh->length, sizeof shape);
  EXPECT_TRUE(memcmp(sh->data, shape, sizeof shape) == 0);
  TF_Buffer *none = TF_NewBuffer();
  TF_OperationGetAttrValueProto(p, "nope", none, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Operation 'p' has no attr named 'nope'.");
  TF_OperationGetAttrTensorShapeProto(p, "dtype", none, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);

  /* A list(shape) attr through the list setter and getter (on a _-prefixed attr, which any
   * op may carry). */
  TF_OperationDescription *d2 = TF_NewOperation(g, "NoOp", "n");
  const void *protos[2] = {shape, "\x18\x01"};
  size_t lens[2] = {sizeof shape, 2};
  TF_SetAttrTensorShapeProtoList(d2, "_shapes", protos, lens, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Operation *n = TF_FinishOperation(d2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Buffer *list[2] = {NULL, NULL};
  TF_OperationGetAttrTensorShapeProtoList(n, "_shapes", list, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(list[0]->length, sizeof shape);
  EXPECT_EQ(list[1]->length, 2);
  EXPECT_TRUE(memcmp(list[1]->data, "\x18\x01", 2) == 0);
  TF_DeleteBuffer(list[0]);
  TF_DeleteBuffer(list[1]);
  TF_DeleteBuffer(v);
  TF_DeleteBuffer(sh);
  TF_DeleteBuffer(none);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {TFC_TEST(capi_import_reports_mappings_to_missing_outputs),
                                 TFC_TEST(import_sorts_out_of_order_nodes_and_round_trips),
                                 TFC_TEST(import_applies_prefix_and_default_device),
                                 TFC_TEST(import_twice_fails_without_uniquify_and_renames_with_it),
                                 TFC_TEST(import_maps_inputs_and_reports_unused_mappings),
                                 TFC_TEST(import_reports_unknown_return_names),
                                 TFC_TEST(import_unknown_op_names_node_and_op),
                                 TFC_TEST(import_input_errors_name_the_node),
                                 TFC_TEST(import_rejects_duplicate_names_in_the_graphdef),
                                 TFC_TEST(failed_import_rolls_back_every_node),
                                 TFC_TEST(import_rejects_cycles),
                                 TFC_TEST(old_producer_placeholder_scalar_shape_means_unknown),
                                 TFC_TEST(import_checks_versions),
                                 TFC_TEST(import_rejects_malformed_bytes),
                                 TFC_TEST(nodedef_and_versions_export),
                                 TFC_TEST(oplist_exports_public_ops_with_defaults),
                                 TFC_TEST(import_rewrites_colocation_to_final_names),
                                 TFC_TEST(capi_import_export_round_trip),
                                 TFC_TEST(capi_op_defs),
                                 TFC_TEST(capi_attr_value_and_shape_protos),
                                 {0}};
TFC_TEST_MAIN(tests)
