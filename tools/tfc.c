/*
 * tfc — the command-line tool.
 *
 *   tfc inspect model.pb                 nodes with op, inputs, requested device and attrs
 *   tfc run model.pb [--feed name[:k]=VALUE]... --fetch name[:k] [--fetch ...] [--target name]...
 *           [--cpus N] [--soft-placement] [--log-placement] [--explain-placement]
 *           [--timeout-ms MS]
 *   tfc data fashion-mnist --out DIR     Debian's Fashion-MNIST as TFRecord files (tfc_data.c)
 *   tfc server --cluster SPEC --job NAME [--task N]   one task of a cluster (tfc_server.c)
 *
 * --cpus N gives the session N CPU devices (ConfigProto device_count); --log-placement prints
 * TF's placement log; --explain-placement adds why each node went where it did.
 *
 * VALUE is a number list in numpy-like brackets, e.g. 3, [1,2,3] or [[1,2],[3,4]]; its shape
 * comes from the brackets and its dtype from the fed output. Results print numpy-style.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "ops/attr.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"
#include "tfc_tool.h"

static int usage(void) {
  fprintf(stderr,
          "usage:\n"
          "  tfc inspect MODEL.pb\n"
          "  tfc run MODEL.pb [--feed NAME[:K]=VALUE]... --fetch NAME[:K]... [--target NAME]...\n"
          "          [--cpus N] [--soft-placement] [--log-placement] [--explain-placement]\n"
          "          [--timeout-ms MS]\n"
          "  tfc data fashion-mnist --out DIR [--from IDX_DIR] [--limit N]\n"
          "  tfc server --cluster SPEC --job NAME [--task N] [--port P] [--cpus N] | --def SERVERDEF.pb\n");
  return 2;
}

static TF_Graph *load(const char *path, TF_Status *s) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tfc: cannot open %s\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = malloc(len > 0 ? (size_t)len : 1);
  if (!bytes || fread(bytes, 1, (size_t)len, f) != (size_t)len) {
    fclose(f);
    free(bytes);
    fprintf(stderr, "tfc: cannot read %s\n", path);
    return NULL;
  }
  fclose(f);
  TF_Buffer *buf = TF_NewBufferFromString(bytes, (size_t)len);
  free(bytes);
  TF_Graph *g = TF_NewGraph();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, o, s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(buf);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "tfc: %s: %s\n", path, TF_Message(s));
    TF_DeleteGraph(g);
    return NULL;
  }
  return g;
}

static int inspect(const char *path) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = load(path, s);
  if (!g) return 1;
  size_t pos = 0;
  TF_Operation *op;
  int count = 0;
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL) {
    const tfc_node *n = tfc_capi_node(op);
    printf("%s = %s(", n->name, n->op->name);
    for (int i = 0; i < n->n_inputs; i++) {
      if (n->inputs[i].index) printf("%s%s:%d", i ? ", " : "", n->inputs[i].node->name, n->inputs[i].index);
      else printf("%s%s", i ? ", " : "", n->inputs[i].node->name);
    }
    for (int i = 0; i < n->n_control_inputs; i++)
      printf("%s^%s", n->n_inputs + i ? ", " : "", n->control_inputs[i]->name);
    printf(")");
    if (n->device[0]) printf(" device=%s", n->device);
    printf("\n");
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
    count++;
  }
  printf("%d nodes\n", count);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}

static int parse_output(TF_Graph *g, const char *spec, TF_Output *out) {
  char name[512];
  snprintf(name, sizeof name, "%s", spec);
  int index = 0;
  char *colon = strrchr(name, ':');
  if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
    index = atoi(colon + 1);
    *colon = '\0';
  }
  out->oper = TF_GraphOperationByName(g, name);
  out->index = index;
  if (!out->oper) {
    fprintf(stderr, "tfc: no node named '%s' in the graph\n", name);
    return -1;
  }
  if (index >= TF_OperationNumOutputs(out->oper)) {
    fprintf(stderr, "tfc: node '%s' has %d outputs\n", name, TF_OperationNumOutputs(out->oper));
    return -1;
  }
  return 0;
}

/* Parses nested brackets of numbers into values + dims. */
static int parse_value(const char *text, double **vals, int64_t *n_vals, int64_t *dims, int *ndims) {
  int depth = 0, max_depth = 0;
  int64_t count[TFC_MAX_DIMS] = {0};
  int64_t cap = 16;
  *vals = malloc(sizeof(double) * (size_t)cap);
  *n_vals = 0;
  for (int i = 0; i < TFC_MAX_DIMS; i++) dims[i] = -1;
  const char *p = text;
  while (*p) {
    if (isspace((unsigned char)*p) || *p == ',') {
      p++;
    } else if (*p == '[') {
      if (depth >= TFC_MAX_DIMS) return -1;
      count[depth] = 0;
      depth++;
      if (depth > max_depth) max_depth = depth;
      p++;
    } else if (*p == ']') {
      if (depth == 0) return -1;
      depth--;
      if (dims[depth] >= 0 && dims[depth] != count[depth]) return -1;
      dims[depth] = count[depth];
      if (depth > 0) count[depth - 1]++;
      p++;
    } else {
      char *end;
      double v = strtod(p, &end);
      if (end == p) {
        if (strncmp(p, "true", 4) == 0) { v = 1; end = (char *)p + 4; }
        else if (strncmp(p, "false", 5) == 0) { v = 0; end = (char *)p + 5; }
        else return -1;
      }
      if (*n_vals == cap) {
        cap *= 2;
        *vals = realloc(*vals, sizeof(double) * (size_t)cap);
      }
      (*vals)[(*n_vals)++] = v;
      if (depth > 0) count[depth - 1]++;
      p = end;
    }
  }
  if (depth != 0) return -1;
  *ndims = max_depth;
  return 0;
}

