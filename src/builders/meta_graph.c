/*
 * builders/meta_graph — MetaGraphDefs (include/tfc/meta_graph.h): export a graph with its
 * builder collections and a SaverDef, import one back into a graph and its builder state.
 *
 * A TFC_MetaGraph is the MetaGraphDef unpacked by protobuf-c (src/proto/tensorflow/
 * meta_graph.proto, which carries the GraphDef and the producer's OpList as bytes). Export
 * builds the message in an arena, packs it and unpacks the bytes, so every TFC_MetaGraph is
 * owned the one way protobuf-c frees; adding a collection packs the message again with the
 * new map entry appended (an older entry of that key removed first) and unpacks that.
 *
 * The builders' state is read under one builder call (bld_begin .. bld_end: the graph lock)
 * and copied out; everything that takes the graph lock itself (TF_GraphToGraphDef, imports,
 * TFC_SetVariableCollections, TFC_AddToCollection) runs outside it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builders/builders_internal.h"
#include "io/file.h"
#include "io/table.h"
#include "proto/pb_util.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/meta_graph.pb-c.h"
#include "tensorflow/op_def.pb-c.h"
#include "tensorflow/queue_runner.pb-c.h"
#include "tensorflow/variable.pb-c.h"
#include "tfc/meta_graph.h"

typedef Tensorflow__MetaGraphDef MetaGraphDef;
typedef Tensorflow__MetaGraphDef__CollectionDefEntry CollectionEntry;
typedef Tensorflow__CollectionDef CollectionDef;

struct TFC_MetaGraph {
  MetaGraphDef *m; /* protobuf-c's (protobuf_c_message_free_unpacked) */
};

#define OUT_OF_RANGE_CODE 11 /* error_codes.proto: the code a closed queue raises */

/* ---------------------------------------------------------------- small helpers */

static TFC_MetaGraph *from_bytes(const void *data, size_t len, tfc_status *s) {
  MetaGraphDef *m = (MetaGraphDef *)tfc_pb_unpack(&tensorflow__meta_graph_def__descriptor, data, len, "MetaGraphDef", s);
  if (!m) return NULL;
  TFC_MetaGraph *mg = malloc(sizeof *mg);
  if (!mg) {
    protobuf_c_message_free_unpacked(&m->base, NULL);
    TFC_OOM(s);
    return NULL;
  }
  mg->m = m;
  return mg;
}

/* Replaces mg's message by the one in (data, len). */
static int reset_from_bytes(TFC_MetaGraph *mg, const void *data, size_t len, tfc_status *s) {
  MetaGraphDef *m = (MetaGraphDef *)tfc_pb_unpack(&tensorflow__meta_graph_def__descriptor, data, len, "MetaGraphDef", s);
  if (!m) return s->code;
  protobuf_c_message_free_unpacked(&mg->m->base, NULL);
  mg->m = m;
  return TFC_OK;
}

static const CollectionDef *find_collection(const TFC_MetaGraph *mg, const char *key) {
  if (!mg || !key) return NULL;
  for (size_t i = mg->m->n_collection_def; i-- > 0;)
    if (strcmp(mg->m->collection_def[i]->key, key) == 0) return mg->m->collection_def[i]->value;
  return NULL;
}

/* "name:k" -> its op name (heap; NULL on OOM), *k the index (0 without ":k"). */
static char *op_part(const char *tensor, int *k) {
  const char *colon = strrchr(tensor, ':');
  *k = 0;
  if (colon) {
    char *end;
    long v = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1) colon = NULL;
    else *k = (int)v;
  }
  return colon ? strndup(tensor, (size_t)(colon - tensor)) : strdup(tensor);
}

/* The operation of a node or tensor name in graph, below import_scope: NOT_FOUND when absent. */
static TF_Operation *lookup(TF_Graph *graph, const char *scope, const char *name, const char *what, int *k,
                            tfc_status *s) {
  int idx = 0;
  const char *bare = name[0] == '^' ? name + 1 : name;
  char *op = op_part(bare, &idx), *full = NULL;
  if (!op || (scope && *scope ? asprintf(&full, "%s/%s", scope, op) < 0 : !(full = strdup(op)))) {
    free(op);
    TFC_OOM(s);
    return NULL;
  }
  TF_Operation *o = TF_GraphOperationByName(graph, full);
  if (!o) tfc_status_set(s, TFC_NOT_FOUND, "%s: the node '%s' is not in the graph", what, full);
  else if (idx >= TF_OperationNumOutputs(o) && strchr(bare, ':'))
    tfc_status_set(s, TFC_NOT_FOUND, "%s: the node '%s' has no output %d", what, full, idx);
  if (k) *k = idx;
  free(op);
  free(full);
  return tfc_status_ok(s) ? o : NULL;
}

/* Whether two messages serialize to the same bytes. */
static int same_message(const ProtobufCMessage *x, const ProtobufCMessage *y) {
  size_t nx = protobuf_c_message_get_packed_size(x), ny = protobuf_c_message_get_packed_size(y);
  if (nx != ny) return 0;
  uint8_t *bx = malloc(nx + 1), *by = malloc(ny + 1);
  int same = bx && by && protobuf_c_message_pack(x, bx) == nx && protobuf_c_message_pack(y, by) == ny &&
             memcmp(bx, by, nx) == 0;
  free(bx);
  free(by);
  return same;
}

static const Tensorflow__OpDef__AttrDef *attr_def(const Tensorflow__OpDef *op, const char *name) {
  for (size_t i = 0; op && i < op->n_attr; i++)
    if (strcmp(op->attr[i]->name, name) == 0) return op->attr[i];
  return NULL;
}

typedef struct local_op {
  const char *type;
  Tensorflow__OpDef *def; /* NULL: no such op here (a function) */
} local_op;

