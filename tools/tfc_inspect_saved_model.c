/*
 * tfc_inspect_saved_model — `tfc inspect DIR` on a SavedModel directory: what
 * `saved_model_cli show --dir DIR --all` prints of it, from saved_model.pb (or the text form
 * saved_model.pbtxt) alone (no load): per MetaGraphDef its tag-set and signatures (sorted by
 * key; each input and output with its dtype as DT_*, shape as "(-1, 2)" or "unknown_rank", and
 * tensor name; the method name),
 * then the ops of its graph and functions (sorted), and, as `tfc inspect MODEL.pb` does, the
 * ops this build does not know or has no kernel for. TF 2.x's "Concrete Functions" listing
 * (which needs the object graph) is not printed.
 *
 * Exit code 0 when the SavedModel file reads; 1 (after "tfc inspect: CODE: message") when not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "device/device.h"
#include "device/gpu/gpu_device.h"
#include "ops/opdef.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/types.pb-c.h"
#include "tfc/meta_graph.h"
#include "tfc/saved_model.h"
#include "tfc_tool.h"

static const char *dtype_enum_name(TF_DataType dt) {
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, (int)dt);
  return v ? v->name : "DT_INVALID";
}

/* One input or output the way saved_model_cli prints it, indented by `ind`. */
static void print_tensor(const TFC_SavedModel *sm, int mg, int sig, int is_output, int i, const char *ind) {
  TFC_SignatureTensor t;
  if (!TFC_SavedModelSignatureTensor(sm, mg, sig, is_output, i, &t)) return;
  printf("%s%s['%s'] tensor_info:\n", ind, is_output ? "outputs" : "inputs", t.key);
  printf("%s    dtype: %s\n", ind, dtype_enum_name(t.dtype));
  if (t.num_dims < 0) {
    printf("%s    shape: unknown_rank\n", ind);
  } else {
    printf("%s    shape: (", ind);
    for (int d = 0; d < t.num_dims; d++)
      printf("%s%lld", d ? ", " : "", (long long)TFC_SavedModelSignatureTensorDim(sm, mg, sig, is_output, i, d));
    printf(")\n");
  }
  if (t.kind == TFC_SIGNATURE_TENSOR_COO_SPARSE) printf("%s    name: %s (sparse values)\n", ind, t.name);
  else if (t.kind == TFC_SIGNATURE_TENSOR_COMPOSITE) printf("%s    composite tensor\n", ind);
  else printf("%s    name: %s\n", ind, t.name);
}

void tfc_tool_print_signature(const TFC_SavedModel *sm, int mg, int sig, const char *ind) {
  printf("%sThe given SavedModel SignatureDef contains the following input(s):\n", ind);
  char deeper[32];
  snprintf(deeper, sizeof deeper, "%s  ", ind);
  for (int i = 0; i < TFC_SavedModelSignatureNumTensors(sm, mg, sig, 0); i++) print_tensor(sm, mg, sig, 0, i, deeper);
  printf("%sThe given SavedModel SignatureDef contains the following output(s):\n", ind);
  for (int i = 0; i < TFC_SavedModelSignatureNumTensors(sm, mg, sig, 1); i++) print_tensor(sm, mg, sig, 1, i, deeper);
  printf("%sMethod name is: %s\n", ind, TFC_SavedModelSignatureMethod(sm, mg, sig));
}

