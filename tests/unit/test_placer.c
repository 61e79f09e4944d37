/* Unit tests of the placer, in the style of TF's placer_test.cc: hand-made device sets of fake
 * types (FakeCPU priority 70, FakeGPU 210, plus CPU/GPU for the legacy names) whose kernel
 * tables register chosen ops, graphs built through the internal API, and exact devices,
 * reasons, codes and messages. */
#include "graph/graph.h"
#include "harness.h"
#include "place/placer.h"

#define PREFIX "/job:a/replica:0/task:0/device:"
#define OFF "\n(allow_soft_placement is off for this session)"
#define ON "\n(allow_soft_placement is on for this session)"
#define FAKE2 PREFIX "FakeCPU:0, " PREFIX "FakeGPU:0"
#define MEMBERS "\n\nColocation members, user-requested devices, and framework assigned devices, if any:"
#define DEBUG_INFO "\nColocation Debug Info:\nColocation group had the following types and supported devices: "

enum { T_FAKECPU, T_FAKEGPU, T_CPU, T_GPU, N_TYPES };
static const char *const type_names[N_TYPES] = {"FakeCPU", "FakeGPU", "CPU", "GPU"};

#define K(o) {.op = TFC_OP_##o}
#define KT(o, attr, mask) {.op = TFC_OP_##o, .type_attr = attr, .types = mask}

/* CPU-like types run everything but Placeholder and Sqrt (GPU-only here); VariableV2 is
 * CPU-only, and GPU Const and MatMul take float only. Exp runs nowhere. */
static const tfc_kernel_def cpu_rows[] = {
    K(Const), K(NoOp), K(Identity), K(VariableV2), K(Assign), K(Shape), K(Size), K(Rank),
    K(AddV2), KT(MatMul, "T", TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE)),
};
static const tfc_kernel_def gpu_rows[] = {
    KT(Const, "dtype", TFC_T(TFC_DT_FLOAT)), K(NoOp), K(Identity), K(Assign), K(Shape), K(Size),
    K(Rank), K(AddV2), KT(MatMul, "T", TFC_T(TFC_DT_FLOAT)), K(Placeholder), K(Sqrt),
};

typedef struct fx {
  tfc_graph *g;
  tfc_kernel_table tables[N_TYPES];
  char names[16][96];
  tfc_device devs[16];
  tfc_device *ptrs[16];
  int n_devices;
  tfc_placement out[64];
  int n_placed;
  tfc_status s;
} fx;

static int type_of(const char *name, size_t len) {
  for (int t = 0; t < N_TYPES; t++)
    if (strlen(type_names[t]) == len && strncmp(type_names[t], name, len) == 0) return t;
  tfc_test_fail(__FILE__, __LINE__, "unknown device type in '%s'", name);
}

