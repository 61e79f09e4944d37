/*
 * run_metadata — see run_metadata.h.
 *
 * StepStats is built as protobuf-c structs in an arena and packed; the partition GraphDefs
 * come packed already (proto/graphdef), so RunMetadata is framed by hand around the bytes:
 * field 1 (step_stats) then field 3 (partition_graphs) once per graph, each length-delimited.
 */
#include "session/run_metadata.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "proto/graphdef.h"
#include "proto/pb_util.h"
#include "tensorflow/step_stats.pb-c.h"

char *tfc_run_metadata_label(const tfc_node *n) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_printf(&b, "%s = %s(", n->name, n->op->name);
  for (int j = 0; j < n->n_inputs; j++) {
    if (j) tfc_strbuf_puts(&b, ", ");
    tfc_strbuf_puts(&b, n->inputs[j].node->name);
    if (n->inputs[j].index) tfc_strbuf_printf(&b, ":%d", n->inputs[j].index);
  }
  for (int j = 0; j < n->n_control_inputs; j++)
    tfc_strbuf_printf(&b, "%s^%s", j || n->n_inputs ? ", " : "", n->control_inputs[j]->name);
  tfc_strbuf_puts(&b, ")");
  if (tfc_strbuf_ok(&b)) return tfc_strbuf_take(&b);
  tfc_strbuf_fini(&b);
  return NULL;
}

/* Builds one DeviceStepStats. */
typedef struct dev_build {
  tfc_pb_arena *a;
  Tensorflow__DeviceStepStats *ds;
  int cap;
} dev_build;

static Tensorflow__NodeOutput *node_output(tfc_pb_arena *a, int slot, const tfc_output_desc *d) {
  Tensorflow__NodeOutput *o = tfc_pb_alloc(a, sizeof *o);
  Tensorflow__TensorDescription *td = tfc_pb_alloc(a, sizeof *td);
  Tensorflow__TensorShapeProto *sh = tfc_pb_alloc(a, sizeof *sh);
  Tensorflow__AllocationDescription *ad = tfc_pb_alloc(a, sizeof *ad);
  if (!o || !td || !sh || !ad) return NULL;
  tensorflow__node_output__init(o);
  tensorflow__tensor_description__init(td);
  tensorflow__tensor_shape_proto__init(sh);
  tensorflow__allocation_description__init(ad);
  o->slot = slot;
  o->tensor_description = td;
  td->dtype = (Tensorflow__DataType)d->dtype;
  td->shape = sh;
  if (d->dtype) {
    sh->dim = tfc_pb_alloc(a, sizeof *sh->dim * (size_t)(d->ndims ? d->ndims : 1));
    if (!sh->dim) return NULL;
    for (int k = 0; k < d->ndims; k++) {
      Tensorflow__TensorShapeProto__Dim *dim = tfc_pb_alloc(a, sizeof *dim);
      if (!dim) return NULL;
      tensorflow__tensor_shape_proto__dim__init(dim);
      dim->size = d->dims[k];
      sh->dim[sh->n_dim++] = dim;
    }
    ad->requested_bytes = ad->allocated_bytes = d->bytes;
    ad->allocator_name = (char *)"cpu";
    td->allocation_description = ad;
  }
  return o;
}

