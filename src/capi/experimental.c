/*
 * experimental — the rest of c_api_experimental.h: the XLA switches (tfc has no XLA: the
 * values are kept so the getters answer what was set, and nothing else changes),
 * TF_CreateConfig and TF_CreateRunOptions (the bytes TF 1.15 makes), TF_GraphDebugString
 * (the GraphDef's text, proto/pb_text.h), the named-tensor queue helpers, TF_InitMain,
 * TF_PickUnusedPortOrDie, the TF_CheckpointReader functions over tfc's checkpoint reader
 * (include/tfc/saver.h) and the attr builder that asks the kernel tables whether an op with
 * given type attrs can run on a device type.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "capi/capi_internal.h"
#include "device/registry.h"
#include "ops/opdef.h"
#include "proto/pb_text.h"
#include "proto/pb_util.h"
#include "tensorflow/c/c_api_experimental.h"
#include "tensorflow/config.pb-c.h"
#include "tensorflow/graph.pb-c.h"
#include "tfc/saver.h"

/* ---------------- XLA switches: kept, not acted on ---------------- */

static unsigned char xla_lazy = 1, xla_cpu_global_jit, xla_const_folding_disabled;

TFC_EXPORT void TF_EnableXLACompilation(TF_SessionOptions *options, unsigned char enable) {
  (void)options;
  (void)enable;
}
TFC_EXPORT unsigned char TF_SetXlaEnableLazyCompilation(unsigned char enable) {
  unsigned char old = xla_lazy;
  xla_lazy = enable;
  return old;
}
TFC_EXPORT unsigned char TF_SetTfXlaCpuGlobalJit(unsigned char enable) {
  unsigned char old = xla_cpu_global_jit;
  xla_cpu_global_jit = enable;
  return old;
}
TFC_EXPORT void TF_SetXlaAutoJitMode(const char *mode) { (void)mode; }
TFC_EXPORT unsigned char TF_GetXlaConstantFoldingDisabled(void) { return xla_const_folding_disabled; }
TFC_EXPORT void TF_SetXlaConstantFoldingDisabled(unsigned char should_enable) {
  xla_const_folding_disabled = should_enable;
}
TFC_EXPORT void TF_SetXlaMinClusterSize(int size) { (void)size; }

/* ---------------- config and run options ---------------- */

static TF_Buffer *packed(const ProtobufCMessage *m) {
  tfc_status s;
  tfc_status_init(&s);
  void *data = NULL;
  size_t len = 0;
  TF_Buffer *b = NULL;
  if (tfc_pb_pack(m, &data, &len, &s) == TFC_OK && (b = TF_NewBuffer())) {
    if (tfc_capi_fill_buffer(b, data, len, &s)) {
      TF_DeleteBuffer(b);
      b = NULL;
    }
  } else {
    free(data);
  }
  tfc_status_fini(&s);
  return b;
}

/* TF 1.15's: device_count {CPU: n}, inter_op_parallelism_threads 1, gpu_options with
 * allow_growth, and the JIT level ON_1 or OFF. */
TFC_EXPORT TF_Buffer *TF_CreateConfig(unsigned char enable_xla_compilation, unsigned char gpu_memory_allow_growth,
                                      unsigned int num_cpu_devices) {
  Tensorflow__ConfigProto c = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry cpu = TENSORFLOW__CONFIG_PROTO__DEVICE_COUNT_ENTRY__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry *counts[1] = {&cpu};
  Tensorflow__GPUOptions gpu = TENSORFLOW__GPUOPTIONS__INIT;
  Tensorflow__GraphOptions graph = TENSORFLOW__GRAPH_OPTIONS__INIT;
  Tensorflow__OptimizerOptions opt = TENSORFLOW__OPTIMIZER_OPTIONS__INIT;
  cpu.key = (char *)"CPU";
  cpu.value = (int32_t)num_cpu_devices;
  c.n_device_count = 1;
  c.device_count = counts;
  c.inter_op_parallelism_threads = 1;
  gpu.allow_growth = gpu_memory_allow_growth != 0;
  c.gpu_options = &gpu;
  opt.global_jit_level = enable_xla_compilation ? TENSORFLOW__OPTIMIZER_OPTIONS__GLOBAL_JIT_LEVEL__ON_1
                                                : TENSORFLOW__OPTIMIZER_OPTIONS__GLOBAL_JIT_LEVEL__OFF;
  graph.optimizer_options = &opt;
  c.graph_options = &graph;
  return packed(&c.base);
}

TFC_EXPORT TF_Buffer *TF_CreateRunOptions(unsigned char enable_full_trace) {
  Tensorflow__RunOptions r = TENSORFLOW__RUN_OPTIONS__INIT;
  if (enable_full_trace) r.trace_level = TENSORFLOW__RUN_OPTIONS__TRACE_LEVEL__FULL_TRACE;
  return packed(&r.base);
}

/* ---------------- debug string ---------------- */