/* devset: space-separated "TYPE:ID" tokens, e.g. "FakeCPU:0 FakeGPU:0". */
static void fx_init(fx *f, const char *devset) {
  memset(f, 0, sizeof *f);
  tfc_status_init(&f->s);
  if (tfc_ops_init(&f->s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "ops: %s", tfc_status_msg(&f->s));
  f->g = tfc_graph_new();
  for (int t = 0; t < N_TYPES; t++) {
    tfc_kernel_table_init(&f->tables[t], type_names[t]);
    int gpu = t == T_FAKEGPU || t == T_GPU;
    const tfc_kernel_def *rows = gpu ? gpu_rows : cpu_rows;
    int n = gpu ? (int)(sizeof gpu_rows / sizeof gpu_rows[0]) : (int)(sizeof cpu_rows / sizeof cpu_rows[0]);
    tfc_kernel_table_add(&f->tables[t], rows, n, &f->s);
  }
  for (const char *p = devset; *p;) {
    while (*p == ' ') p++;
    const char *colon = strchr(p, ':');
    if (!colon) break;
    int t = type_of(p, (size_t)(colon - p)), i = f->n_devices++;
    tfc_device *d = &f->devs[i];
    d->id = atoi(colon + 1);
    snprintf(d->type, sizeof d->type, "%s", type_names[t]);
    snprintf(f->names[i], sizeof f->names[i], PREFIX "%s:%d", type_names[t], d->id);
    d->name = f->names[i];
    d->priority = (t == T_FAKEGPU || t == T_GPU) ? 210 : 70;
    d->kernels = &f->tables[t];
    f->ptrs[i] = d;
    while (*p && *p != ' ') p++;
  }
}

static void fx_fini(fx *f) {
  tfc_placement_fini(f->out, f->n_placed);
  for (int t = 0; t < N_TYPES; t++) tfc_kernel_table_fini(&f->tables[t]);
  tfc_graph_free(f->g);
  tfc_status_fini(&f->s);
}

typedef struct nspec {
  const char *op, *name, *device;
  tfc_node *in[2];
  const char *loc;  /* "loc:@<loc>" in _class */
  int dtype;        /* Const/Placeholder/VariableV2 dtype; 0: float */
  tfc_node *ctrl;   /* a control input */
} nspec;

/* N("Identity", "i", .device = "/device:FakeCPU:0", .in = {x}, .loc = "v") */
#define N(op_, name_, ...) ((nspec){.op = op_, .name = name_, __VA_ARGS__})

static tfc_node *add(fx *f, nspec sp) {
  tfc_status_clear(&f->s);
  tfc_node_desc *d = tfc_node_desc_new(f->g, sp.op, sp.name);
  int dt = sp.dtype ? sp.dtype : TFC_DT_FLOAT;
  tfc_attr_value v;
  if (strcmp(sp.op, "Const") == 0) {
    const int64_t dims[2] = {1, 1}; /* a matrix, so MatMul accepts it */
    tfc_tensor *t = tfc_tensor_new(dt, dims, 2, &f->s);
    memset(t->data, 0, t->n_bytes);
    v = tfc_attr_tensor(t);
    tfc_node_desc_set_attr(d, "value", &v);
  }
  if (strcmp(sp.op, "VariableV2") == 0) {
    const int64_t dims[2] = {1, 1};
    tfc_shape sh = tfc_shape_make(dims, 2);
    tfc_attr_shape(&sh, &v, &f->s);
    tfc_node_desc_set_attr(d, "shape", &v);
  }
  if (strcmp(sp.op, "Const") == 0 || strcmp(sp.op, "VariableV2") == 0 || strcmp(sp.op, "Placeholder") == 0) {
    v = tfc_attr_type(dt);
    tfc_node_desc_set_attr(d, "dtype", &v);
  }
  for (int i = 0; i < 2 && sp.in[i]; i++) tfc_node_desc_add_input(d, (tfc_endpoint){sp.in[i], 0});
  if (sp.ctrl) tfc_node_desc_add_control(d, sp.ctrl);
  if (sp.device) tfc_node_desc_set_device(d, sp.device);
  if (sp.loc) {
    char loc[96];
    snprintf(loc, sizeof loc, "loc:@%s", sp.loc);
    tfc_attr_value list = tfc_attr_list(TFC_ATTR_STRING), item;
    tfc_attr_string(loc, strlen(loc), &item, &f->s);
    tfc_attr_list_append(&list, &item, &f->s);
    tfc_node_desc_set_attr(d, "_class", &list);
  }
  tfc_node *n = tfc_node_desc_finish(d, &f->s);
  if (!n) tfc_test_fail(__FILE__, __LINE__, "node %s: %s", sp.name, tfc_status_msg(&f->s));
  return n;
}

/* Places the nodes added since the last successful call. */
static int place(fx *f, int soft) {
  tfc_status_clear(&f->s);
  tfc_place_options o = {soft, NULL, NULL};
  int rc = tfc_place(f->g, f->n_placed, f->ptrs, f->n_devices, &o, f->out, &f->s);
  EXPECT_EQ(rc, f->s.code);
  if (rc == TFC_OK) f->n_placed = f->g->n_nodes;
  return rc;
}

static void place_ok(fx *f, int soft) {
  if (place(f, soft) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "place: %s", tfc_status_msg(&f->s));
}

static const tfc_placement *placement(fx *f, const char *node) {
  const tfc_node *n = tfc_graph_find(f->g, node);
  if (!n || n->id >= f->n_placed) tfc_test_fail(__FILE__, __LINE__, "%s is not placed", node);
  return &f->out[n->id];
}

/* The device of a node without the common "/job:a/replica:0/task:0/device:" prefix. */
static const char *dev(fx *f, const char *node) {
  const tfc_placement *p = placement(f, node);
  if (p->device < 0 || p->device >= f->n_devices) tfc_test_fail(__FILE__, __LINE__, "%s: device %d", node, p->device);
  const char *name = f->ptrs[p->device]->name;
  if (strncmp(name, PREFIX, strlen(PREFIX)) != 0) tfc_test_fail(__FILE__, __LINE__, "odd name %s", name);
  return name + strlen(PREFIX);
}

static const char *why(fx *f, const char *node) { return placement(f, node)->reason; }

/* ---------------- one node, many device sets: the table ---------------- */

typedef struct place_case {
  const char *devset, *op, *device;
  int soft;
  int code;          /* expected status code */
  const char *want;  /* the device (without PREFIX) on success */
  const char *text;  /* the reason on success, else the exact error */
} place_case;

static const place_case cases[] = {
    /* No constraint: the GPU, whatever order the devices come in. */
    {"FakeCPU:0 FakeGPU:0", "NoOp", "", 0, 0, "FakeGPU:0", "default: first device with a kernel"},
    {"FakeGPU:1 FakeCPU:0 FakeGPU:0", "NoOp", "", 0, 0, "FakeGPU:0", "default: first device with a kernel"},
    /* Only a CPU kernel. */
    {"FakeCPU:0 FakeGPU:0", "VariableV2", "", 0, 0, "FakeCPU:0", "default: first device with a kernel"},
    /* Partial and full specs. */
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/device:FakeCPU", 0, 0, "FakeCPU:0", "explicit request /device:FakeCPU:*"},
    {"FakeCPU:0 FakeGPU:1 FakeGPU:0", "NoOp", "/device:FakeGPU", 0, 0, "FakeGPU:0", "explicit request /device:FakeGPU:*"},
    {"FakeCPU:0 FakeGPU:0 FakeGPU:1", "NoOp", "/device:FakeGPU:1", 0, 0, "FakeGPU:1", "explicit request /device:FakeGPU:1"},
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/job:a", 0, 0, "FakeGPU:0", "explicit request /job:a"},
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/replica:0", 0, 0, "FakeGPU:0", "explicit request /replica:0"},
    {"FakeCPU:0 FakeGPU:0", "VariableV2", "/job:a/task:0", 0, 0, "FakeCPU:0", "explicit request /job:a/task:0"},
    {"FakeCPU:0 FakeGPU:0", "NoOp", PREFIX "FakeCPU:0", 0, 0, "FakeCPU:0", "explicit request " PREFIX "FakeCPU:0"},
    /* Legacy and local names. */
    {"CPU:0 GPU:0", "NoOp", "/cpu:0", 0, 0, "CPU:0", "explicit request /device:CPU:0"},
    {"CPU:0 GPU:0 GPU:1", "NoOp", "/GPU:1", 0, 0, "GPU:1", "explicit request /device:GPU:1"},
    {"CPU:0 GPU:0", "NoOp", "CPU:0", 0, 0, "CPU:0", "explicit request /device:CPU:0"},
    /* A device that does not exist. */
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/device:FakeGPU:1", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Operation was explicitly assigned to /device:FakeGPU:1 but "
     "available devices are [ " FAKE2 " ]. Make sure the device specification refers to a valid device." OFF},
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/device:FakeGPU:1", 1, 0, "FakeGPU:0", "soft placement: /device:FakeGPU:1 does not exist"},
    {"FakeCPU:0 FakeGPU:0", "VariableV2", "/device:FakeGPU:1", 1, 0, "FakeCPU:0", "soft placement: /device:FakeGPU:1 does not exist"},
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/job:b/device:FakeGPU:0", 1, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Operation was explicitly assigned to /job:b/device:FakeGPU:0 but "
     "available devices are [ " FAKE2 " ]. Make sure the device specification refers to a valid device." ON},
    {"CPU:0", "NoOp", "/gpu:0", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Operation was explicitly assigned to /gpu:0 but available devices "
     "are [ " PREFIX "CPU:0 ]. Make sure the device specification refers to a valid device. The requested device "
     "appears to be a GPU, but CUDA is not enabled." OFF},
    {"GPU:0 CPU:0", "NoOp", "/gpu:1", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Operation was explicitly assigned to /gpu:1 but available devices "
     "are [ " PREFIX "CPU:0, " PREFIX "GPU:0 ]. Make sure the device specification refers to a valid device." OFF},
    {"CPU:0", "NoOp", "/gpu:0", 1, 0, "CPU:0", "soft placement: /device:GPU:0 does not exist"},
    {"CPU:0 GPU:0", "NoOp", "/gpu:3", 1, 0, "GPU:0", "soft placement: /device:GPU:3 does not exist"},
    /* No kernel for the requested type. */
    {"FakeCPU:0 FakeGPU:0", "VariableV2", "/device:FakeGPU:0", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Could not satisfy explicit device specification "
     "'/device:FakeGPU:0' because no supported kernel for FakeGPU devices is available." DEBUG_INFO
     "\nVariableV2: FakeCPU " MEMBERS "\n  n (VariableV2) /device:FakeGPU:0\n" OFF},
    {"FakeCPU:0 FakeGPU:0", "VariableV2", "/device:FakeGPU:0", 1, 0, "FakeCPU:0", "soft placement: no FakeGPU kernel for VariableV2"},
    {"FakeCPU:0 FakeGPU:0", "Placeholder", "/job:a/device:FakeCPU", 1, 0, "FakeGPU:0", "soft placement: no FakeCPU kernel for Placeholder"},
    /* The request names devices that exist but none of a type with a kernel. */
    {"FakeCPU:0 FakeGPU:0 FakeGPU:1", "VariableV2", "/device:*:1", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Could not satisfy explicit device specification '/device:*:1'"
     DEBUG_INFO "\nVariableV2: FakeCPU " MEMBERS "\n  n (VariableV2) /device:*:1\n" OFF},
    /* Malformed requests, with and without soft placement. */
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/device:FakeGPU:x", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Malformed device specification '/device:FakeGPU:x' in node: n" OFF},
    {"FakeCPU:0 FakeGPU:0", "NoOp", "gpu0", 1, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Malformed device specification 'gpu0' in node: n" ON},
    {"FakeCPU:0 FakeGPU:0", "NoOp", "/task:-1", 0, TFC_INVALID_ARGUMENT, NULL,
     "Cannot assign a device for operation n: Malformed device specification '/task:-1' in node: n" OFF},
    /* No devices at all. */
    {"", "NoOp", "", 0, TFC_FAILED_PRECONDITION, NULL, "No devices are registered" OFF},
};

