/*
 * config — see config.h. Decodes ConfigProto with the generated protobuf-c code and keeps
 * only what tfc acts on, plus the raw bytes for the parts other modules decode themselves
 * (the distributed runtime reads cluster_def from them).
 */
#include "session/config.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "proto/pb_util.h"
#include "tensorflow/config.pb-c.h"

void tfc_session_config_init(tfc_session_config *c) {
  memset(c, 0, sizeof *c);
  /* ConfigProto's defaults are all zero/false/empty; 0 threads means "one per core" and a
   * memory fraction of 0 means "the allocator's default" (TF then takes almost all). */
}

void tfc_session_config_fini(tfc_session_config *c) {
  if (!c) return;
  free(c->visible_device_list);
  free(c->virtual_device_n_limits);
  free(c->virtual_device_limits_mb);
  for (int i = 0; i < c->n_device_filters; i++) free(c->device_filters[i]);
  free(c->device_filters);
  free(c->raw);
  memset(c, 0, sizeof *c);
}

/* Heap copies of n strings into r's device_filters; 0, or -1 on out of memory (r owns what was
 * copied: tfc_session_config_fini frees it). */
static int dup_filters(char *const *src, int n, tfc_session_config *r) {
  r->device_filters = NULL;
  r->n_device_filters = 0;
  if (n <= 0) return 0;
  if (!(r->device_filters = calloc((size_t)n, sizeof *r->device_filters))) return -1;
  for (; r->n_device_filters < n; r->n_device_filters++)
    if (!(r->device_filters[r->n_device_filters] = tfc_strdup(src[r->n_device_filters]))) return -1;
  return 0;
}

/* A heap copy of n elements of `size` bytes (NULL for none); 0, or -1 on out of memory. */
static int dup_array(const void *src, int n, size_t size, void **out) {
  *out = NULL;
  if (!src || n <= 0) return 0;
  if (!(*out = malloc((size_t)n * size))) return -1;
  memcpy(*out, src, (size_t)n * size);
  return 0;
}

int tfc_session_config_copy(const tfc_session_config *src, tfc_session_config *dst, tfc_status *s) {
  tfc_session_config r = *src;
  r.visible_device_list = NULL;
  r.virtual_device_n_limits = NULL;
  r.virtual_device_limits_mb = NULL;
  r.raw = NULL;
  int oom = dup_filters(src->device_filters, src->n_device_filters, &r);
  oom = oom || (src->visible_device_list && !(r.visible_device_list = tfc_strdup(src->visible_device_list)));
  oom = oom || dup_array(src->virtual_device_n_limits, src->n_virtual_devices, sizeof(int),
                         (void **)&r.virtual_device_n_limits);
  oom = oom || dup_array(src->virtual_device_limits_mb, src->n_virtual_device_limits, sizeof(float),
                         (void **)&r.virtual_device_limits_mb);
  if (!oom && src->raw) {
    oom = !(r.raw = malloc(src->raw_len ? src->raw_len : 1));
    if (!oom && src->raw_len) memcpy(r.raw, src->raw, src->raw_len);
  }
  if (oom) {
    tfc_session_config_fini(&r);
    return TFC_OOM(s);
  }
  *dst = r;
  return TFC_OK;
}

/* GPUOptions.experimental.virtual_devices into the flat arrays of *r. */
static int parse_virtual_devices(const Tensorflow__GPUOptions__Experimental *x, tfc_session_config *r,
                                 tfc_status *s) {
  if (!x || x->n_virtual_devices == 0) return TFC_OK;
  /* Bounds keep the counts in int and the arrays sane; TF has no limit, but a few thousand
   * logical GPUs is already far beyond any real use. */
  if (x->n_virtual_devices > 4096)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "GPUOptions.experimental.virtual_devices has %zu entries; at most 4096",
                          x->n_virtual_devices);
  size_t total = 0;
  for (size_t i = 0; i < x->n_virtual_devices; i++) total += x->virtual_devices[i]->n_memory_limit_mb;
  if (total > 4096)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "GPUOptions.experimental.virtual_devices lists %zu memory limits; at most 4096", total);
  r->virtual_device_n_limits = calloc(x->n_virtual_devices, sizeof(int));
  r->virtual_device_limits_mb = calloc(total ? total : 1, sizeof(float));
  if (!r->virtual_device_n_limits || !r->virtual_device_limits_mb) return TFC_OOM(s);
  r->n_virtual_devices = (int)x->n_virtual_devices;
  for (size_t i = 0; i < x->n_virtual_devices; i++) {
    const Tensorflow__GPUOptions__Experimental__VirtualDevices *v = x->virtual_devices[i];
    r->virtual_device_n_limits[i] = (int)v->n_memory_limit_mb;
    for (size_t k = 0; k < v->n_memory_limit_mb; k++)
      r->virtual_device_limits_mb[r->n_virtual_device_limits++] = v->memory_limit_mb[k];
  }
  return TFC_OK;
}

int tfc_session_config_device_count(const tfc_session_config *c, const char *type) {
  for (int i = 0; i < c->n_device_counts; i++)
    if (strcmp(c->device_counts[i].type, type) == 0) return c->device_counts[i].count;
  return -1;
}