TFC_EXPORT const char *TF_GraphDebugString(TF_Graph *graph, size_t *len) {
  if (len) *len = 0;
  if (!graph) return NULL;
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *st = TF_NewStatus();
  char *text = NULL;
  if (b && st) {
    TF_GraphToGraphDef(graph, b, st);
    Tensorflow__GraphDef *gd =
        TF_GetCode(st) == TF_OK ? tensorflow__graph_def__unpack(NULL, b->length, b->data) : NULL;
    if (gd) {
      tfc_strbuf out;
      tfc_strbuf_init(&out);
      tfc_pb_text_write(&gd->base, &out);
      tfc_strbuf_str(&out);
      if (tfc_strbuf_ok(&out)) {
        if (len) *len = out.len;
        text = tfc_strbuf_take(&out);
      }
      tfc_strbuf_fini(&out);
      tensorflow__graph_def__free_unpacked(gd, NULL);
    }
  }
  TF_DeleteStatus(st);
  TF_DeleteBuffer(b);
  return text;
}

/* ---------------- named tensor queues ---------------- */

TFC_EXPORT void TF_EnqueueNamedTensor(TF_Session *session, int tensor_id, TF_Tensor *tensor, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  TF_Graph *g = tfc_capi_session_graph(session);
  char name[64];
  snprintf(name, sizeof name, "fifo_queue_enqueue_%d", tensor_id);
  TF_Operation *enqueue = g ? TF_GraphOperationByName(g, name) : NULL;
  if (!enqueue) {
    tfc_status_set(s, TFC_INTERNAL, "Unable to find the enqueue node in the TF graph.");
    return;
  }
  snprintf(name, sizeof name, "arg_tensor_enqueue_%d", tensor_id);
  TF_Operation *arg = TF_GraphOperationByName(g, name);
  if (!arg) {
    tfc_status_set(s, TFC_INTERNAL, "Unable to find the placeholder node as input to enqueue in the TF graph.");
    return;
  }
  TF_Output in = {arg, 0};
  const TF_Operation *targets[1] = {enqueue};
  TF_SessionRun(session, NULL, &in, &tensor, 1, NULL, NULL, 0, targets, 1, NULL, status);
}

TFC_EXPORT TF_Tensor *TF_DequeueNamedTensor(TF_Session *session, int tensor_id, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  TF_Graph *g = tfc_capi_session_graph(session);
  char name[64];
  snprintf(name, sizeof name, "fifo_queue_dequeue_%d", tensor_id);
  TF_Operation *dequeue = g ? TF_GraphOperationByName(g, name) : NULL;
  if (!dequeue) {
    tfc_status_set(s, TFC_INTERNAL, "Unable to find the dequeue node in the TF graph.");
    return NULL;
  }
  TF_Output out = {dequeue, 0};
  TF_Tensor *t = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, &out, &t, 1, NULL, 0, NULL, status);
  return t;
}

/* ---------------- process helpers ---------------- */

/* TF's InitMain parses flags; tfc has none to parse, so the arguments stay as they are. */
TFC_EXPORT void TF_InitMain(const char *usage, int *argc, char ***argv) {
  (void)usage;
  (void)argc;
  (void)argv;
}

TFC_EXPORT int TF_PickUnusedPortOrDie(void) {
  for (int attempt = 0; attempt < 16; attempt++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) continue;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &n) == 0)
      port = ntohs(a.sin_port);
    close(fd);
    if (port > 0) return port;
  }
  /* "OrDie", as TF's: a test helper with no way to report failure. */
  fprintf(stderr, "TF_PickUnusedPortOrDie: no unused port\n");
  abort();
}

/* ---------------- checkpoint reader (over TFC_CheckpointReader) ---------------- */

static TFC_CheckpointReader *ckr(TF_CheckpointReader *r) { return (TFC_CheckpointReader *)r; }

TFC_EXPORT TF_CheckpointReader *TF_NewCheckpointReader(const char *filename, TF_Status *status) {
  return (TF_CheckpointReader *)TFC_NewCheckpointReader(filename, status);
}

TFC_EXPORT void TF_DeleteCheckpointReader(TF_CheckpointReader *reader) { TFC_DeleteCheckpointReader(ckr(reader)); }

TFC_EXPORT int TF_CheckpointReaderSize(TF_CheckpointReader *reader) {
  return TFC_CheckpointReaderNumTensors(ckr(reader));
}

TFC_EXPORT const char *TF_CheckpointReaderGetVariable(TF_CheckpointReader *reader, int index) {
  return TFC_CheckpointReaderTensorName(ckr(reader), index);
}

/* The saved dtype and rank of name, or -1 when absent. */
static int info(TF_CheckpointReader *reader, const char *name, TF_DataType *dt, int64_t *dims, int max_dims,
                TF_Status *status) {
  TF_Status *own = status ? NULL : TF_NewStatus();
  int rank = TFC_CheckpointReaderTensorInfo(ckr(reader), name, dt, dims, max_dims, status ? status : own);
  TF_DeleteStatus(own);
  return rank;
}

TFC_EXPORT int TF_CheckpointReaderHasTensor(TF_CheckpointReader *reader, const char *name) {
  TF_DataType dt;
  return info(reader, name, &dt, NULL, 0, NULL) >= 0;
}