static void table_of_single_node_placements(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const place_case *c = &cases[i];
    fx f;
    fx_init(&f, c->devset);
    add(&f, N(c->op, "n", .device = c->device));
    int rc = place(&f, c->soft);
    if (rc != c->code)
      tfc_test_fail(__FILE__, __LINE__, "case %zu (%s on %s): code %d, want %d: %s", i, c->device, c->devset, rc,
                    c->code, tfc_status_msg(&f.s));
    if (rc != TFC_OK) {
      if (strcmp(tfc_status_msg(&f.s), c->text) != 0)
        tfc_test_fail(__FILE__, __LINE__, "case %zu:\n  got  \"%s\"\n  want \"%s\"", i, tfc_status_msg(&f.s), c->text);
      EXPECT_EQ(f.out[0].device, -1);
      EXPECT_TRUE(f.out[0].reason == NULL);
    } else {
      if (strcmp(dev(&f, "n"), c->want) != 0 || strcmp(why(&f, "n"), c->text) != 0)
        tfc_test_fail(__FILE__, __LINE__, "case %zu: %s (%s), want %s (%s)", i, dev(&f, "n"), why(&f, "n"), c->want,
                      c->text);
    }
    fx_fini(&f);
  }
}

/* ---------------- kernels ---------------- */