int tfc_session_config_parse(tfc_session_config *c, const void *data, size_t len, tfc_status *s) {
  ProtobufCMessage *m = tfc_pb_unpack(&tensorflow__config_proto__descriptor, data, len, "ConfigProto", s);
  if (!m) return s->code;
  const Tensorflow__ConfigProto *p = (const Tensorflow__ConfigProto *)m;
  tfc_session_config r;
  tfc_session_config_init(&r);
  int code = TFC_OK;
  /* device_count: a map, so a repeated key means the last value. */
  for (size_t i = 0; i < p->n_device_count && code == TFC_OK; i++) {
    const Tensorflow__ConfigProto__DeviceCountEntry *e = p->device_count[i];
    const char *key = e->key ? e->key : "";
    if (strlen(key) >= sizeof r.device_counts[0].type) {
      code = tfc_status_set(s, TFC_INVALID_ARGUMENT, "ConfigProto device_count has an invalid device type '%.32s'",
                            key);
      break;
    }
    int k = 0;
    while (k < r.n_device_counts && strcmp(r.device_counts[k].type, key) != 0) k++;
    if (k == r.n_device_counts) {
      if (k == TFC_CONFIG_MAX_DEVICE_TYPES) {
        code = tfc_status_set(s, TFC_INVALID_ARGUMENT, "ConfigProto device_count names more than %d device types",
                              TFC_CONFIG_MAX_DEVICE_TYPES);
        break;
      }
      strcpy(r.device_counts[k].type, key);
      r.n_device_counts++;
    }
    r.device_counts[k].count = e->value;
  }
  /* TF treats a negative inter-op count as "run inline"; tfc has no such mode and takes
   * negative counts as the default rather than failing a config TF accepts. */
  r.intra_op_parallelism_threads = p->intra_op_parallelism_threads > 0 ? p->intra_op_parallelism_threads : 0;
  r.inter_op_parallelism_threads = p->inter_op_parallelism_threads > 0 ? p->inter_op_parallelism_threads : 0;
  r.allow_soft_placement = p->allow_soft_placement != 0;
  r.log_device_placement = p->log_device_placement != 0;
  r.use_per_session_threads = p->use_per_session_threads != 0;
  r.operation_timeout_in_ms = p->operation_timeout_in_ms;
  if (p->n_device_filters > 4096)
    code = tfc_status_set(s, TFC_INVALID_ARGUMENT, "ConfigProto device_filters has %zu entries; at most 4096",
                          p->n_device_filters);
  else if (dup_filters(p->device_filters, (int)p->n_device_filters, &r))
    code = TFC_OOM(s);
  if (p->graph_options) {
    const Tensorflow__GraphOptions *go = p->graph_options;
    r.place_pruned_graph = go->place_pruned_graph != 0;
    const Tensorflow__OptimizerOptions *oo = go->optimizer_options;
    const Tensorflow__RewriterConfig *rc = go->rewrite_options;
    /* TF's classic optimizer turns folding on at L1 (the default) whatever do_constant_folding
     * says; at L0 only do_constant_folding does. */
    if (oo && oo->opt_level == TENSORFLOW__OPTIMIZER_OPTIONS__LEVEL__L0 && !oo->do_constant_folding)
      r.no_constant_folding = 1;
    if (oo && oo->max_folded_constant_in_bytes > 0) r.max_folded_constant_in_bytes = oo->max_folded_constant_in_bytes;
    if (rc && (rc->disable_meta_optimizer || rc->constant_folding == TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF))
      r.no_constant_folding = 1;
    if (rc && (rc->disable_meta_optimizer || rc->arithmetic_optimization == TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF ||
               rc->remapping == TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF))
      r.no_scale_folding = 1;
    if (rc && (rc->disable_meta_optimizer || rc->remapping == TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF))
      r.no_remapping = 1;
    if (rc && (rc->disable_meta_optimizer || rc->dependency_optimization == TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF))
      r.no_dependency_optimization = 1;
  }
  if (p->gpu_options) {
    r.per_process_gpu_memory_fraction = p->gpu_options->per_process_gpu_memory_fraction;
    r.allow_growth = p->gpu_options->allow_growth != 0;
    const char *vdl = p->gpu_options->visible_device_list;
    if (code == TFC_OK && vdl && vdl[0] && !(r.visible_device_list = tfc_strdup(vdl))) code = TFC_OOM(s);
    if (code == TFC_OK) code = parse_virtual_devices(p->gpu_options->experimental, &r, s);
  }
  if (code == TFC_OK) {
    r.raw = malloc(len ? len : 1);
    if (!r.raw) code = TFC_OOM(s);
    else if (len) memcpy(r.raw, data, len);
    r.raw_len = len;
  }
  protobuf_c_message_free_unpacked(m, NULL);
  if (code != TFC_OK) {
    tfc_session_config_fini(&r);
    return code;
  }
  tfc_session_config_fini(c);
  *c = r;
  return TFC_OK;
}

int tfc_run_options_parse(tfc_run_options *o, const void *data, size_t len, tfc_status *s) {
  memset(o, 0, sizeof *o);
  if (!data || len == 0) return TFC_OK;
  ProtobufCMessage *m = tfc_pb_unpack(&tensorflow__run_options__descriptor, data, len, "RunOptions proto", s);
  if (!m) return s->code;
  const Tensorflow__RunOptions *p = (const Tensorflow__RunOptions *)m;
  o->timeout_in_ms = p->timeout_in_ms > 0 ? p->timeout_in_ms : 0;
  o->trace_level = (int)p->trace_level;
  o->output_partition_graphs = p->output_partition_graphs;
  protobuf_c_message_free_unpacked(m, NULL);
  return TFC_OK;
}
