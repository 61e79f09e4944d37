/*
 * builders/summary — include/tfc/summary.h: the tf.summary.* builders and the C API of the
 * event writer (io/events.h).
 *
 * Builders reproduce TF 1.15's Python structure (summary.py, summary_op_util.py):
 *
 *   tf.summary.scalar("loss", x)     -> name scope "loss" (unique), Const "loss/tags" = the
 *                                       scope name, ScalarSummary "loss"(loss/tags, x);
 *   tf.summary.histogram("w", v)     -> the same with "w/tag" and HistogramSummary "w";
 *   tf.summary.merge([a, b])         -> name scope "Merge", MergeSummary "Merge/MergeSummary";
 *                                       with name "m": scope "m", op "m/m";
 *   tf.summary.merge_all()           -> merge over the "summaries" collection.
 *
 * The tag is the scope's full name without its trailing '/', so a summary made twice gets
 * "loss" and "loss_1", and one made under "train" gets "train/loss". Names go through
 * clean_tag first. A name ending in '/' re-enters that scope verbatim (Python's name_scope
 * rule), so "a/" gives the op "a" and the tag "a" wherever the scope is.
 *
 * The writer's C API wraps io/events.c; TFC_EventWriterAddGraph exports the GraphDef and, given
 * a session, rewrites each NodeDef's device to the session's placement
 * (TFC_SessionOperationDevice), which is what TensorBoard's "colour by device" reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "io/events.h"
#include "proto/graphdef.h"
#include "proto/pb_util.h"
#include "tensorflow/graph.pb-c.h"
#include "tfc/summary.h"
#include "tfc/tfc.h"

#define SUMMARIES "summaries"

/* ---------------------------------------------------------------- names */

/* Python's clean_tag: every character outside [-/\w.] becomes '_' (bytes >= 0x80 are kept:
 * Python's \w matches Unicode letters), then leading '/' are dropped. Caller frees. */
static char *clean_tag(const char *name) {
  while (*name == '/') name++;
  char *r = tfc_strdup(name);
  if (!r) return NULL;
  for (char *p = r; *p; p++) {
    unsigned char ch = (unsigned char)*p;
    int ok = ch >= 0x80 || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_' || ch == '-' || ch == '/' || ch == '.';
    if (!ok) *p = '_';
  }
  return r;
}

/* The summary's name scope: "<scope>/<name>" made unique, or a name ending in '/' verbatim
 * (without the slash). Caller frees; NULL with c->s set. */
static char *summary_scope(bld_call *c, const char *parent, const char *name) {
  size_t n = strlen(name);
  if (n && name[n - 1] == '/') {
    char *r = tfc_strndup(name, n - 1);
    if (!r) TFC_OOM(c->s);
    return r;
  }
  return bld_unique(c, parent, name);
}

/* The cleaned name, or default_name when name is NULL; INVALID_ARGUMENT when nothing is left. */
static char *summary_name(bld_call *c, const char *what, const char *name, const char *default_name) {
  if (!tfc_status_ok(c->s)) return NULL;
  char *r = name ? clean_tag(name) : (default_name ? tfc_strdup(default_name) : NULL);
  if (!r && (name || default_name)) {
    TFC_OOM(c->s);
    return NULL;
  }
  if (!r || !*r || !strcmp(r, "/")) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s: the summary name %s%s%s is empty%s", what, name ? "'" : "",
                   name ? name : "(NULL)", name ? "'" : "", name && *name ? " once cleaned" : "");
    free(r);
    return NULL;
  }
  return r;
}

/* A string scalar tensor holding text. NULL with the status set. */
static tfc_tensor *string_scalar(const char *text, tfc_status *s) {
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, NULL, 0, s);
  if (t && tfc_tstring_assign(tfc_tensor_strings(t), text, strlen(text), s)) {
    tfc_tensor_unref(t);
    return NULL;
  }
  return t;
}

/* ---------------------------------------------------------------- scalar, histogram */

/* summary_scope(name, family) as (tag, scope): Const "<scope>/<tag_input>" = tag and the op
 * named after the scope, collected in "summaries". With a family (cleaned as the name) the
 * scope is "<family>/<name>" and the tag "<family>/<scope>", as Python's summary_scope. */