static void kernel_type_constraints_choose_the_device(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("Const", "f", .dtype = TFC_DT_FLOAT));
  add(&f, N("Const", "i", .dtype = TFC_DT_INT32));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "f"), "FakeGPU:0");
  EXPECT_STREQ(dev(&f, "i"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "i"), "default: first device with a kernel");
  fx_fini(&f);
}

static void no_kernel_anywhere_lists_every_type(void) {
  fx f;
  fx_init(&f, "FakeGPU:0 FakeCPU:0");
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Exp", "e", .in = {c}));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Cannot assign a device for operation e: No OpKernel was registered to support Op 'Exp' used by "
               "{{node e}}with these attrs: [T=DT_FLOAT]\nRegistered devices: [FakeCPU, FakeGPU]\nRegistered "
               "kernels:\n  <no registered kernels>\n" OFF);
  EXPECT_EQ(f.out[0].device, -1);
  fx_fini(&f);
  /* Kernels that exist for other dtypes are listed for every type, in priority order. */
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *a = add(&f, N("Const", "a", .dtype = TFC_DT_INT32));
  add(&f, N("MatMul", "m", .in = {a, a}));
  EXPECT_EQ(place(&f, 1), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Cannot assign a device for operation m: No OpKernel was registered to support Op 'MatMul' used by "
               "{{node m}}with these attrs: [T=DT_INT32, transpose_a=false, transpose_b=false]\nRegistered devices: "
               "[FakeCPU, FakeGPU]\nRegistered kernels:\n  device='FakeGPU'; T in [DT_FLOAT]\n"
               "  device='FakeCPU'; T in [DT_FLOAT, DT_DOUBLE]\n" ON);
  fx_fini(&f);
}

/* ---------------- many devices ---------------- */

static void many_devices_order_ids_numerically(void) {
  fx f;
  fx_init(&f, "FakeCPU:11 FakeCPU:10 FakeCPU:9 FakeCPU:8 FakeCPU:7 FakeCPU:6 FakeCPU:5 FakeCPU:4 FakeCPU:3 FakeCPU:2");
  add(&f, N("NoOp", "any"));
  add(&f, N("NoOp", "ten", .device = "/device:FakeCPU:10"));
  add(&f, N("NoOp", "partial", .device = "/device:FakeCPU"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "any"), "FakeCPU:2");
  EXPECT_STREQ(dev(&f, "ten"), "FakeCPU:10");
  EXPECT_STREQ(dev(&f, "partial"), "FakeCPU:2");
  fx_fini(&f);
  /* The error lists them sorted by name, as TF does. */
  fx_init(&f, "FakeCPU:2 FakeCPU:10");
  add(&f, N("NoOp", "n", .device = "/device:FakeCPU:3"));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s), "Cannot assign a device for operation n: Operation was explicitly assigned to "
                                     "/device:FakeCPU:3 but available devices are [ " PREFIX "FakeCPU:10, " PREFIX
                                     "FakeCPU:2 ]. Make sure the device specification refers to a valid device." OFF);
  fx_fini(&f);
}