void tfc_tool_print_tag_set(const TFC_SavedModel *sm, int mg, FILE *out) {
  for (int t = 0; t < TFC_SavedModelNumTags(sm, mg); t++) fprintf(out, "%s%s", t ? ", " : "", TFC_SavedModelTag(sm, mg, t));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int has_kernel(const tfc_kernel_table *t, int op) {
  for (int i = 0; t && i < t->n_defs; i++)
    if (t->defs[i].op == op) return 1;
  return 0;
}

/* The op types of the graph and its functions, sorted, then those this build lacks. */
static void print_ops(const TFC_SavedModel *sm, int mg) {
  size_t len = 0;
  const void *b = TFC_SavedModelMetaGraphBytes(sm, mg, &len);
  TF_Status *s = TF_NewStatus();
  TFC_MetaGraph *m = TFC_NewMetaGraphFromBuffer(b, len, s);
  Tensorflow__GraphDef *gd = NULL;
  if (m) {
    size_t gl = 0;
    const void *gb = TFC_MetaGraphGraphDef(m, &gl);
    gd = tensorflow__graph_def__unpack(NULL, gl, gb);
  }
  if (!gd) {
    printf("the MetaGraphDef's graph does not decode\n");
    TFC_DeleteMetaGraph(m);
    TF_DeleteStatus(s);
    return;
  }
  size_t n = gd->n_node, k = 0;
  if (gd->library)
    for (size_t f = 0; f < gd->library->n_function; f++) n += gd->library->function[f]->n_node_def;
  const char **ops = calloc(n + 1, sizeof *ops);
  for (size_t i = 0; ops && i < gd->n_node; i++) ops[k++] = gd->node[i]->op;
  if (gd->library)
    for (size_t f = 0; ops && f < gd->library->n_function; f++)
      for (size_t i = 0; i < gd->library->function[f]->n_node_def; i++) ops[k++] = gd->library->function[f]->node_def[i]->op;
  if (ops) qsort(ops, k, sizeof *ops, cmp_str);
  printf("The MetaGraph with tag set [");
  for (int t = 0; t < TFC_SavedModelNumTags(sm, mg); t++) printf("%s'%s'", t ? ", " : "", TFC_SavedModelTag(sm, mg, t));
  printf("] contains the following ops: {");
  for (size_t i = 0, first = 1; ops && i < k; i++) {
    if (i && !strcmp(ops[i], ops[i - 1])) continue;
    printf("%s'%s'", first ? "" : ", ", ops[i]);
    first = 0;
  }
  printf("}\n");
  tfc_status ks;
  tfc_status_init(&ks);
  const tfc_kernel_table *cpu = tfc_cpu_kernel_table(&ks), *gpu = tfc_gpu_kernel_table();
  tfc_status_fini(&ks);
  int lacking = 0;
  for (size_t i = 0; ops && i < k; i++) {
    if (i && !strcmp(ops[i], ops[i - 1])) continue;
    const tfc_opdef *op = tfc_op_lookup(ops[i]);
    if (op && (has_kernel(cpu, op->id) || has_kernel(gpu, op->id))) continue;
    printf("%s %s (%s)", lacking++ ? "," : "ops without a kernel here:", ops[i], op ? "no kernel" : "unknown op");
  }
  printf(lacking ? "\n" : "every op has a kernel here\n");
  free(ops);
  protobuf_c_message_free_unpacked(&gd->base, NULL);
  TFC_DeleteMetaGraph(m);
  TF_DeleteStatus(s);
}

int tfc_tool_inspect_saved_model(const char *dir) {
  TF_Status *s = TF_NewStatus();
  TFC_SavedModel *sm = TFC_ReadSavedModel(dir, s);
  if (!sm) {
    fprintf(stderr, "tfc inspect: %s: %s\n", tfc_code_name(TF_GetCode(s)), TF_Message(s));
    TF_DeleteStatus(s);
    return 1;
  }
  for (int mg = 0; mg < TFC_SavedModelNumMetaGraphs(sm); mg++) {
    printf("\nMetaGraphDef with tag-set: '");
    tfc_tool_print_tag_set(sm, mg, stdout);
    printf("' contains the following SignatureDefs:\n");
    for (int k = 0; k < TFC_SavedModelNumSignatures(sm, mg); k++) {
      printf("\nsignature_def['%s']:\n", TFC_SavedModelSignatureKey(sm, mg, k));
      tfc_tool_print_signature(sm, mg, k, "  ");
    }
    print_ops(sm, mg);
  }
  TFC_DeleteSavedModel(sm);
  TF_DeleteStatus(s);
  return 0;
}