TFC_EXPORT TF_DataType TF_CheckpointReaderGetVariableDataType(TF_CheckpointReader *reader, const char *name) {
  TF_DataType dt = (TF_DataType)0;
  return info(reader, name, &dt, NULL, 0, NULL) >= 0 ? dt : (TF_DataType)0;
}

TFC_EXPORT int TF_CheckpointReaderGetVariableNumDims(TF_CheckpointReader *reader, const char *name) {
  TF_DataType dt;
  int rank = info(reader, name, &dt, NULL, 0, NULL);
  return rank < 0 ? 0 : rank;
}

TFC_EXPORT void TF_CheckpointReaderGetVariableShape(TF_CheckpointReader *reader, const char *name, int64_t *dims,
                                                    int num_dims, TF_Status *status) {
  TF_DataType dt;
  info(reader, name, &dt, dims, num_dims, status);
}

TFC_EXPORT TF_Tensor *TF_CheckpointReaderGetTensor(TF_CheckpointReader *reader, const char *name,
                                                   TF_Status *status) {
  return TFC_CheckpointReaderGetTensor(ckr(reader), name, status);
}

/* ---------------- attr builder ---------------- */

struct TF_AttrBuilder {
  char *op_name;
  int n_attrs;
  tfc_attr *attrs;
};

TFC_EXPORT TF_AttrBuilder *TF_NewAttrBuilder(const char *op_name) {
  TF_AttrBuilder *b = calloc(1, sizeof *b);
  if (b && !(b->op_name = tfc_strdup(op_name ? op_name : ""))) {
    free(b);
    return NULL;
  }
  return b;
}

TFC_EXPORT void TF_DeleteAttrBuilder(TF_AttrBuilder *b) {
  if (!b) return;
  tfc_attrs_free(b->attrs, b->n_attrs);
  free(b->op_name);
  free(b);
}

/* Sets attr name to v (taken), replacing an earlier value. */
static void builder_set(TF_AttrBuilder *b, const char *name, tfc_attr_value v) {
  for (int i = 0; i < b->n_attrs; i++)
    if (strcmp(b->attrs[i].name, name) == 0) {
      tfc_attr_value_fini(&b->attrs[i].value);
      b->attrs[i].value = v;
      return;
    }
  tfc_attr *na = realloc(b->attrs, sizeof *na * (size_t)(b->n_attrs + 1));
  char *nm = na ? tfc_strdup(name) : NULL;
  if (na) b->attrs = na;
  if (!nm) {
    tfc_attr_value_fini(&v);
    return;
  }
  /* kept sorted by name, as node attrs are (tfc_attrs_find) */
  int at = b->n_attrs;
  while (at > 0 && strcmp(b->attrs[at - 1].name, name) > 0) {
    b->attrs[at] = b->attrs[at - 1];
    at--;
  }
  b->attrs[at].name = nm;
  b->attrs[at].value = v;
  b->n_attrs++;
}

TFC_EXPORT void TF_AttrBuilderSetType(TF_AttrBuilder *b, const char *attr_name, TF_DataType value) {
  if (b && attr_name) builder_set(b, attr_name, tfc_attr_type((int)value));
}

TFC_EXPORT void TF_AttrBuilderSetTypeList(TF_AttrBuilder *b, const char *attr_name, const TF_DataType *values,
                                          int num_values) {
  if (!b || !attr_name) return;
  tfc_attr_value l = tfc_attr_list(TFC_ATTR_TYPE);
  tfc_status s;
  tfc_status_init(&s);
  for (int i = 0; i < num_values; i++) {
    tfc_attr_value v = tfc_attr_type((int)values[i]);
    tfc_attr_list_append(&l, &v, &s);
  }
  tfc_status_fini(&s);
  builder_set(b, attr_name, l);
}

TFC_EXPORT void TF_AttrBuilderCheckCanRunOnDevice(TF_AttrBuilder *b, const char *device_type, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!b || !device_type) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_AttrBuilderCheckCanRunOnDevice: %s is NULL",
                   !b ? "builder" : "device_type");
    return;
  }
  const tfc_opdef *op = tfc_op_lookup(b->op_name);
  if (!op) {
    tfc_status_set(s, TFC_NOT_FOUND, "Op type not registered '%s' in binary", b->op_name);
    return;
  }
  const tfc_kernel_table *t = tfc_device_kernel_table(device_type, s);
  if (!t) {
    if (tfc_status_ok(s))
      tfc_status_set(s, TFC_NOT_FOUND, "No registered '%s' OpKernel for %s devices: this build has no %s devices",
                     b->op_name, device_type, device_type);
    return;
  }
  /* The kernel lookup takes a node: one with the op and the builder's attrs. */
  tfc_node n;
  memset(&n, 0, sizeof n);
  n.name = (char *)"";
  n.op = op;
  n.n_attrs = b->n_attrs;
  n.attrs = b->attrs;
  if (!tfc_kernel_find(t, &n, s)) s->code = TFC_NOT_FOUND; /* TF's FindKernelDef: always NOT_FOUND */
}