/* ---------------- colocation ---------------- */

static void class_colocation_follows_the_named_node(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Identity", "read", .in = {c}, .loc = "v"));
  add(&f, N("Identity", "free", .in = {c}));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "v"), "FakeCPU:0");
  EXPECT_STREQ(dev(&f, "read"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "read"), "colocated with v via _class loc:@v");
  EXPECT_STREQ(dev(&f, "free"), "FakeGPU:0");
  /* c's consumers disagree, so it takes its own default. */
  EXPECT_STREQ(dev(&f, "c"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "c"), "default: first device with a kernel");
  fx_fini(&f);
}

static void class_colocation_merges_requests(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0 FakeGPU:1");
  add(&f, N("NoOp", "a", .device = "/device:FakeGPU"));
  add(&f, N("NoOp", "b", .device = "/device:*:1", .loc = "a"));
  add(&f, N("NoOp", "c", .loc = "a"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "a"), "FakeGPU:1");
  EXPECT_STREQ(why(&f, "a"), "explicit request /device:FakeGPU:1");
  EXPECT_STREQ(dev(&f, "b"), "FakeGPU:1");
  EXPECT_STREQ(why(&f, "b"), "colocated with a via _class loc:@a");
  EXPECT_STREQ(dev(&f, "c"), "FakeGPU:1");
  fx_fini(&f);
}

/* A loc:@ name no node has: the nodes naming it share a group (TF keys groups by name). */
static void class_naming_no_node_groups_its_users(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("NoOp", "x", .device = "/device:FakeCPU:0", .loc = "ghost"));
  add(&f, N("NoOp", "y", .loc = "ghost"));
  add(&f, N("NoOp", "z"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "y"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "y"), "colocated with x via _class loc:@ghost");
  EXPECT_STREQ(why(&f, "x"), "explicit request /device:FakeCPU:0");
  EXPECT_STREQ(dev(&f, "z"), "FakeGPU:0");
  fx_fini(&f);
}

static void class_conflicting_requests_fail_or_drop_under_soft(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("NoOp", "x", .device = "/device:FakeCPU:0"));
  add(&f, N("NoOp", "y", .device = "/device:FakeGPU:0", .loc = "x"));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s), "Cannot colocate nodes 'y' and 'x': Cannot merge devices with incompatible "
                                     "types: '/device:FakeGPU:0' and '/device:FakeCPU:0'" OFF);
  /* Soft merging drops the conflicting type and id: the group goes where it prefers. */
  place_ok(&f, 1);
  EXPECT_STREQ(dev(&f, "x"), "FakeGPU:0");
  EXPECT_STREQ(dev(&f, "y"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "x"), "default: first device with a kernel");
  EXPECT_STREQ(why(&f, "y"), "colocated with x via _class loc:@x");
  fx_fini(&f);
  /* Job conflicts stay errors under soft merging; soft placement then skips the join. */
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("NoOp", "x", .device = "/job:a/device:FakeCPU:0"));
  add(&f, N("NoOp", "y", .device = "/job:b", .loc = "x"));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s), "Cannot colocate nodes 'y' and 'x': Cannot merge devices with incompatible "
                                     "jobs: '/job:b' and '/job:a/device:FakeCPU:0'" OFF);
  EXPECT_EQ(place(&f, 1), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s), "Cannot assign a device for operation y: Operation was explicitly assigned to "
                                     "/job:b but available devices are [ " FAKE2 " ]. Make sure the device "
                                     "specification refers to a valid device." ON);
  fx_fini(&f);
}

static void class_without_common_type_fails_with_debug_info(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("VariableV2", "v"));
  add(&f, N("Placeholder", "p", .loc = "v"));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Cannot colocate nodes 'p' and 'v' because no device type supports both of those nodes and the other "
               "nodes colocated with them." DEBUG_INFO "\nPlaceholder: FakeGPU " MEMBERS "\n  p (Placeholder) \n" DEBUG_INFO
               "\nVariableV2: FakeCPU " MEMBERS "\n  v (VariableV2) \n" OFF);
  /* Soft placement skips the join: each goes where it can. */
  place_ok(&f, 1);
  EXPECT_STREQ(dev(&f, "v"), "FakeCPU:0");
  EXPECT_STREQ(dev(&f, "p"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "p"), "default: first device with a kernel");
  fx_fini(&f);
}

/* A request conflicting with the group's merged request: TF's "colocated with a group of
 * nodes that required incompatible device" text, with the group's members and types. */