static TF_Tensor *make_tensor(TF_DataType dt, const double *v, int64_t n, const int64_t *dims, int ndims) {
  size_t es = TF_DataTypeSize(dt);
  if (es == 0) return NULL;
  TF_Tensor *t = TF_AllocateTensor(dt, dims, ndims, es * (size_t)n);
  void *d = TF_TensorData(t);
  for (int64_t i = 0; i < n; i++) switch (dt) {
      case TF_FLOAT: ((float *)d)[i] = (float)v[i]; break;
      case TF_DOUBLE: ((double *)d)[i] = v[i]; break;
      case TF_INT32: ((int32_t *)d)[i] = (int32_t)v[i]; break;
      case TF_INT64: ((int64_t *)d)[i] = (int64_t)v[i]; break;
      case TF_UINT8: ((uint8_t *)d)[i] = (uint8_t)v[i]; break;
      case TF_BOOL: ((uint8_t *)d)[i] = v[i] != 0; break;
      default: TF_DeleteTensor(t); return NULL;
    }
  return t;
}

static void print_rec(const TF_Tensor *t, int dim, int64_t *offset) {
  int nd = TF_NumDims(t);
  if (dim == nd) {
    const void *d = TF_TensorData(t);
    int64_t i = (*offset)++;
    switch (TF_TensorType(t)) {
      case TF_FLOAT: printf("%g", (double)((const float *)d)[i]); break;
      case TF_DOUBLE: printf("%g", ((const double *)d)[i]); break;
      case TF_INT32: printf("%d", ((const int32_t *)d)[i]); break;
      case TF_INT64: printf("%lld", (long long)((const int64_t *)d)[i]); break;
      case TF_UINT8: printf("%u", ((const uint8_t *)d)[i]); break;
      case TF_BOOL: printf("%s", ((const uint8_t *)d)[i] ? "True" : "False"); break;
      default: printf("?"); break;
    }
    return;
  }
  printf("[");
  for (int64_t i = 0; i < TF_Dim(t, dim); i++) {
    if (i) printf(dim == nd - 1 ? " " : "\n%*s", dim == nd - 1 ? 0 : dim + 1, "");
    print_rec(t, dim + 1, offset);
  }
  printf("]");
}