/* A summary op's third input, a Const made in its scope (TensorSummaryV2's metadata,
 * AudioSummaryV2's sample rate, which Python converts before the tag), and its attrs. */
typedef struct summary_extra {
  const char *const_name;
  const tfc_tensor *value;
  int before_tag;
  bld_attr *attrs;
  int n_attrs;
} summary_extra;

static tfc_endpoint tagged_summary(bld_call *c, const TFC_Scope *scope, const char *what, const char *name,
                                   const char *default_name, const char *family, const char *type,
                                   const char *tag_input, TF_Output value, const summary_extra *x) {
  tfc_endpoint r = {NULL, 0};
  if (bld_check_output(c, value, what)) return r;
  char *clean = summary_name(c, what, name, default_name);
  char *fam = clean && family ? summary_name(c, what, family, NULL) : NULL;
  char *base = NULL, *sc = NULL, *exact = NULL, *tag = NULL;
  if (fam && asprintf(&base, "%s/%s", fam, clean) < 0) {
    base = NULL;
    TFC_OOM(c->s);
  }
  if (clean && (!family || base)) sc = summary_scope(c, scope->name, family ? base : clean);
  if (sc && asprintf(&exact, "%s/", sc) < 0) {
    exact = NULL;
    TFC_OOM(c->s);
  }
  if (exact && (fam ? asprintf(&tag, "%s/%s", fam, sc) : asprintf(&tag, "%s", sc)) < 0) {
    tag = NULL;
    TFC_OOM(c->s);
  }
  if (tag) {
    bld_where in = bld_where_of(scope, sc), root = bld_where_of(scope, "");
    tfc_endpoint ins[3] = {{NULL, 0}, tfc_capi_endpoint(value), {NULL, 0}};
    /* The extra Const (bld_const takes a reference) before or after the tag's, as Python. */
    if (x && x->before_tag) ins[2] = bld_const(c, &in, x->const_name, tfc_tensor_ref((tfc_tensor *)x->value));
    ins[0] = bld_const(c, &in, tag_input, string_scalar(tag, c->s));
    if (x && !x->before_tag) ins[2] = bld_const(c, &in, x->const_name, tfc_tensor_ref((tfc_tensor *)x->value));
    tfc_node *n = bld_op(c, &root, type, exact, ins, x ? 3 : 2, x ? x->attrs : NULL, x ? x->n_attrs : 0);
    if (n && !bld_collection_add(c, SUMMARIES, &n, 1)) r = (tfc_endpoint){n, 0};
  }
  free(clean);
  free(fam);
  free(base);
  free(sc);
  free(exact);
  free(tag);
  return r;
}

static TF_Output run_tagged(const TFC_Scope *scope, const char *what, const char *name, const char *default_name,
                            const char *family, const char *type, const char *tag_input, TF_Output value,
                            TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return (TF_Output){NULL, 0};
  }
  tfc_endpoint r = tagged_summary(&c, scope, what, name, default_name, family, type, tag_input, value, NULL);
  TF_Output o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_TensorSummary(const TFC_Scope *scope, const char *name, const char *family,
                                      TF_Output tensor, const void *serialized_metadata, size_t metadata_len,
                                      TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return (TF_Output){NULL, 0};
  }
  tfc_endpoint r = {NULL, 0};
  tfc_tensor *meta = tfc_tensor_new(TFC_DT_STRING, NULL, 0, c.s);
  if (meta && !tfc_tstring_assign(tfc_tensor_strings(meta), serialized_metadata ? serialized_metadata : "",
                                  serialized_metadata ? metadata_len : 0, c.s)) {
    summary_extra x = {"serialized_summary_metadata", meta, 0, NULL, 0};
    r = tagged_summary(&c, scope, "TFC_TensorSummary", name, NULL, family, "TensorSummaryV2", "tag", tensor, &x);
  }
  tfc_tensor_unref(meta);
  TF_Output o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_AudioSummary(const TFC_Scope *scope, const char *name, const char *family, TF_Output tensor,
                                     float sample_rate, int max_outputs, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return (TF_Output){NULL, 0};
  }
  tfc_endpoint r = {NULL, 0};
  tfc_tensor *rate = NULL;
  if (max_outputs < 1) {
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "Value for attr 'max_outputs' of %d must be at least minimum 1",
                   max_outputs);
  } else if ((rate = tfc_tensor_new(TFC_DT_FLOAT, NULL, 0, c.s)) != NULL) {
    *(float *)rate->data = sample_rate;
    bld_attr a[1] = {{"max_outputs", tfc_attr_int(max_outputs)}};
    summary_extra x = {"sample_rate", rate, 1, a, 1};
    r = tagged_summary(&c, scope, "TFC_AudioSummary", name, NULL, family, "AudioSummaryV2", "tag", tensor, &x);
  }
  tfc_tensor_unref(rate);
  TF_Output o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_ScalarSummary(const TFC_Scope *scope, const char *name, TF_Output value,
                                      TF_Status *status) {
  return run_tagged(scope, "TFC_ScalarSummary", name, NULL, NULL, "ScalarSummary", "tags", value, status);
}