static void group_request_without_kernel_names_the_group(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Identity", "read", .device = "/device:FakeGPU:0", .in = {c}, .loc = "v"));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Cannot assign a device for operation v: Could not satisfy explicit device specification '' because "
               "the node 'v' was colocated with a group of nodes that required incompatible device "
               "'/device:FakeGPU:0'. All available devices [" FAKE2 "]. " DEBUG_INFO
               "\nIdentity: FakeGPU FakeCPU \nVariableV2: FakeCPU " MEMBERS
               "\n  v (VariableV2) \n  read (Identity) /device:FakeGPU:0\n" OFF);
  place_ok(&f, 1);
  EXPECT_STREQ(dev(&f, "v"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "v"), "soft placement: no FakeGPU kernel for VariableV2");
  EXPECT_STREQ(dev(&f, "read"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "read"), "colocated with v via _class loc:@v");
  fx_fini(&f);
}

/* ---------------- reference edges ---------------- */

static void reference_edges_pull_assign_to_the_variable(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *v = add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c"));
  tfc_node *a = add(&f, N("Assign", "a", .in = {v, c}));
  add(&f, N("Identity", "use", .in = {a}));
  add(&f, N("Identity", "read", .in = {v}));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "v"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "v"), "default: first device with a kernel");
  EXPECT_STREQ(dev(&f, "a"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "a"), "colocated with v via reference edge");
  EXPECT_STREQ(dev(&f, "c"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "c"), "generator: follows its consumer a");
  /* Reading a ref as a value is no reference edge (Python adds _class for that). */
  EXPECT_STREQ(dev(&f, "use"), "FakeGPU:0");
  EXPECT_STREQ(dev(&f, "read"), "FakeGPU:0");
  fx_fini(&f);
}

static void reference_edge_overrides_the_destination_request(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeCPU:1 FakeGPU:0");
  tfc_node *v = add(&f, N("VariableV2", "v", .device = "/device:FakeCPU:1"));
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Assign", "a", .device = "/device:FakeGPU:0", .in = {v, c}));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "v"), "FakeCPU:1");
  EXPECT_STREQ(why(&f, "v"), "explicit request /device:FakeCPU:1");
  EXPECT_STREQ(dev(&f, "a"), "FakeCPU:1");
  EXPECT_STREQ(why(&f, "a"), "colocated with v via reference edge, overriding the request /device:FakeGPU:0");
  EXPECT_STREQ(dev(&f, "c"), "FakeCPU:1");
  fx_fini(&f);
}

static void reference_edge_request_on_destination_moves_the_group(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *v = add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Assign", "a", .device = "/device:FakeGPU:0", .in = {v, c}));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Cannot assign a device for operation v: Could not satisfy explicit device specification '' because "
               "the node 'v' was colocated with a group of nodes that required incompatible device "
               "'/device:FakeGPU:0'. All available devices [" FAKE2 "]. " DEBUG_INFO
               "\nAssign: FakeGPU FakeCPU \nVariableV2: FakeCPU " MEMBERS
               "\n  v (VariableV2) \n  a (Assign) /device:FakeGPU:0\n" OFF);
  place_ok(&f, 1);
  EXPECT_STREQ(dev(&f, "a"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "v"), "soft placement: no FakeGPU kernel for VariableV2");
  fx_fini(&f);
}

static void reference_edge_without_common_type_fails(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  /* Assign on the GPU only, for this test. */
  tfc_kernel_table_fini(&f.tables[T_FAKECPU]);
  tfc_kernel_table_init(&f.tables[T_FAKECPU], "FakeCPU");
  const tfc_kernel_def rows[] = {K(VariableV2), K(Const)};
  tfc_kernel_table_add(&f.tables[T_FAKECPU], rows, 2, &f.s);
  tfc_node *v = add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Assign", "a", .in = {v, c}));
  EXPECT_EQ(place(&f, 1), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Nodes were connected by a reference connection (requiring them to be on the same device), but the "
               "two nodes were assigned two different devices: Cannot colocate nodes 'v' and 'a' because no device "
               "type supports both of those nodes and the other nodes colocated with them." DEBUG_INFO
               "\nVariableV2: FakeCPU " MEMBERS "\n  v (VariableV2) \n" DEBUG_INFO "\nAssign: FakeGPU " MEMBERS
               "\n  a (Assign) \n" ON);
  fx_fini(&f);
}

/* ---------------- heuristics ---------------- */

static void generator_follows_consumers_on_one_device(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Identity", "i1", .device = "/device:FakeCPU:0", .in = {c}));
  add(&f, N("AddV2", "i2", .device = "/device:FakeCPU:0", .in = {c, c}));
  /* int32 Const has no FakeGPU kernel: it cannot follow a consumer there. */
  tfc_node *k = add(&f, N("Const", "k", .dtype = TFC_DT_INT32));
  add(&f, N("Identity", "onk", .device = "/device:FakeGPU:0", .in = {k}));
  add(&f, N("Const", "lonely"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "c"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "c"), "generator: follows its consumer i1");
  EXPECT_STREQ(dev(&f, "k"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "k"), "default: first device with a kernel");
  EXPECT_STREQ(dev(&f, "onk"), "FakeGPU:0");
  EXPECT_STREQ(dev(&f, "lonely"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "lonely"), "default: first device with a kernel");
  fx_fini(&f);
}