static void add_node(void *arg, const tfc_node_stats *r) {
  dev_build *b = arg;
  tfc_pb_arena *a = b->a;
  Tensorflow__DeviceStepStats *ds = b->ds;
  if ((int)ds->n_node_stats == b->cap) {
    int cap = b->cap ? 2 * b->cap : 64;
    Tensorflow__NodeExecStats **v = tfc_pb_alloc(a, sizeof *v * (size_t)cap);
    if (!v) return;
    if (ds->n_node_stats) memcpy(v, ds->node_stats, sizeof *v * ds->n_node_stats);
    ds->node_stats = v;
    b->cap = cap;
  }
  Tensorflow__NodeExecStats *ns = tfc_pb_alloc(a, sizeof *ns);
  if (!ns) return;
  tensorflow__node_exec_stats__init(ns);
  char *label = tfc_run_metadata_label(r->node);
  ns->node_name = tfc_pb_strdup(a, r->node->name);
  ns->timeline_label = label ? tfc_pb_strdup(a, label) : NULL;
  free(label);
  if (!ns->node_name || !ns->timeline_label) {
    a->oom = 1;
    return;
  }
  ns->all_start_micros = r->start_us;
  ns->scheduled_micros = r->start_us;
  /* an async kernel's record that its end never reached (the step stopped) ends at its op */
  int64_t op_start = r->op_start_us ? r->op_start_us : r->start_us;
  int64_t op_end = r->op_end_us ? r->op_end_us : op_start;
  int64_t end = r->end_us ? r->end_us : op_end;
  ns->op_start_rel_micros = op_start - r->start_us;
  ns->op_end_rel_micros = op_end - r->start_us;
  ns->all_end_rel_micros = end - r->start_us;
  ns->thread_id = r->thread_id;
  if (r->n_outputs) {
    ns->output = tfc_pb_alloc(a, sizeof *ns->output * (size_t)r->n_outputs);
    if (!ns->output) return;
    for (int j = 0; j < r->n_outputs; j++) {
      if (!r->outputs[j].dtype) continue;
      Tensorflow__NodeOutput *o = node_output(a, j, &r->outputs[j]);
      if (!o) return;
      ns->output[ns->n_output++] = o;
    }
  }
  ds->node_stats[ds->n_node_stats++] = ns;
}

/* Appends field `field` (length-delimited) holding data[0..len) at p; returns the new end. */
static uint8_t *put_field(uint8_t *p, int field, const void *data, size_t len) {
  *p++ = (uint8_t)(field << 3 | 2);
  p += tfc_pb_put_varint(p, len);
  if (len) memcpy(p, data, len);
  return p + len;
}

int tfc_run_metadata_pack(const tfc_step_stats *stats, int n_stats, tfc_graph *const *graphs, int n_graphs,
                          void **out, size_t *out_len, tfc_status *s) {
  *out = NULL;
  *out_len = 0;
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  void *ss_bytes = NULL;
  size_t ss_len = 0;
  void **gd = calloc((size_t)n_graphs + 1, sizeof *gd);
  size_t *gd_len = calloc((size_t)n_graphs + 1, sizeof *gd_len);
  if (!gd || !gd_len) {
    TFC_OOM(s);
    goto done;
  }
  /* step_stats */
  if (n_stats > 0) {
    Tensorflow__StepStats st = TENSORFLOW__STEP_STATS__INIT;
    st.dev_stats = tfc_pb_alloc(&a, sizeof *st.dev_stats * (size_t)n_stats);
    for (int i = 0; st.dev_stats && i < n_stats; i++) {
      Tensorflow__DeviceStepStats *ds = tfc_pb_alloc(&a, sizeof *ds);
      if (!ds) break;
      tensorflow__device_step_stats__init(ds);
      ds->device = tfc_pb_strdup(&a, stats[i].device);
      dev_build b = {&a, ds, 0};
      tfc_step_stats_each(&stats[i], add_node, &b);
      st.dev_stats[st.n_dev_stats++] = ds;
    }
    if (tfc_pb_arena_status(&a, s) || tfc_pb_pack(&st.base, &ss_bytes, &ss_len, s)) goto done;
  }
  /* partition_graphs */
  size_t total = n_stats > 0 ? 11 + ss_len : 0;
  for (int i = 0; i < n_graphs; i++) {
    if (tfc_graphdef_export_ex(graphs[i], 0, 1, &gd[i], &gd_len[i], s)) goto done;
    total += 11 + gd_len[i];
  }
  uint8_t *buf = malloc(total ? total : 1), *p = buf;
  if (!buf) {
    TFC_OOM(s);
    goto done;
  }
  if (n_stats > 0) p = put_field(p, 1, ss_bytes, ss_len);
  for (int i = 0; i < n_graphs; i++) p = put_field(p, 3, gd[i], gd_len[i]);
  *out = buf;
  *out_len = (size_t)(p - buf);
done:
  for (int i = 0; gd && i < n_graphs; i++) free(gd[i]);
  free(gd);
  free(gd_len);
  free(ss_bytes);
  tfc_pb_arena_fini(&a);
  return s->code;
}
