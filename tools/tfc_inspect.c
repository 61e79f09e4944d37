/*
 * tfc_inspect — `tfc inspect MODEL.pb`: every node of a GraphDef, and what this build lacks to
 * run it. `tfc inspect DIR` on a SavedModel directory: its tag-sets and signatures
 * (tfc_inspect_saved_model.c).
 *
 * The listing comes from the GraphDef itself (decoded with the generated protobuf-c code), not
 * from an imported graph, so a graph that cannot be imported here (an op tfc does not know, a
 * kernel it lacks) still lists whole: that is when a user needs the list most. Each node
 * whose op is unknown to tfc's op table, or has no kernel in this build's kernel tables (CPU,
 * and GPU where built), is marked, and a last line names those ops. When the graph also
 * imports, each node shows its attrs with defaults filled and its outputs' inferred dtypes and
 * shapes; otherwise the attrs as written and the import's error.
 *
 *   c = MatMul(a, b)
 *       T: float
 *       ...
 *       -> c:0 float [2,2]
 *   3 nodes
 *   every op has a kernel here
 *
 * Exit code 0 whenever the GraphDef decodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capi/capi_internal.h"
#include "device/device.h"
#include "device/gpu/gpu_device.h"
#include "ops/attr.h"
#include "ops/opdef.h"
#include "proto/attr_codec.h"
#include "tensorflow/graph.pb-c.h"
#include "tfc_tool.h"

enum need { NEED_NOTHING = 0, NEED_KERNEL = 1, NEED_OP = 2 };

static int has_kernel(const tfc_kernel_table *t, int op) {
  for (int i = 0; t && i < t->n_defs; i++)
    if (t->defs[i].op == op) return 1;
  return 0;
}

/* What the op named `name` lacks in this build. */
static enum need op_need(const char *name, const tfc_kernel_table *cpu, const tfc_kernel_table *gpu) {
  const tfc_opdef *op = tfc_op_lookup(name);
  if (!op) return NEED_OP;
  return has_kernel(cpu, op->id) || has_kernel(gpu, op->id) ? NEED_NOTHING : NEED_KERNEL;
}

static void print_attrs_as_written(const Tensorflow__NodeDef *nd) {
  for (size_t i = 0; i < nd->n_attr; i++) {
    tfc_attr_value v;
    tfc_status s;
    tfc_status_init(&s);
    char text[512] = "<undecodable>";
    if (nd->attr[i]->value && tfc_attr_from_proto(nd->attr[i]->value, &v, &s) == TFC_OK) {
      tfc_attr_value_format(&v, text, sizeof text);
      tfc_attr_value_fini(&v);
    }
    tfc_status_fini(&s);
    printf("    %s: %s\n", nd->attr[i]->key, text);
  }
}

static void print_imported(const tfc_node *n) {
  for (int i = 0; i < n->n_attrs; i++) {
    char v[512];
    tfc_attr_value_format(&n->attrs[i].value, v, sizeof v);
    printf("    %s: %s\n", n->attrs[i].name, v);
  }
  for (int i = 0; i < n->n_outputs; i++) {
    char sh[TFC_SHAPE_STR_MAX];
    printf("    -> %s:%d %s %s\n", n->name, i, tfc_dtype_name(n->output_types[i]),
           tfc_shape_str(&n->output_shapes[i], sh, sizeof sh));
  }
}

/* The ops lacking something, each once, in first-seen order. */
typedef struct lack {
  const char *op;
  enum need need;
  int n_nodes;
} lack;

int tfc_tool_inspect(int argc, char **argv) {
  if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    printf("usage: tfc inspect MODEL.pb | SAVED_MODEL_DIR\n"
           "Lists every node of the GraphDef (op, inputs, device, attrs, outputs) and marks the\n"
           "ops this build of tfc does not know or has no kernel for. On a SavedModel directory:\n"
           "its tag-sets and signatures (as `saved_model_cli show --all`), its ops and those\n"
           "lacking here.\n");
    return 0;
  }
  if (argc != 1 || argv[0][0] == '-') {
    if (argc == 0) fprintf(stderr, "tfc inspect: no MODEL.pb given\n");
    else if (argv[0][0] == '-') fprintf(stderr, "tfc inspect: unknown option '%s'\n", argv[0]);
    else fprintf(stderr, "tfc inspect: unexpected argument '%s' (one MODEL.pb only)\n", argv[1]);
    fprintf(stderr, "usage: tfc inspect MODEL.pb | SAVED_MODEL_DIR\n");
    return 2;
  }
  const char *path = argv[0];
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return tfc_tool_inspect_saved_model(path);
  char *bytes;
  size_t len;
  if (tfc_tool_read_file("tfc inspect", path, &bytes, &len)) return 1;
  Tensorflow__GraphDef *gd = tensorflow__graph_def__unpack(NULL, len, (const uint8_t *)bytes);
  if (!gd) {
    free(bytes);
    fprintf(stderr, "tfc inspect: INVALID_ARGUMENT: %s: not a GraphDef (the protobuf does not decode)\n", path);
    return 1;
  }

  /* Import too, for the inferred outputs; a failure is reported, not fatal. */
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Buffer *buf = TF_NewBufferFromString(bytes, len);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, o, s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(buf);
  free(bytes);
  int imported = TF_GetCode(s) == TF_OK;

  tfc_status ks;
  tfc_status_init(&ks);
  const tfc_kernel_table *cpu = tfc_cpu_kernel_table(&ks), *gpu = tfc_gpu_kernel_table();
  tfc_status_fini(&ks);

  lack *lacks = calloc(gd->n_node + 1, sizeof *lacks);
  int n_lacks = 0;
  for (size_t i = 0; i < gd->n_node; i++) {
    const Tensorflow__NodeDef *nd = gd->node[i];
    printf("%s = %s(", nd->name, nd->op);
    for (size_t k = 0; k < nd->n_input; k++) printf("%s%s", k ? ", " : "", nd->input[k]);
    printf(")");
    if (nd->device && nd->device[0]) printf(" device=%s", nd->device);
    enum need need = op_need(nd->op, cpu, gpu);
    if (need == NEED_OP) printf("  # unknown op: tfc has no op named %s", nd->op);
    if (need == NEED_KERNEL) printf("  # no kernel: tfc knows %s but cannot run it", nd->op);
    printf("\n");
    TF_Operation *op = imported ? TF_GraphOperationByName(g, nd->name) : NULL;
    if (op) print_imported(tfc_capi_node(op));
    else print_attrs_as_written(nd);
    if (need == NEED_NOTHING || !lacks) continue;
    int k = 0;
    while (k < n_lacks && strcmp(lacks[k].op, nd->op)) k++;
    if (k == n_lacks) lacks[n_lacks++] = (lack){nd->op, need, 0};
    lacks[k].n_nodes++;
  }
  printf("%zu node%s\n", gd->n_node, gd->n_node == 1 ? "" : "s");
  if (n_lacks == 0) {
    printf("every op has a kernel here\n");
  } else {
    printf("ops without a kernel here:");
    for (int k = 0; k < n_lacks; k++)
      printf("%s %s (%s, %d node%s)", k ? "," : "", lacks[k].op, lacks[k].need == NEED_OP ? "unknown op" : "no kernel",
             lacks[k].n_nodes, lacks[k].n_nodes == 1 ? "" : "s");
    printf("\n");
  }
  if (!imported) printf("the graph does not import here: %s: %s\n", tfc_code_name(TF_GetCode(s)), TF_Message(s));
  free(lacks);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  protobuf_c_message_free_unpacked(&gd->base, NULL);
  return 0;
}