static void generator_with_split_consumers_keeps_its_default(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("Identity", "cpu", .device = "/device:FakeCPU:0", .in = {c}));
  /* A control consumer counts too, as TF's out_edges do. */
  add(&f, N("NoOp", "gpu", .device = "/device:FakeGPU:0", .ctrl = c));
  tfc_node *d = add(&f, N("Const", "d", .device = "/device:FakeGPU:0"));
  add(&f, N("Identity", "dc", .device = "/device:FakeCPU:0", .in = {d}));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "c"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "c"), "default: first device with a kernel");
  /* An explicit request bounds the heuristic: FakeCPU:0 is no candidate for d. */
  EXPECT_STREQ(dev(&f, "d"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "d"), "explicit request /device:FakeGPU:0");
  fx_fini(&f);
}

static void generator_in_a_group_takes_the_group_device(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c", .loc = "v"));
  add(&f, N("Identity", "g", .device = "/device:FakeGPU:0", .in = {c}));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "c"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "c"), "colocated with v via _class loc:@v");
  fx_fini(&f);
}

static void metadata_ops_follow_their_input(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *c = add(&f, N("Const", "c"));
  tfc_node *x = add(&f, N("Identity", "x", .device = "/device:FakeCPU:0", .in = {c}));
  add(&f, N("Shape", "shape", .in = {x}));
  add(&f, N("Size", "size", .in = {x}));
  add(&f, N("Rank", "rank", .in = {x}));
  add(&f, N("Shape", "pinned", .device = "/device:FakeGPU:0", .in = {x}));
  add(&f, N("Identity", "ident", .in = {x}));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "shape"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "shape"), "metadata: follows its input x");
  EXPECT_STREQ(dev(&f, "size"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "size"), "metadata: follows its input x");
  EXPECT_STREQ(dev(&f, "rank"), "FakeCPU:0");
  EXPECT_STREQ(dev(&f, "pinned"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "pinned"), "explicit request /device:FakeGPU:0");
  EXPECT_STREQ(dev(&f, "ident"), "FakeGPU:0");
  fx_fini(&f);
}

/* ---------------- incremental placement, stability ---------------- */

static void incremental_placement_keeps_earlier_devices(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  tfc_node *v = add(&f, N("VariableV2", "v"));
  tfc_node *c = add(&f, N("Const", "c"));
  add(&f, N("NoOp", "x", .device = "/device:FakeCPU:0"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "c"), "FakeGPU:0");
  const char *c_reason = why(&f, "c");
  /* New nodes: an Assign onto the old variable, a node joined to an old one, a free one. The
   * old generator c gets a CPU consumer but keeps its device. */
  add(&f, N("Assign", "a", .in = {v, c}));
  add(&f, N("NoOp", "y", .loc = "x"));
  add(&f, N("NoOp", "z"));
  place_ok(&f, 0);
  EXPECT_EQ(f.n_placed, 6);
  EXPECT_STREQ(dev(&f, "c"), "FakeGPU:0");
  EXPECT_TRUE(why(&f, "c") == c_reason);
  EXPECT_STREQ(dev(&f, "a"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "a"), "colocated with v via reference edge");
  EXPECT_STREQ(dev(&f, "y"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "y"), "colocated with x via _class loc:@x");
  EXPECT_STREQ(dev(&f, "z"), "FakeGPU:0");
  fx_fini(&f);
}

static void incremental_group_with_earlier_node_is_fixed(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("NoOp", "x"));
  add(&f, N("NoOp", "ghost_user", .loc = "later"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "x"), "FakeGPU:0");
  /* A node named "later" joins the group its name labels: it is fixed to ghost_user's device. */
  add(&f, N("NoOp", "later", .device = "/device:FakeGPU"));
  /* A CPU-only node joined to x cannot move it, even under soft placement. */
  add(&f, N("VariableV2", "w", .loc = "x"));
  EXPECT_EQ(place(&f, 1), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s),
               "Cannot assign a device for operation w: Could not satisfy explicit device specification '' because "
               "the node 'w' was colocated with a group of nodes that required incompatible device '" PREFIX
               "FakeGPU:0'. All available devices [" FAKE2 "]. " DEBUG_INFO
               "\nNoOp: FakeGPU FakeCPU \nVariableV2: FakeCPU " MEMBERS "\n  x (NoOp)  framework assigned device=" PREFIX
               "FakeGPU:0\n  w (VariableV2) \n" ON);
  /* Failure leaves the new slots empty and the old ones untouched. */
  EXPECT_EQ(f.out[2].device, -1);
  EXPECT_TRUE(f.out[2].reason == NULL);
  EXPECT_EQ(f.out[3].device, -1);
  EXPECT_STREQ(dev(&f, "x"), "FakeGPU:0");
  fx_fini(&f);

  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("NoOp", "ghost_user", .loc = "later"));
  place_ok(&f, 0);
  add(&f, N("NoOp", "later", .device = "/device:FakeCPU"));
  EXPECT_EQ(place(&f, 0), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&f.s), "Cannot colocate nodes 'ghost_user' and 'later': Cannot merge devices with "
                                     "incompatible types: '" PREFIX "FakeGPU:0' and '/device:FakeCPU:*'" OFF);
  /* Soft merging drops the conflicting type, then the earlier device fills it back in. */
  add(&f, N("NoOp", "other"));
  place_ok(&f, 1);
  EXPECT_STREQ(dev(&f, "later"), "FakeGPU:0");
  EXPECT_STREQ(why(&f, "later"), "colocated with ghost_user, placed earlier");
  EXPECT_STREQ(dev(&f, "other"), "FakeGPU:0");
  fx_fini(&f);
}