TFC_EXPORT TF_Output TFC_HistogramSummary(const TFC_Scope *scope, const char *name, TF_Output values,
                                         TF_Status *status) {
  return run_tagged(scope, "TFC_HistogramSummary", name, "HistogramSummary", NULL, "HistogramSummary", "tag", values,
                    status);
}

TFC_EXPORT TF_Output TFC_ScalarSummaryWithFamily(const TFC_Scope *scope, const char *name, const char *family,
                                                TF_Output value, TF_Status *status) {
  return run_tagged(scope, "TFC_ScalarSummary", name, NULL, family, "ScalarSummary", "tags", value, status);
}

TFC_EXPORT TF_Output TFC_HistogramSummaryWithFamily(const TFC_Scope *scope, const char *name, const char *family,
                                                   TF_Output values, TF_Status *status) {
  return run_tagged(scope, "TFC_HistogramSummary", name, "HistogramSummary", family, "HistogramSummary", "tag",
                    values, status);
}

/* ---------------------------------------------------------------- merge */

static tfc_endpoint merge_locked(bld_call *c, const TFC_Scope *scope, const tfc_endpoint *ins, int n,
                                 const char *name) {
  tfc_endpoint r = {NULL, 0};
  if (n < 1) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "TFC_MergeSummary: no summaries to merge");
    return r;
  }
  char *clean = summary_name(c, "TFC_MergeSummary", name, "Merge");
  char *sc = clean ? summary_scope(c, scope->name, clean) : NULL;
  if (sc) {
    /* The op takes `name` inside its own scope ("m/m"); a re-entered "m/" names the op "m". */
    int reentered = clean[strlen(clean) - 1] == '/';
    char *op_name = NULL;
    if (reentered) {
      if (asprintf(&op_name, "%s/", sc) < 0) op_name = NULL;
    } else {
      op_name = tfc_strdup(name ? clean : "MergeSummary");
    }
    if (!op_name) {
      TFC_OOM(c->s);
    } else {
      bld_where w = bld_where_of(scope, reentered ? "" : sc);
      r = bld_op0(c, &w, "MergeSummary", op_name, ins, n, NULL, 0);
    }
    free(op_name);
  }
  free(clean);
  free(sc);
  return r;
}