/* This process's OpDef of type (cached in *cache). */
static Tensorflow__OpDef *local_def(TF_Graph *graph, const char *type, local_op **cache, int *n, tfc_status *s) {
  for (int i = 0; i < *n; i++)
    if (strcmp((*cache)[i].type, type) == 0) return (*cache)[i].def;
  local_op *c = realloc(*cache, sizeof *c * (size_t)(*n + 1));
  if (!c) {
    TFC_OOM(s);
    return NULL;
  }
  *cache = c;
  Tensorflow__OpDef *def = NULL;
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *st = TF_NewStatus();
  if (b && st) {
    TF_GraphGetOpDef(graph, type, b, st);
    tfc_status ignored;
    tfc_status_init(&ignored);
    if (TF_GetCode(st) == TF_OK)
      def = (Tensorflow__OpDef *)tfc_pb_unpack(&tensorflow__op_def__descriptor, b->data, b->length, "OpDef", &ignored);
    tfc_status_fini(&ignored);
  }
  TF_DeleteBuffer(b);
  TF_DeleteStatus(st);
  c[(*n)++] = (local_op){type, def};
  return def;
}

/* The GraphDef made ready for import: devices cleared (clear), and TF's forward-compatibility
 * rule applied with the producer's op list (importer._RemoveDefaultAttrs): an attr this
 * process's OpDef lacks is dropped when the producer's OpDef has it with that value as its
 * default. *out is heap bytes, or NULL when nothing changed. */
static int prepare_graph_def(TF_Graph *graph, const ProtobufCBinaryData *gd, const ProtobufCBinaryData *producer,
                             int clear, void **out, size_t *out_len, tfc_status *s) {
  *out = NULL;
  *out_len = 0;
  if (!clear && !producer->len) return TFC_OK;
  Tensorflow__GraphDef *g = (Tensorflow__GraphDef *)tfc_pb_unpack(&tensorflow__graph_def__descriptor, gd->data,
                                                                  gd->len, "GraphDef", s);
  if (!g) return s->code;
  Tensorflow__OpList *ops = producer->len ? (Tensorflow__OpList *)tfc_pb_unpack(&tensorflow__op_list__descriptor,
                                                                                 producer->data, producer->len,
                                                                                 "stripped_op_list", s)
                                          : NULL;
  local_op *cache = NULL;
  int n_cache = 0, changed = 0;
  for (size_t i = 0; tfc_status_ok(s) && i < g->n_node; i++) {
    Tensorflow__NodeDef *nd = g->node[i];
    if (clear && nd->device && nd->device[0]) {
      nd->device[0] = '\0';
      changed = 1;
    }
    const Tensorflow__OpDef *theirs = NULL;
    for (size_t k = 0; ops && k < ops->n_op && !theirs; k++)
      if (strcmp(ops->op[k]->name, nd->op) == 0) theirs = ops->op[k];
    if (!theirs) continue;
    const Tensorflow__OpDef *ours = local_def(graph, nd->op, &cache, &n_cache, s);
    if (!ours) continue;
    size_t kept = 0;
    for (size_t k = 0; k < nd->n_attr; k++) {
      Tensorflow__NodeDef__AttrEntry *e = nd->attr[k];
      const Tensorflow__OpDef__AttrDef *d = e->key[0] == '_' || attr_def(ours, e->key) ? NULL : attr_def(theirs, e->key);
      if (d && d->default_value && e->value && same_message(&d->default_value->base, &e->value->base)) {
        protobuf_c_message_free_unpacked(&e->base, NULL);
        changed = 1;
      } else {
        nd->attr[kept++] = e;
      }
    }
    nd->n_attr = kept;
  }
  if (tfc_status_ok(s) && changed) tfc_pb_pack(&g->base, out, out_len, s);
  for (int i = 0; i < n_cache; i++)
    if (cache[i].def) protobuf_c_message_free_unpacked(&cache[i].def->base, NULL);
  free(cache);
  if (ops) protobuf_c_message_free_unpacked(&ops->base, NULL);
  protobuf_c_message_free_unpacked(&g->base, NULL);
  return s->code;
}

/* A GraphDef's bytes rewritten with every node's device cleared (heap; *out_len). */
static int clear_devices(const void *gd, size_t len, void **out, size_t *out_len, tfc_status *s) {
  ProtobufCBinaryData b = {len, (uint8_t *)gd}, none = {0, NULL};
  if (prepare_graph_def(NULL, &b, &none, 1, out, out_len, s)) return s->code;
  if (!*out) { /* nothing to clear: the bytes as they are */
    *out = malloc(len + 1);
    if (!*out) return TFC_OOM(s);
    if (len) memcpy(*out, gd, len);
    *out_len = len;
  }
  return TFC_OK;
}

/* ---------------------------------------------------------------- export */

typedef struct copied_entry {
  char *key;
  int n;
  TF_Operation **ops;
} copied_entry;

typedef struct snapshot {
  bld_var *vars;
  int n_vars;
  int has_step;
  TFC_Variable step;
  copied_entry *entries;
  int n_entries;
} snapshot;

static void snapshot_free(snapshot *sn) {
  for (int i = 0; i < sn->n_entries; i++) {
    free(sn->entries[i].key);
    free(sn->entries[i].ops);
  }
  free(sn->entries);
  free(sn->vars);
}