static int run(int argc, char **argv) {
  const char *path = argv[0];
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = load(path, s);
  if (!g) return 1;
  TF_Output feeds[64], fetches[64];
  TF_Tensor *feed_vals[64];
  TF_Operation *targets[64];
  int nf = 0, no = 0, nt = 0, rc = 1;
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--feed") == 0 && i + 1 < argc && nf < 64) {
      char *spec = argv[++i];
      char *eq = strchr(spec, '=');
      if (!eq) { fprintf(stderr, "tfc: --feed wants NAME=VALUE\n"); goto out; }
      *eq = '\0';
      if (parse_output(g, spec, &feeds[nf])) goto out;
      double *v;
      int64_t n, dims[TFC_MAX_DIMS];
      int nd;
      if (parse_value(eq + 1, &v, &n, dims, &nd)) {
        fprintf(stderr, "tfc: cannot parse value for %s: %s\n", spec, eq + 1);
        free(v);
        goto out;
      }
      feed_vals[nf] = make_tensor(TF_OperationOutputType(feeds[nf]), v, n, dims, nd);
      free(v);
      if (!feed_vals[nf]) { fprintf(stderr, "tfc: cannot feed %s: unsupported dtype\n", spec); goto out; }
      nf++;
    } else if (strcmp(argv[i], "--fetch") == 0 && i + 1 < argc && no < 64) {
      if (parse_output(g, argv[++i], &fetches[no])) goto out;
      no++;
    } else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc && nt < 64) {
      targets[nt] = TF_GraphOperationByName(g, argv[++i]);
      if (!targets[nt]) { fprintf(stderr, "tfc: no node named '%s'\n", argv[i]); goto out; }
      nt++;
    } else if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) {
      TFC_SetDeviceCount(so, "CPU", atoi(argv[++i]), s);
      if (TF_GetCode(s) != TF_OK) { fprintf(stderr, "tfc: --cpus: %s\n", TF_Message(s)); goto out; }
    } else if (strcmp(argv[i], "--timeout-ms") == 0 && i + 1 < argc) {
      TFC_SetOperationTimeout(so, atoll(argv[++i]));
    } else if (strcmp(argv[i], "--soft-placement") == 0) {
      TFC_SetAllowSoftPlacement(so, 1);
    } else if (strcmp(argv[i], "--log-placement") == 0) {
      TFC_SetLogDevicePlacement(so, 1);
    } else if (strcmp(argv[i], "--explain-placement") == 0) {
      TFC_SetLogPlacementReasons(so, 1);
    } else {
      usage();
      goto out;
    }
  }
  sess = TF_NewSession(g, so, s);
  TF_Tensor *outs[64] = {0};
  if (TF_GetCode(s) == TF_OK)
    TF_SessionRun(sess, NULL, feeds, feed_vals, nf, fetches, outs, no, (const TF_Operation *const *)targets, nt, NULL, s);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "tfc: %s\n", TF_Message(s));
  } else {
    for (int i = 0; i < no; i++) {
      printf("%s:%d = ", TF_OperationName(fetches[i].oper), fetches[i].index);
      int64_t off = 0;
      print_rec(outs[i], 0, &off);
      printf("\n");
      TF_DeleteTensor(outs[i]);
    }
    rc = 0;
  }
out:
  if (sess) TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  for (int i = 0; i < nf; i++) TF_DeleteTensor(feed_vals[i]);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "inspect") == 0) return inspect(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "run") == 0) return run(argc - 2, argv + 2);
  if (argc >= 3 && strcmp(argv[1], "data") == 0) return tfc_tool_data(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "server") == 0) return tfc_tool_server(argc - 2, argv + 2);
  return usage();
}