TFC_EXPORT TF_Output TFC_MergeSummary(const TFC_Scope *scope, const TF_Output *inputs, int num_inputs,
                                     const char *name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return (TF_Output){NULL, 0};
  }
  tfc_endpoint r = {NULL, 0};
  tfc_endpoint *ins = calloc((size_t)(num_inputs > 0 ? num_inputs : 1), sizeof *ins);
  if (!ins) {
    TFC_OOM(c.s);
  } else if (num_inputs > 0 && !inputs) {
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_MergeSummary: inputs is NULL");
  } else {
    for (int i = 0; i < num_inputs && tfc_status_ok(c.s); i++) {
      char what[48];
      snprintf(what, sizeof what, "TFC_MergeSummary input %d", i);
      if (!bld_check_output(&c, inputs[i], what)) ins[i] = tfc_capi_endpoint(inputs[i]);
    }
    r = merge_locked(&c, scope, ins, num_inputs, name);
  }
  free(ins);
  TF_Output o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_MergeAllSummaries(const TFC_Scope *scope, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return (TF_Output){NULL, 0};
  }
  tfc_endpoint r = {NULL, 0};
  bld_state *st = c.st;
  int n = 0;
  for (int i = 0; i < st->n_entries; i++) n += strcmp(st->entries[i].collection, SUMMARIES) == 0;
  if (n > 0) {
    tfc_endpoint *ins = calloc((size_t)n, sizeof *ins);
    if (!ins) {
      TFC_OOM(c.s);
    } else {
      int k = 0;
      for (int i = 0; i < st->n_entries; i++)
        if (!strcmp(st->entries[i].collection, SUMMARIES) && st->entries[i].n > 0)
          ins[k++] = (tfc_endpoint){st->entries[i].nodes[0], 0};
      r = merge_locked(&c, scope, ins, k, NULL);
      free(ins);
    }
  }
  TF_Output o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

/* ---------------------------------------------------------------- event writer */

struct TFC_EventWriter {
  tfc_event_writer *w;
};

static TFC_EventWriter *new_writer(const char *logdir, const char *suffix, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status), scratch;
  tfc_status_init(&scratch);
  if (!s) s = &scratch;
  TFC_EventWriter *ew = calloc(1, sizeof *ew);
  if (!ew) TFC_OOM(s);
  else if (!(ew->w = tfc_event_writer_new(logdir, suffix, s))) {
    free(ew);
    ew = NULL;
  }
  tfc_status_fini(&scratch);
  return ew;
}

TFC_EXPORT TFC_EventWriter *TFC_NewEventWriter(const char *logdir, TF_Status *status) {
  return new_writer(logdir, NULL, status);
}

TFC_EXPORT TFC_EventWriter *TFC_NewEventWriterWithSuffix(const char *logdir, const char *filename_suffix,
                                                        TF_Status *status) {
  return new_writer(logdir, filename_suffix, status);
}

TFC_EXPORT const char *TFC_EventWriterPath(const TFC_EventWriter *writer) {
  return writer ? tfc_event_writer_path(writer->w) : NULL;
}

/* The caller's status (cleared) or scratch; INVALID_ARGUMENT when the writer is NULL. */
static tfc_status *writer_status(const TFC_EventWriter *writer, const char *fn, TF_Status *status,
                                 tfc_status *scratch) {
  tfc_status *s = tfc_capi_status_or(status, scratch);
  if (!writer) tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s: writer is NULL", fn);
  return s;
}