/* The builders' variables, global step and collection entries, copied under the lock. */
static int take_snapshot(TF_Graph *graph, snapshot *sn, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  memset(sn, 0, sizeof *sn);
  if (bld_begin(&c, graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return TFC_INVALID_ARGUMENT;
  }
  bld_state *st = c.st;
  sn->vars = malloc(sizeof *sn->vars * (size_t)(st->n_vars + 1));
  sn->entries = calloc((size_t)st->n_entries + 1, sizeof *sn->entries);
  if (!sn->vars || !sn->entries) {
    TFC_OOM(c.s);
  } else {
    if (st->n_vars) memcpy(sn->vars, st->vars, sizeof *sn->vars * (size_t)st->n_vars);
    sn->n_vars = st->n_vars;
    sn->has_step = st->has_global_step;
    sn->step = st->global_step;
    for (int i = 0; i < st->n_entries && tfc_status_ok(c.s); i++) {
      copied_entry *e = &sn->entries[sn->n_entries];
      e->key = strdup(st->entries[i].collection);
      e->ops = malloc(sizeof *e->ops * (size_t)(st->entries[i].n + 1));
      if (!e->key || !e->ops) {
        free(e->key);
        free(e->ops);
        TFC_OOM(c.s);
        break;
      }
      e->n = st->entries[i].n;
      for (int k = 0; k < e->n; k++) e->ops[k] = tfc_capi_oper(st->entries[i].nodes[k]);
      sn->n_entries++;
    }
  }
  int rc = bld_end(&c);
  if (rc != TFC_OK) snapshot_free(sn);
  tfc_status_fini(&scratch);
  return rc;
}

/* "<op>:<k>" in the arena. */
static char *tensor_name(tfc_pb_arena *a, TF_Operation *op, int k) {
  char buf[32];
  snprintf(buf, sizeof buf, ":%d", k);
  const char *n = TF_OperationName(op);
  char *out = tfc_pb_alloc(a, strlen(n) + strlen(buf) + 1);
  if (out) {
    strcpy(out, n);
    strcat(out, buf);
  }
  return out;
}

/* A serialized VariableDef of v (bytes in the arena). */
static ProtobufCBinaryData variable_def(tfc_pb_arena *a, const TFC_Variable *v, int trainable, tfc_status *s) {
  ProtobufCBinaryData out = {0, NULL};
  Tensorflow__VariableDef d = TENSORFLOW__VARIABLE_DEF__INIT;
  d.variable_name = tensor_name(a, v->variable, 0);
  d.initializer_name = tfc_pb_strdup(a, TF_OperationName(v->initializer));
  d.snapshot_name = tensor_name(a, v->value.oper, v->value.index);
  if (TF_OperationNumInputs(v->initializer) > 1) {
    TF_Output iv = TF_OperationInput((TF_Input){v->initializer, 1});
    d.initial_value_name = tensor_name(a, iv.oper, iv.index);
  }
  d.trainable = trainable != 0;
  if (tfc_pb_arena_status(a, s)) return out;
  void *data;
  size_t len;
  if (tfc_pb_pack(&d.base, &data, &len, s)) return out;
  out.data = tfc_pb_alloc(a, len + 1);
  if (out.data) {
    if (len) memcpy(out.data, data, len);
    out.len = len;
  }
  free(data);
  tfc_pb_arena_status(a, s);
  return out;
}

static ProtobufCBinaryData queue_runner_def(tfc_pb_arena *a, const copied_entry *e, tfc_status *s) {
  ProtobufCBinaryData out = {0, NULL};
  Tensorflow__QueueRunnerDef d = TENSORFLOW__QUEUE_RUNNER_DEF__INIT;
  int32_t closed[1] = {OUT_OF_RANGE_CODE};
  d.queue_name = tfc_pb_strdup(a, TF_OperationName(e->ops[0]));
  if (e->n > 1) d.close_op_name = tfc_pb_strdup(a, TF_OperationName(e->ops[1]));
  if (e->n > 2) d.cancel_op_name = tfc_pb_strdup(a, TF_OperationName(e->ops[2]));
  d.n_enqueue_op_name = e->n > 3 ? (size_t)(e->n - 3) : 0;
  d.enqueue_op_name = tfc_pb_alloc(a, sizeof(char *) * (d.n_enqueue_op_name + 1));
  for (size_t i = 0; d.enqueue_op_name && i < d.n_enqueue_op_name; i++)
    d.enqueue_op_name[i] = tfc_pb_strdup(a, TF_OperationName(e->ops[3 + i]));
  d.n_queue_closed_exception_types = 1;
  d.queue_closed_exception_types = closed;
  if (tfc_pb_arena_status(a, s)) return out;
  void *data;
  size_t len;
  if (tfc_pb_pack(&d.base, &data, &len, s)) return out;
  out.data = tfc_pb_alloc(a, len + 1);
  if (out.data) {
    if (len) memcpy(out.data, data, len);
    out.len = len;
  }
  free(data);
  tfc_pb_arena_status(a, s);
  return out;
}

/* A collection entry of the arena with room for n values of the kind. */
static CollectionEntry *new_entry(tfc_pb_arena *a, const char *key, int kind, size_t n) {
  CollectionEntry *e = tfc_pb_alloc(a, sizeof *e);
  CollectionDef *cd = tfc_pb_alloc(a, sizeof *cd);
  if (!e || !cd) return NULL;
  *e = (CollectionEntry)TENSORFLOW__META_GRAPH_DEF__COLLECTION_DEF_ENTRY__INIT;
  *cd = (CollectionDef)TENSORFLOW__COLLECTION_DEF__INIT;
  e->key = tfc_pb_strdup(a, key);
  e->value = cd;
  cd->kind_case = (Tensorflow__CollectionDef__KindCase)kind;
  switch (kind) {
    case TFC_COLLECTION_NODE_LIST:
      cd->node_list = tfc_pb_alloc(a, sizeof *cd->node_list);
      if (!cd->node_list) return NULL;
      *cd->node_list = (Tensorflow__CollectionDef__NodeList)TENSORFLOW__COLLECTION_DEF__NODE_LIST__INIT;
      cd->node_list->value = tfc_pb_alloc(a, sizeof(char *) * (n + 1));
      break;
    case TFC_COLLECTION_BYTES_LIST:
      cd->bytes_list = tfc_pb_alloc(a, sizeof *cd->bytes_list);
      if (!cd->bytes_list) return NULL;
      *cd->bytes_list = (Tensorflow__CollectionDef__BytesList)TENSORFLOW__COLLECTION_DEF__BYTES_LIST__INIT;
      cd->bytes_list->value = tfc_pb_alloc(a, sizeof(ProtobufCBinaryData) * (n + 1));
      break;
    case TFC_COLLECTION_INT64_LIST:
      cd->int64_list = tfc_pb_alloc(a, sizeof *cd->int64_list);
      if (!cd->int64_list) return NULL;
      *cd->int64_list = (Tensorflow__CollectionDef__Int64List)TENSORFLOW__COLLECTION_DEF__INT64_LIST__INIT;
      cd->int64_list->value = tfc_pb_alloc(a, sizeof(int64_t) * (n + 1));
      break;
    default:
      cd->float_list = tfc_pb_alloc(a, sizeof *cd->float_list);
      if (!cd->float_list) return NULL;
      *cd->float_list = (Tensorflow__CollectionDef__FloatList)TENSORFLOW__COLLECTION_DEF__FLOAT_LIST__INIT;
      cd->float_list->value = tfc_pb_alloc(a, sizeof(float) * (n + 1));
  }
  return a->oom ? NULL : e;
}

static int strcmp_ptr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int wanted(const char *key, const char *const *list, int n) {
  if (!list) return 1;
  for (int i = 0; i < n; i++)
    if (list[i] && strcmp(list[i], key) == 0) return 1;
  return 0;
}

/* The OpList of the graph's op types (sorted, each once), serialized by hand around the
 * OpDefs TF_GraphGetOpDef gives (field 1, length-delimited). Heap bytes. */
static int stripped_op_list(TF_Graph *graph, uint8_t **out, size_t *out_len, tfc_status *s) {
  size_t pos = 0, n = 0, cap = 64;
  const char **types = malloc(sizeof *types * cap);
  TF_Operation *op;
  *out = NULL;
  *out_len = 0;
  while (types && (op = TF_GraphNextOperation(graph, &pos))) {
    if (n == cap) {
      const char **t = realloc(types, sizeof *types * (cap *= 2));
      if (!t) {
        free(types);
        types = NULL;
        break;
      }
      types = t;
    }
    types[n++] = TF_OperationOpType(op);
  }
  if (!types) return TFC_OOM(s);
  qsort(types, n, sizeof *types, strcmp_ptr);
  size_t len = 0;
  uint8_t *buf = NULL;
  TF_Status *st = TF_NewStatus();
  if (!st) TFC_OOM(s);
  for (size_t i = 0; st && i < n && tfc_status_ok(s); i++) {
    if (i > 0 && strcmp(types[i], types[i - 1]) == 0) continue;
    TF_Buffer *def = TF_NewBuffer();
    if (!def) {
      TFC_OOM(s);
      break;
    }
    TF_GraphGetOpDef(graph, types[i], def, st);
    uint8_t *b = TF_GetCode(st) == TF_OK ? realloc(buf, len + def->length + 11) : buf; /* a function: no OpDef */
    if (!b) {
      TFC_OOM(s);
    } else if (TF_GetCode(st) == TF_OK) {
      buf = b;
      buf[len++] = 0x0a; /* field 1, length-delimited */
      len += tfc_pb_put_varint(buf + len, def->length);
      memcpy(buf + len, def->data, def->length);
      len += def->length;
    }
    TF_DeleteBuffer(def);
  }
  TF_DeleteStatus(st);
  free(types);
  if (!tfc_status_ok(s)) {
    free(buf);
    return s->code;
  }
  *out = buf;
  *out_len = len;
  return TFC_OK;
}

/* The export's collections from the builders' snapshot, appended to m (arena memory). */
static int export_collections(tfc_pb_arena *a, const snapshot *sn, const char *const *list, int n_list,
                              CollectionEntry **entries, size_t *n_entries, tfc_status *s) {
  /* 1. The variable collections and the global step. */
  static const char *const var_keys[3] = {"variables", "trainable_variables", "local_variables"};
  for (int k = 0; k < 3 && tfc_status_ok(s); k++) {
    if (!wanted(var_keys[k], list, n_list)) continue;
    int count = 0;
    for (int i = 0; i < sn->n_vars; i++)
      count += k == 0 ? sn->vars[i].global : k == 1 ? sn->vars[i].trainable : sn->vars[i].local;
    if (!count) continue;
    CollectionEntry *e = new_entry(a, var_keys[k], TFC_COLLECTION_BYTES_LIST, (size_t)count);
    if (!e) return TFC_OOM(s);
    for (int i = 0; i < sn->n_vars && tfc_status_ok(s); i++) {
      const bld_var *v = &sn->vars[i];
      if (!(k == 0 ? v->global : k == 1 ? v->trainable : v->local)) continue;
      e->value->bytes_list->value[e->value->bytes_list->n_value++] = variable_def(a, &v->v, v->trainable, s);
    }
    entries[(*n_entries)++] = e;
  }
  if (sn->has_step && wanted("global_step", list, n_list) && tfc_status_ok(s)) {
    CollectionEntry *e = new_entry(a, "global_step", TFC_COLLECTION_BYTES_LIST, 1);
    if (!e) return TFC_OOM(s);
    e->value->bytes_list->value[e->value->bytes_list->n_value++] = variable_def(a, &sn->step, 0, s);
    entries[(*n_entries)++] = e;
  }
  /* 2. The builders' other collections, in the order their keys first appear. */
  for (int i = 0; i < sn->n_entries && tfc_status_ok(s); i++) {
    const char *key = sn->entries[i].key;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = strcmp(sn->entries[j].key, key) == 0;
    if (seen || !wanted(key, list, n_list)) continue;
    int count = 0;
    for (int j = i; j < sn->n_entries; j++) count += strcmp(sn->entries[j].key, key) == 0;
    int runners = strcmp(key, "queue_runners") == 0, summaries = strcmp(key, "summaries") == 0;
    CollectionEntry *e = new_entry(a, key, runners ? TFC_COLLECTION_BYTES_LIST : TFC_COLLECTION_NODE_LIST,
                                   (size_t)count);
    if (!e) return TFC_OOM(s);
    for (int j = i; j < sn->n_entries && tfc_status_ok(s); j++) {
      const copied_entry *ce = &sn->entries[j];
      if (strcmp(ce->key, key) != 0) continue;
      if (runners) {
        e->value->bytes_list->value[e->value->bytes_list->n_value++] = queue_runner_def(a, ce, s);
      } else {
        Tensorflow__CollectionDef__NodeList *nl = e->value->node_list;
        nl->value[nl->n_value++] = summaries ? tensor_name(a, ce->ops[0], 0) : tfc_pb_strdup(a, TF_OperationName(ce->ops[0]));
      }
    }
    entries[(*n_entries)++] = e;
  }
  return tfc_status_ok(s) ? tfc_pb_arena_status(a, s) : s->code;
}

TFC_EXPORT TFC_MetaGraph *TFC_ExportMetaGraph(TF_Graph *graph, const TFC_SaverDef *saver_def,
                                              const char *const *collection_list, int n_collections, int flags,
                                              TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_MetaGraph *mg = NULL;
  TF_Buffer *gd = NULL;
  void *gd_data = NULL, *packed = NULL;
  size_t gd_len = 0, packed_len = 0;
  uint8_t *ops = NULL;
  size_t ops_len = 0;
  snapshot sn;
  memset(&sn, 0, sizeof sn);
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  if (!graph || n_collections < 0 || (n_collections > 0 && !collection_list)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ExportMetaGraph: %s", !graph ? "graph is NULL" : "bad collection list");
    goto done;
  }
  /* 1. The GraphDef (devices cleared on request) and the op list. */
  if (!(gd = TF_NewBuffer())) {
    TFC_OOM(s);
    goto done;
  }
  TF_Status *st = TF_NewStatus();
  if (!st) {
    TFC_OOM(s);
    goto done;
  }
  TF_GraphToGraphDef(graph, gd, st);
  if (TF_GetCode(st) != TF_OK) tfc_status_set(s, (int)TF_GetCode(st), "%s", TF_Message(st));
  TF_DeleteStatus(st);
  if (!tfc_status_ok(s)) goto done;
  if (flags & TFC_META_GRAPH_CLEAR_DEVICES) {
    if (clear_devices(gd->data, gd->length, &gd_data, &gd_len, s)) goto done;
  }
  if (stripped_op_list(graph, &ops, &ops_len, s)) goto done;
  /* 2. The builders' collections. */
  if (take_snapshot(graph, &sn, (TF_Status *)s) != TFC_OK) goto done;
  /* 3. The message. */
  MetaGraphDef m = TENSORFLOW__META_GRAPH_DEF__INIT;
  Tensorflow__MetaGraphDef__MetaInfoDef info = TENSORFLOW__META_GRAPH_DEF__META_INFO_DEF__INIT;
  Tensorflow__SaverDef sd = TENSORFLOW__SAVER_DEF__INIT;
  info.stripped_op_list = (ProtobufCBinaryData){ops_len, ops};
  info.tensorflow_version = (char *)TF_Version();
  info.tensorflow_git_version = "unknown";
  m.meta_info_def = &info;
  m.graph_def = gd_data ? (ProtobufCBinaryData){gd_len, gd_data} : (ProtobufCBinaryData){gd->length, (uint8_t *)gd->data};
  if (saver_def) {
    sd.filename_tensor_name = (char *)(saver_def->filename_tensor_name ? saver_def->filename_tensor_name : "");
    sd.save_tensor_name = (char *)(saver_def->save_tensor_name ? saver_def->save_tensor_name : "");
    sd.restore_op_name = (char *)(saver_def->restore_op_name ? saver_def->restore_op_name : "");
    sd.max_to_keep = saver_def->max_to_keep;
    sd.sharded = saver_def->sharded != 0;
    sd.keep_checkpoint_every_n_hours = (float)saver_def->keep_checkpoint_every_n_hours;
    sd.version = (Tensorflow__SaverDef__CheckpointFormatVersion)saver_def->version;
    m.saver_def = &sd;
  }
  CollectionEntry **entries = tfc_pb_alloc(&a, sizeof *entries * (size_t)(sn.n_entries + 5));
  size_t n_entries = 0;
  if (!entries) {
    TFC_OOM(s);
    goto done;
  }
  if (export_collections(&a, &sn, collection_list, n_collections, entries, &n_entries, s)) goto done;
  m.n_collection_def = n_entries;
  m.collection_def = entries;
  if (tfc_pb_pack(&m.base, &packed, &packed_len, s)) goto done;
  mg = from_bytes(packed, packed_len, s);
done:
  snapshot_free(&sn);
  tfc_pb_arena_fini(&a);
  TF_DeleteBuffer(gd);
  free(gd_data);
  free(ops);
  free(packed);
  tfc_status_fini(&scratch);
  return mg;
}

/* ---------------------------------------------------------------- adding collections */

/* Packs mg without key's entries, appends the entry e (a packed map entry), reparses. */
static int replace_collection(TFC_MetaGraph *mg, const char *key, const CollectionEntry *e, tfc_status *s) {
  MetaGraphDef *m = mg->m;
  size_t k = 0;
  for (size_t i = 0; i < m->n_collection_def; i++) {
    if (strcmp(m->collection_def[i]->key, key) == 0) protobuf_c_message_free_unpacked(&m->collection_def[i]->base, NULL);
    else m->collection_def[k++] = m->collection_def[i];
  }
  m->n_collection_def = k;
  void *base = NULL, *entry = NULL;
  size_t base_len = 0, entry_len = 0;
  int rc = tfc_pb_pack(&m->base, &base, &base_len, s);
  if (rc == TFC_OK) rc = tfc_pb_pack(&e->base, &entry, &entry_len, s);
  uint8_t *all = rc == TFC_OK ? malloc(base_len + entry_len + 11) : NULL;
  if (rc == TFC_OK && !all) rc = TFC_OOM(s);
  if (rc == TFC_OK) {
    if (base_len) memcpy(all, base, base_len);
    size_t n = base_len;
    all[n++] = 0x22; /* field 4 (collection_def), length-delimited */
    n += tfc_pb_put_varint(all + n, entry_len);
    if (entry_len) memcpy(all + n, entry, entry_len);
    rc = reset_from_bytes(mg, all, n + entry_len, s);
  }
  free(all);
  free(base);
  free(entry);
  return rc;
}

static int add_check(TFC_MetaGraph *mg, const char *key, const void *values, int n, tfc_status *s) {
  if (!mg || !key || !*key || n < 0 || (n > 0 && !values))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_MetaGraphAdd*List: %s",
                          !mg ? "mg is NULL" : !key || !*key ? "the key is empty" : "bad values");
  return TFC_OK;
}