static void incremental_unnamed_join_says_placed_earlier(void) {
  fx f;
  fx_init(&f, "FakeCPU:0 FakeGPU:0");
  add(&f, N("NoOp", "early", .device = "/device:FakeCPU:0", .loc = "late"));
  place_ok(&f, 0);
  add(&f, N("NoOp", "late"));
  place_ok(&f, 0);
  EXPECT_STREQ(dev(&f, "late"), "FakeCPU:0");
  EXPECT_STREQ(why(&f, "late"), "colocated with early, placed earlier");
  fx_fini(&f);
}

static void placement_is_stable_across_calls(void) {
  const char *want[6];
  for (int round = 0; round < 3; round++) {
    fx f;
    fx_init(&f, round == 1 ? "FakeGPU:1 FakeCPU:0 FakeGPU:0" : "FakeCPU:0 FakeGPU:0 FakeGPU:1");
    tfc_node *v = add(&f, N("VariableV2", "v"));
    tfc_node *c = add(&f, N("Const", "c"));
    tfc_node *a = add(&f, N("Assign", "a", .in = {v, c}));
    tfc_node *k = add(&f, N("Const", "k"));
    tfc_node *m = add(&f, N("MatMul", "m", .in = {k, k}));
    add(&f, N("Shape", "s", .in = {m}));
    add(&f, N("AddV2", "sum", .device = "/device:FakeGPU", .in = {a, m}));
    place_ok(&f, 0);
    const char *names[6] = {"v", "c", "a", "m", "s", "sum"};
    const char *expect[6] = {"FakeCPU:0", "FakeCPU:0", "FakeCPU:0", "FakeGPU:0", "FakeGPU:0", "FakeGPU:0"};
    for (int i = 0; i < 6; i++) {
      EXPECT_STREQ(dev(&f, names[i]), expect[i]);
      if (round == 0) want[i] = strdup(why(&f, names[i]));
      else EXPECT_STREQ(why(&f, names[i]), want[i]);
    }
    fx_fini(&f);
  }
  EXPECT_STREQ(want[1], "generator: follows its consumer a");
  EXPECT_STREQ(want[4], "metadata: follows its input m");
  EXPECT_STREQ(want[5], "explicit request /device:FakeGPU:*");
  for (int i = 0; i < 6; i++) free((char *)want[i]);
}

static const tfc_test tests[] = {
    TFC_TEST(table_of_single_node_placements),
    TFC_TEST(kernel_type_constraints_choose_the_device),
    TFC_TEST(no_kernel_anywhere_lists_every_type),
    TFC_TEST(many_devices_order_ids_numerically),
    TFC_TEST(class_colocation_follows_the_named_node),
    TFC_TEST(class_colocation_merges_requests),
    TFC_TEST(class_naming_no_node_groups_its_users),
    TFC_TEST(class_conflicting_requests_fail_or_drop_under_soft),
    TFC_TEST(class_without_common_type_fails_with_debug_info),
    TFC_TEST(group_request_without_kernel_names_the_group),
    TFC_TEST(reference_edges_pull_assign_to_the_variable),
    TFC_TEST(reference_edge_overrides_the_destination_request),
    TFC_TEST(reference_edge_request_on_destination_moves_the_group),
    TFC_TEST(reference_edge_without_common_type_fails),
    TFC_TEST(generator_follows_consumers_on_one_device),
    TFC_TEST(generator_with_split_consumers_keeps_its_default),
    TFC_TEST(generator_in_a_group_takes_the_group_device),
    TFC_TEST(metadata_ops_follow_their_input),
    TFC_TEST(incremental_placement_keeps_earlier_devices),
    TFC_TEST(incremental_group_with_earlier_node_is_fixed),
    TFC_TEST(incremental_unnamed_join_says_placed_earlier),
    TFC_TEST(placement_is_stable_across_calls),
    {0},
};

TFC_TEST_MAIN(tests)