TFC_EXPORT void TFC_EventWriterAddSummary(TFC_EventWriter *writer, const void *serialized_summary, size_t len,
                                         int64_t step, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_EventWriterAddSummary", status, &scratch);
  if (tfc_status_ok(s) && !serialized_summary && len)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_EventWriterAddSummary: serialized_summary is NULL");
  if (tfc_status_ok(s)) tfc_event_writer_add_summary(writer->w, serialized_summary ? serialized_summary : "", len, step, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_EventWriterAddSummaryTensor(TFC_EventWriter *writer, const TF_Tensor *summary, int64_t step,
                                               TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_EventWriterAddSummaryTensor", status, &scratch);
  tfc_tensor *t = NULL;
  if (tfc_status_ok(s) && !summary)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_EventWriterAddSummaryTensor: summary is NULL");
  if (tfc_status_ok(s) && (t = tfc_capi_tensor_in(summary, s))) {
    char dims[64];
    if (t->dtype != TFC_DT_STRING || t->ndims != 0)
      tfc_status_set(s, TFC_INVALID_ARGUMENT,
                     "TFC_EventWriterAddSummaryTensor: a summary is a string scalar, got %s %s",
                     tfc_dtype_name(t->dtype), tfc_tensor_shape_str(t, dims, sizeof dims));
    else
      tfc_event_writer_add_summary(writer->w, tfc_tensor_strings(t)->data, tfc_tensor_strings(t)->len, step, s);
  }
  tfc_tensor_unref(t);
  tfc_status_fini(&scratch);
}

/* Sets each NodeDef's device to the session's placement of the node of that name. */
static int apply_placement(Tensorflow__GraphDef *gd, TF_Graph *graph, TF_Session *session, tfc_pb_arena *a,
                           tfc_status *s) {
  TF_Status *q = TF_NewStatus();
  if (!q) return TFC_OOM(s);
  for (size_t i = 0; i < gd->n_node; i++) {
    TF_Operation *op = TF_GraphOperationByName(graph, gd->node[i]->name);
    const char *dev = op ? TFC_SessionOperationDevice(session, op, q) : NULL;
    if (!dev) continue; /* not placed by this session: keep the requested device */
    /* The old string belongs to the unpacked message; the new one to the arena. Swapped back
     * before the message is freed (see add_graph). */
    char *copy = tfc_pb_strdup(a, dev);
    if (!copy) break;
    gd->node[i]->device = copy;
  }
  TF_DeleteStatus(q);
  return tfc_pb_arena_status(a, s);
}

TFC_EXPORT void TFC_EventWriterAddGraph(TFC_EventWriter *writer, TF_Graph *graph, TF_Session *session,
                                       TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_EventWriterAddGraph", status, &scratch);
  if (tfc_status_ok(s) && !graph) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_EventWriterAddGraph: graph is NULL");
  void *bytes = NULL;
  size_t len = 0;
  if (tfc_status_ok(s) && !tfc_graphdef_export(graph->g, &bytes, &len, s) && session) {
    Tensorflow__GraphDef *gd =
        (Tensorflow__GraphDef *)tfc_pb_unpack(&tensorflow__graph_def__descriptor, bytes, len, "GraphDef", s);
    char **old = gd ? calloc(gd->n_node ? gd->n_node : 1, sizeof *old) : NULL;
    if (gd && !old) TFC_OOM(s);
    if (old) {
      for (size_t i = 0; i < gd->n_node; i++) old[i] = gd->node[i]->device;
      tfc_pb_arena a;
      tfc_pb_arena_init(&a);
      if (!apply_placement(gd, graph, session, &a, s)) {
        free(bytes);
        bytes = NULL;
        tfc_pb_pack(&gd->base, &bytes, &len, s);
      }
      for (size_t i = 0; i < gd->n_node; i++) gd->node[i]->device = old[i];
      tfc_pb_arena_fini(&a);
      free(old);
    }
    if (gd) protobuf_c_message_free_unpacked(&gd->base, NULL);
  }
  if (tfc_status_ok(s)) tfc_event_writer_add_graph_def(writer->w, bytes, len, s);
  free(bytes);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_EventWriterAddSessionLog(TFC_EventWriter *writer, int status, const char *checkpoint_path,
                                            int64_t step, TF_Status *status_out) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_EventWriterAddSessionLog", status_out, &scratch);
  if (tfc_status_ok(s)) tfc_event_writer_add_session_log(writer->w, status, checkpoint_path, step, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_EventWriterAddEvent(TFC_EventWriter *writer, const void *serialized_event, size_t len,
                                       TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_EventWriterAddEvent", status, &scratch);
  if (tfc_status_ok(s) && !serialized_event && len)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_EventWriterAddEvent: serialized_event is NULL");
  if (tfc_status_ok(s)) tfc_event_writer_add_event(writer->w, serialized_event ? serialized_event : "", len, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_EventWriterFlush(TFC_EventWriter *writer, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_EventWriterFlush", status, &scratch);
  if (tfc_status_ok(s)) tfc_event_writer_flush(writer->w, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_CloseEventWriter(TFC_EventWriter *writer, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = writer_status(writer, "TFC_CloseEventWriter", status, &scratch);
  if (tfc_status_ok(s)) tfc_event_writer_close(writer->w, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_DeleteEventWriter(TFC_EventWriter *writer) {
  if (!writer) return;
  tfc_event_writer_free(writer->w);
  free(writer);
}