TFC_EXPORT void TFC_MetaGraphAddNodeList(TFC_MetaGraph *mg, const char *key, const char *const *names, int n,
                                         TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  if (add_check(mg, key, names, n, s) == TFC_OK) {
    CollectionEntry *e = new_entry(&a, key, TFC_COLLECTION_NODE_LIST, (size_t)n);
    for (int i = 0; e && i < n; i++) e->value->node_list->value[i] = (char *)(names[i] ? names[i] : "");
    if (e) e->value->node_list->n_value = (size_t)n;
    if (!e || a.oom) TFC_OOM(s);
    else replace_collection(mg, key, e, s);
  }
  tfc_pb_arena_fini(&a);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_MetaGraphAddBytesList(TFC_MetaGraph *mg, const char *key, const void *const *values,
                                          const size_t *lengths, int n, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  if (add_check(mg, key, values, n, s) == TFC_OK && (n == 0 || lengths)) {
    CollectionEntry *e = new_entry(&a, key, TFC_COLLECTION_BYTES_LIST, (size_t)n);
    for (int i = 0; e && i < n; i++)
      e->value->bytes_list->value[i] = (ProtobufCBinaryData){values[i] ? lengths[i] : 0, (uint8_t *)values[i]};
    if (e) e->value->bytes_list->n_value = (size_t)n;
    if (!e || a.oom) TFC_OOM(s);
    else replace_collection(mg, key, e, s);
  } else if (tfc_status_ok(s)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_MetaGraphAddBytesList: lengths is NULL");
  }
  tfc_pb_arena_fini(&a);
  tfc_status_fini(&scratch);
}

/* TFC_MetaGraphAddInt64List / AddFloatList: n values of elem bytes each into a new collection
 * of `kind` (TFC_COLLECTION_INT64_LIST or _FLOAT_LIST) replacing key's. */
static void add_numeric_list(TFC_MetaGraph *mg, const char *key, int kind, const void *values, size_t elem, int n,
                             TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  if (add_check(mg, key, values, n, s) == TFC_OK) {
    CollectionEntry *e = new_entry(&a, key, kind, (size_t)n);
    if (e) {
      void *dst;
      if (kind == TFC_COLLECTION_INT64_LIST) {
        dst = e->value->int64_list->value;
        e->value->int64_list->n_value = (size_t)n;
      } else {
        dst = e->value->float_list->value;
        e->value->float_list->n_value = (size_t)n;
      }
      if (n) memcpy(dst, values, elem * (size_t)n);
    }
    if (!e || a.oom) TFC_OOM(s);
    else replace_collection(mg, key, e, s);
  }
  tfc_pb_arena_fini(&a);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_MetaGraphAddInt64List(TFC_MetaGraph *mg, const char *key, const int64_t *values, int n,
                                          TF_Status *status) {
  add_numeric_list(mg, key, TFC_COLLECTION_INT64_LIST, values, sizeof *values, n, status);
}

TFC_EXPORT void TFC_MetaGraphAddFloatList(TFC_MetaGraph *mg, const char *key, const float *values, int n,
                                          TF_Status *status) {
  add_numeric_list(mg, key, TFC_COLLECTION_FLOAT_LIST, values, sizeof *values, n, status);
}

/* ---------------------------------------------------------------- bytes and files */

TFC_EXPORT void TFC_MetaGraphToBuffer(const TFC_MetaGraph *mg, TF_Buffer *output, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  void *data = NULL;
  size_t len = 0;
  if (!mg || !output) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_MetaGraphToBuffer: %s is NULL", !mg ? "mg" : "output");
  else if (tfc_capi_check_out_buffer(output, s) == TFC_OK && tfc_pb_pack(&mg->m->base, &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(output, data, len, s);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_WriteMetaGraph(const TFC_MetaGraph *mg, const char *path, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  void *data = NULL;
  size_t len = 0;
  char *tmp = NULL;
  if (!mg || !path || !*path) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_WriteMetaGraph: %s", !mg ? "mg is NULL" : "path is empty");
  } else if (tfc_pb_pack(&mg->m->base, &data, &len, s) == TFC_OK) {
    if (asprintf(&tmp, "%s.tmp%ld", path, (long)getpid()) < 0) {
      tmp = NULL;
      TFC_OOM(s);
    } else {
      FILE *f = fopen(tmp, "wb");
      if (!f) {
        tfc_table_io_error(s, errno, path);
      } else {
        int bad = fwrite(data, 1, len, f) != len || fflush(f) != 0;
        int err = errno;
        if (fclose(f) != 0 && !bad) {
          bad = 1;
          err = errno;
        }
        if (bad) tfc_table_io_error(s, err ? err : EIO, path);
        else if (rename(tmp, path) != 0) tfc_table_io_error(s, errno, path);
        if (!tfc_status_ok(s)) unlink(tmp);
      }
    }
  }
  free(tmp);
  free(data);
  tfc_status_fini(&scratch);
}

TFC_EXPORT TFC_MetaGraph *TFC_NewMetaGraphFromBuffer(const void *data, size_t len, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_MetaGraph *mg = NULL;
  if (!data && len) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_NewMetaGraphFromBuffer: data is NULL");
  else mg = from_bytes(data ? data : "", len, s);
  tfc_status_fini(&scratch);
  return mg;
}

TFC_EXPORT TFC_MetaGraph *TFC_ReadMetaGraph(const char *path, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_MetaGraph *mg = NULL;
  char *buf = NULL;
  size_t len = 0;
  int rc = path ? tfc_file_read_all(path, &buf, &len) : 0;
  if (!path) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ReadMetaGraph: path is NULL");
  } else if (rc == -2) {
    TFC_OOM(s);
  } else if (rc) {
    tfc_table_io_error(s, (rc == -1 || errno) ? errno : EIO, path);
  } else {
    mg = from_bytes(buf, len, s);
    if (!mg) tfc_status_prefix(s, "%s: ", path);
  }
  free(buf);
  tfc_status_fini(&scratch);
  return mg;
}

TFC_EXPORT void TFC_DeleteMetaGraph(TFC_MetaGraph *mg) {
  if (!mg) return;
  protobuf_c_message_free_unpacked(&mg->m->base, NULL);
  free(mg);
}

/* ---------------------------------------------------------------- import */

/* The TFC_Variable a VariableDef names, below scope. */
static int variable_of(TF_Graph *graph, const char *scope, const ProtobufCBinaryData *b, TFC_Variable *out,
                       tfc_status *s) {
  Tensorflow__VariableDef *d = (Tensorflow__VariableDef *)tfc_pb_unpack(&tensorflow__variable_def__descriptor, b->data,
                                                                        b->len, "VariableDef", s);
  if (!d) return s->code;
  int k = 0;
  out->variable = lookup(graph, scope, d->variable_name, "VariableDef.variable_name", NULL, s);
  out->initializer = out->variable ? lookup(graph, scope, d->initializer_name, "VariableDef.initializer_name", NULL, s)
                                   : NULL;
  out->value.oper = out->initializer ? lookup(graph, scope, d->snapshot_name, "VariableDef.snapshot_name", &k, s) : NULL;
  out->value.index = k;
  protobuf_c_message_free_unpacked(&d->base, NULL);
  return s->code;
}

/* Records the imported variables in the builders' lists: each once, with the bits of every
 * variable collection it is in. */
static int import_variables(TF_Graph *graph, const TFC_MetaGraph *mg, const char *scope, tfc_status *s) {
  static const char *const keys[3] = {"variables", "trainable_variables", "local_variables"};
  static const int bits[3] = {TFC_VARIABLE_GLOBAL, TFC_VARIABLE_TRAINABLE, TFC_VARIABLE_LOCAL};
  TFC_Variable *vars = NULL;
  int *flags = NULL, n = 0, cap = 0;
  for (int k = 0; k < 3 && tfc_status_ok(s); k++) {
    const CollectionDef *cd = find_collection(mg, keys[k]);
    if (!cd || cd->kind_case != TENSORFLOW__COLLECTION_DEF__KIND_BYTES_LIST) continue;
    for (size_t i = 0; i < cd->bytes_list->n_value && tfc_status_ok(s); i++) {
      TFC_Variable v;
      if (variable_of(graph, scope, &cd->bytes_list->value[i], &v, s)) break;
      int j = 0;
      while (j < n && vars[j].variable != v.variable) j++;
      if (j == n) {
        if (n == cap) {
          cap = cap ? 2 * cap : 16;
          TFC_Variable *nv = realloc(vars, sizeof *vars * (size_t)cap);
          int *nf = nv ? realloc(flags, sizeof *flags * (size_t)cap) : NULL;
          if (nv) vars = nv;
          if (nf) flags = nf;
          if (!nv || !nf) {
            TFC_OOM(s);
            break;
          }
        }
        vars[n] = v;
        flags[n++] = 0;
      }
      flags[j] |= bits[k];
    }
  }
  for (int i = 0; i < n && tfc_status_ok(s); i++) TFC_SetVariableCollections(graph, &vars[i], flags[i], (TF_Status *)s);
  free(vars);
  free(flags);
  return s->code;
}

/* The summaries, queue runners and other node lists as builder collection entries. */
static int import_entries(TF_Graph *graph, const TFC_MetaGraph *mg, const char *scope, tfc_status *s) {
  for (size_t i = 0; i < mg->m->n_collection_def && tfc_status_ok(s); i++) {
    const char *key = mg->m->collection_def[i]->key;
    const CollectionDef *cd = mg->m->collection_def[i]->value;
    if (!cd || find_collection(mg, key) != cd) continue; /* a later entry of the key wins */
    if (cd->kind_case == TENSORFLOW__COLLECTION_DEF__KIND_NODE_LIST) {
      for (size_t j = 0; j < cd->node_list->n_value && tfc_status_ok(s); j++) {
        TF_Operation *op = lookup(graph, scope, cd->node_list->value[j], key, NULL, s);
        if (op) TFC_AddToCollection(graph, key, &op, 1, (TF_Status *)s);
      }
    } else if (cd->kind_case == TENSORFLOW__COLLECTION_DEF__KIND_BYTES_LIST && strcmp(key, "queue_runners") == 0) {
      for (size_t j = 0; j < cd->bytes_list->n_value && tfc_status_ok(s); j++) {
        const ProtobufCBinaryData *b = &cd->bytes_list->value[j];
        Tensorflow__QueueRunnerDef *d = (Tensorflow__QueueRunnerDef *)tfc_pb_unpack(
            &tensorflow__queue_runner_def__descriptor, b->data, b->len, "QueueRunnerDef", s);
        if (!d) break;
        TF_Operation **ops = calloc(d->n_enqueue_op_name + 3, sizeof *ops);
        if (!ops) TFC_OOM(s);
        const char *names[3] = {d->queue_name, d->close_op_name, d->cancel_op_name};
        for (int k = 0; ops && k < 3 && tfc_status_ok(s); k++)
          ops[k] = lookup(graph, scope, names[k] ? names[k] : "", "QueueRunnerDef", NULL, s);
        for (size_t k = 0; ops && k < d->n_enqueue_op_name && tfc_status_ok(s); k++)
          ops[3 + k] = lookup(graph, scope, d->enqueue_op_name[k], "QueueRunnerDef.enqueue_op_name", NULL, s);
        if (tfc_status_ok(s)) TFC_AddToCollection(graph, key, ops, (int)d->n_enqueue_op_name + 3, (TF_Status *)s);
        free(ops);
        protobuf_c_message_free_unpacked(&d->base, NULL);
      }
    }
  }
  return s->code;
}

TFC_EXPORT void TFC_ImportMetaGraph(TF_Graph *graph, const TFC_MetaGraph *mg, const char *import_scope, int flags,
                                    TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  void *cleared = NULL;
  size_t cleared_len = 0;
  TF_Buffer *buf = NULL;
  TF_ImportGraphDefOptions *opts = NULL;
  const char *scope = import_scope && *import_scope ? import_scope : NULL;
  if (!graph || !mg) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ImportMetaGraph: %s is NULL", !graph ? "graph" : "mg");
    goto done;
  }
  /* 1. The graph (devices cleared on request), under the scope. */
  const ProtobufCBinaryData none = {0, NULL};
  const ProtobufCBinaryData *producer = mg->m->meta_info_def ? &mg->m->meta_info_def->stripped_op_list : &none;
  if (prepare_graph_def(graph, &mg->m->graph_def, producer, (flags & TFC_META_GRAPH_CLEAR_DEVICES) != 0, &cleared,
                        &cleared_len, s))
    goto done;
  const ProtobufCBinaryData *gd = &mg->m->graph_def;
  if (!(buf = TF_NewBuffer()) || !(opts = TF_NewImportGraphDefOptions())) {
    TFC_OOM(s);
    goto done;
  }
  buf->data = cleared ? cleared : (const void *)gd->data;
  buf->length = cleared ? cleared_len : gd->len;
  if (scope) TF_ImportGraphDefOptionsSetPrefix(opts, scope);
  if (flags & TFC_META_GRAPH_UNIQUIFY_NAMES) TF_ImportGraphDefOptionsSetUniquifyNames(opts, 1);
  TF_Status *st = TF_NewStatus();
  if (!st) {
    TFC_OOM(s);
    goto done;
  }
  TF_GraphImportGraphDef(graph, buf, opts, st);
  if (TF_GetCode(st) != TF_OK) tfc_status_set(s, (int)TF_GetCode(st), "%s", TF_Message(st));
  TF_DeleteStatus(st);
  if (!tfc_status_ok(s)) goto done;
  /* 2. The builders' collections. */
  if (import_variables(graph, mg, scope, s) == TFC_OK) import_entries(graph, mg, scope, s);
done:
  if (buf) buf->data = NULL;
  TF_DeleteBuffer(buf);
  TF_DeleteImportGraphDefOptions(opts);
  free(cleared);
  tfc_status_fini(&scratch);
}

/* ---------------------------------------------------------------- reading */

TFC_EXPORT int TFC_MetaGraphGetSaverDef(const TFC_MetaGraph *mg, TFC_SaverDef *out) {
  const Tensorflow__SaverDef *d = mg ? mg->m->saver_def : NULL;
  if (!d) return 0;
  out->filename_tensor_name = d->filename_tensor_name;
  out->save_tensor_name = d->save_tensor_name;
  out->restore_op_name = d->restore_op_name;
  out->max_to_keep = d->max_to_keep;
  out->sharded = d->sharded != 0;
  out->keep_checkpoint_every_n_hours = d->keep_checkpoint_every_n_hours;
  out->version = (int)d->version;
  return 1;
}

TFC_EXPORT const void *TFC_MetaGraphGraphDef(const TFC_MetaGraph *mg, size_t *out_len) {
  *out_len = mg->m->graph_def.len;
  return mg->m->graph_def.data ? (const void *)mg->m->graph_def.data : "";
}

TFC_EXPORT int TFC_MetaGraphNumCollections(const TFC_MetaGraph *mg) { return (int)mg->m->n_collection_def; }

TFC_EXPORT const char *TFC_MetaGraphCollectionKey(const TFC_MetaGraph *mg, int i) {
  return i >= 0 && (size_t)i < mg->m->n_collection_def ? mg->m->collection_def[i]->key : NULL;
}

TFC_EXPORT int TFC_MetaGraphCollectionKind(const TFC_MetaGraph *mg, const char *key) {
  const CollectionDef *cd = find_collection(mg, key);
  return cd ? (int)cd->kind_case : 0;
}

TFC_EXPORT int TFC_MetaGraphCollectionSize(const TFC_MetaGraph *mg, const char *key) {
  const CollectionDef *cd = find_collection(mg, key);
  if (!cd) return 0;
  switch (cd->kind_case) {
    case TENSORFLOW__COLLECTION_DEF__KIND_NODE_LIST: return (int)cd->node_list->n_value;
    case TENSORFLOW__COLLECTION_DEF__KIND_BYTES_LIST: return (int)cd->bytes_list->n_value;
    case TENSORFLOW__COLLECTION_DEF__KIND_INT64_LIST: return (int)cd->int64_list->n_value;
    case TENSORFLOW__COLLECTION_DEF__KIND_FLOAT_LIST: return (int)cd->float_list->n_value;
    case TENSORFLOW__COLLECTION_DEF__KIND_ANY_LIST: return (int)cd->any_list->n_value;
    default: return 0;
  }
}

TFC_EXPORT const void *TFC_MetaGraphCollectionBytes(const TFC_MetaGraph *mg, const char *key, int i, size_t *out_len) {
  const CollectionDef *cd = find_collection(mg, key);
  *out_len = 0;
  if (!cd || i < 0 || i >= TFC_MetaGraphCollectionSize(mg, key)) return NULL;
  if (cd->kind_case == TENSORFLOW__COLLECTION_DEF__KIND_NODE_LIST) {
    *out_len = strlen(cd->node_list->value[i]);
    return cd->node_list->value[i];
  }
  const ProtobufCBinaryData *b = cd->kind_case == TENSORFLOW__COLLECTION_DEF__KIND_BYTES_LIST ? &cd->bytes_list->value[i]
                                 : cd->kind_case == TENSORFLOW__COLLECTION_DEF__KIND_ANY_LIST ? &cd->any_list->value[i]
                                                                                              : NULL;
  if (!b) return NULL;
  *out_len = b->len;
  return b->data ? (const void *)b->data : "";
}

TFC_EXPORT int64_t TFC_MetaGraphCollectionInt64(const TFC_MetaGraph *mg, const char *key, int i) {
  const CollectionDef *cd = find_collection(mg, key);
  if (!cd || cd->kind_case != TENSORFLOW__COLLECTION_DEF__KIND_INT64_LIST || i < 0 || (size_t)i >= cd->int64_list->n_value)
    return 0;
  return cd->int64_list->value[i];
}

TFC_EXPORT float TFC_MetaGraphCollectionFloat(const TFC_MetaGraph *mg, const char *key, int i) {
  const CollectionDef *cd = find_collection(mg, key);
  if (!cd || cd->kind_case != TENSORFLOW__COLLECTION_DEF__KIND_FLOAT_LIST || i < 0 || (size_t)i >= cd->float_list->n_value)
    return 0;
  return cd->float_list->value[i];
}
