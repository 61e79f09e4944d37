/*
 * builders/saver — tf.compat.v1.train.Saver (include/tfc/saver.h): the V2 save/restore
 * subgraph with Python's names, and save/restore through a session with the "checkpoint"
 * state file and max_to_keep.
 *
 * The graph is built in one builder call (rolled back on failure), in Python's order:
 * BaseSaverBuilder._build_internal makes the filename placeholders, _AddSaveOps the SaveV2 and
 * its control_dependency, BulkSaverBuilder.bulk_restore the RestoreV2 on /cpu:0, each
 * ReferenceVariableSaveable.restore an Assign, and group() the restore_all NoOp. The
 * variables are sorted by checkpoint name first (Python sorts its saveables). A lookup table
 * (TFC_NewSaverWithTables) is saved as two tensors, its exported keys and values, and restored
 * by a LookupTableImportV2 in place of the Assign (TF's table saveables).
 *
 * The state file (CheckpointState in protobuf text format) is written and read here with C
 * escapes as Python's text_format writes them; see state_write / state_read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "builders/builders_internal.h"
#include "io/bundle.h"
#include "io/table.h"
#include "tfc/meta_graph.h"
#include "tfc/saver.h"

typedef struct tracked {
  char *path;
  double time; /* when it was saved (seconds since the epoch) */
} tracked;

struct TFC_Saver {
  TF_Graph *graph;
  TF_Output filename; /* save/Const:0 */
  TF_Output save;     /* save/control_dependency:0 */
  TF_Operation *save_op, *restore_op;
  char *def_names[3]; /* the SaverDef's tensor and op names (TFC_SaverGetDef) */
  int max_to_keep;
  double keep_hours;  /* keep_checkpoint_every_n_hours */
  double next_keep;   /* a dropped checkpoint saved after this time is kept */
  tracked *last;      /* tracked checkpoints, oldest first */
  int n_last;
  char *swept; /* the save_path whose stale temporaries were removed (first save to it) */
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- building */

/* What the saver saves: a reference variable (var), or a lookup table (table, var NULL) saved
 * as its exported keys and values under "<name>-keys" and "<name>-values" and restored by
 * LookupTableImportV2, as TF's MutableHashTable and DenseHashTable saveables. */
typedef struct saveable {
  const char *name;
  tfc_node *var;
  tfc_node *table;
  tfc_endpoint keys, values;
  char *key_name, *value_name; /* owned */
} saveable;

/* One saved tensor: its checkpoint name, what SaveV2 reads, its dtype. */
typedef struct spec {
  const char *name;
  tfc_endpoint t;
  int dtype;
} spec;

static int n_specs(const saveable *sv, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) k += sv[i].var ? 1 : 2;
  return k;
}

/* The saved tensors of sv in order (specs holds n_specs of them). */
static void fill_specs(const saveable *sv, int n, spec *specs) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (sv[i].var) {
      specs[k++] = (spec){sv[i].name, {sv[i].var, 0}, tfc_dtype_base(sv[i].var->output_types[0])};
    } else {
      specs[k++] = (spec){sv[i].key_name, sv[i].keys, sv[i].keys.node->output_types[sv[i].keys.index]};
      specs[k++] = (spec){sv[i].value_name, sv[i].values, sv[i].values.node->output_types[sv[i].values.index]};
    }
  }
}

static int saveable_cmp(const void *a, const void *b) {
  return strcmp(((const saveable *)a)->name, ((const saveable *)b)->name);
}

/* A rank-1 string Const of the specs' names ("" for all when empty). */
static tfc_endpoint string_vector(bld_call *c, const bld_where *w, const char *name, const spec *sv, int n,
                                  int empty) {
  if (!tfc_status_ok(c->s)) return (tfc_endpoint){NULL, 0};
  int64_t dim = n;
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, &dim, 1, c->s);
  for (int i = 0; t && !empty && i < n; i++)
    if (tfc_tstring_assign(&tfc_tensor_strings(t)[i], sv[i].name, strlen(sv[i].name), c->s)) {
      tfc_tensor_unref(t);
      return (tfc_endpoint){NULL, 0};
    }
  return bld_const(c, w, name, t);
}

static tfc_attr_value dtype_list(bld_call *c, const spec *sv, int n) {
  tfc_attr_value l = tfc_attr_list(TFC_ATTR_TYPE);
  for (int i = 0; i < n; i++) {
    tfc_attr_value t = tfc_attr_type(sv[i].dtype);
    tfc_attr_list_append(&l, &t, c->s);
  }
  return l;
}

/* The saver's nodes under a unique "save" scope below scope_name. */
static void build(bld_call *c, const TFC_Scope *scope, const char *cpu_device, saveable *svs, int n_sv,
                  TFC_Saver *sv_out) {
  int n = n_specs(svs, n_sv);
  spec *sv = calloc((size_t)n + 1, sizeof *sv);
  if (!sv) {
    TFC_OOM(c->s);
    return;
  }
  fill_specs(svs, n_sv, sv);
  /* Python's name_scope(name, "save"): the saver's name, made unique, when given. */
  char *save = bld_unique(c, scope->name, bld_builder_name(scope, "save"));
  char *fscope = save ? bld_unique(c, save, "filename") : NULL;
  char *sscope = fscope ? bld_unique(c, save, "SaveV2") : NULL;
  char *cscope = NULL, *rscope = NULL;
  if (!sscope) goto done;
  bld_where w = bld_where_of(scope, save);
  bld_where wf = w, ws = w;
  wf.scope = fscope;
  ws.scope = sscope;
  /* 1. Filename: Const "model" -> filename -> Const (the fed one). */
  tfc_tensor *model = tfc_tensor_new(TFC_DT_STRING, NULL, 0, c->s);
  if (model && tfc_tstring_assign(&tfc_tensor_strings(model)[0], "model", 5, c->s)) {
    tfc_tensor_unref(model);
    goto done;
  }
  tfc_endpoint input = bld_const(c, &wf, "input", model);
  tfc_shape scalar = tfc_shape_scalar();
  bld_attr pa[2] = {{"dtype", tfc_attr_type(TFC_DT_STRING)}, {"shape", {0}}};
  tfc_attr_shape(&scalar, &pa[1].v, c->s);
  tfc_endpoint fname = bld_op0(c, &w, "PlaceholderWithDefault", "filename/", &input, 1, pa, 2);
  bld_attr pb[2] = {{"dtype", tfc_attr_type(TFC_DT_STRING)}, {"shape", {0}}};
  tfc_attr_shape(&scalar, &pb[1].v, c->s);
  tfc_endpoint fconst = bld_op0(c, &w, "PlaceholderWithDefault", "Const", &fname, 1, pb, 2);
  /* 2. SaveV2 and save/control_dependency. */
  tfc_endpoint *ins = calloc((size_t)n + 3, sizeof *ins);
  if (!ins) {
    TFC_OOM(c->s);
    goto done;
  }
  ins[0] = fconst;
  ins[1] = string_vector(c, &ws, "tensor_names", sv, n, 0);
  ins[2] = string_vector(c, &ws, "shape_and_slices", sv, n, 1);
  for (int i = 0; i < n; i++) ins[3 + i] = sv[i].t;
  bld_attr sa[1] = {{"dtypes", dtype_list(c, sv, n)}};
  tfc_node *save_op = bld_op(c, &w, "SaveV2", "SaveV2/", ins, n + 3, sa, 1);
  free(ins);
  cscope = bld_unique(c, save, "control_dependency");
  tfc_endpoint saved = {NULL, 0};
  if (cscope) {
    bld_where wc = w;
    wc.coloc = fconst.node;
    wc.ctrl = &save_op;
    wc.n_ctrl = save_op ? 1 : 0;
    saved = bld_op0(c, &wc, "Identity", "control_dependency/", &fconst, 1, NULL, 0);
  }
  /* 3. RestoreV2 on the CPU, one Assign per variable, restore_all. */
  rscope = bld_unique(c, save, "RestoreV2");
  if (!rscope) goto done;
  bld_where wr = w, wrs = w;
  wr.device = cpu_device;
  wrs.device = cpu_device;
  wrs.scope = rscope;
  tfc_endpoint rin[3] = {fconst, string_vector(c, &wrs, "tensor_names", sv, n, 0),
                         string_vector(c, &wrs, "shape_and_slices", sv, n, 1)};
  bld_attr ra[1] = {{"dtypes", dtype_list(c, sv, n)}};
  tfc_node *restore = bld_op(c, &wr, "RestoreV2", "RestoreV2/", rin, 3, ra, 1);
  tfc_node **assigns = calloc((size_t)n_sv + 1, sizeof *assigns);
  if (!assigns) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int i = 0, k = 0; i < n_sv && tfc_status_ok(c->s); i++) {
    bld_where wa = w;
    if (svs[i].var) {
      wa.coloc = svs[i].var;
      tfc_endpoint ain[2] = {{svs[i].var, 0}, {restore, k++}};
      bld_attr aa[2] = {{"use_locking", tfc_attr_bool(1)},
                        {"validate_shape", tfc_attr_bool(tfc_shape_fully_defined(&svs[i].var->output_shapes[0]))}};
      assigns[i] = bld_op(c, &wa, "Assign", "Assign", ain, 2, aa, 2);
      continue;
    }
    /* TF's table saveable: name_scope("<name>_table_restore"), colocated with the table */
    char base[512];
    snprintf(base, sizeof base, "%s_table_restore", svs[i].name);
    char *ts = bld_unique(c, save, base);
    if (!ts) break;
    wa.scope = ts;
    wa.coloc = svs[i].table;
    tfc_endpoint tin[3] = {{svs[i].table, 0}, {restore, k}, {restore, k + 1}};
    k += 2;
    bld_attr ia[2] = {{"Tin", tfc_attr_type(sv[k - 2].dtype)}, {"Tout", tfc_attr_type(sv[k - 1].dtype)}};
    assigns[i] = bld_op(c, &wa, "LookupTableImportV2", NULL, tin, 3, ia, 2);
    free(ts);
  }
  tfc_node *restore_all = bld_group(c, &w, assigns, n_sv, "restore_all");
  free(assigns);
  if (tfc_status_ok(c->s)) {
    sv_out->filename = (TF_Output){tfc_capi_oper(fconst.node), 0};
    sv_out->save = (TF_Output){tfc_capi_oper(saved.node), 0};
    sv_out->save_op = tfc_capi_oper(save_op);
    sv_out->restore_op = tfc_capi_oper(restore_all);
  }
done:
  free(sv);
  free(save);
  free(fscope);
  free(sscope);
  free(cscope);
  free(rscope);
}

/* The fields every saver gets once its nodes are known: the SaverDef's names (from the
 * nodes; NULL when out of memory, which TFC_SaverGetDef reports as ""), Python's defaults
 * for the bookkeeping. */
static void saver_init(TFC_Saver *sv, TF_Graph *graph, int max_to_keep) {
  sv->graph = graph;
  sv->max_to_keep = max_to_keep;
  if (asprintf(&sv->def_names[0], "%s:%d", TF_OperationName(sv->filename.oper), sv->filename.index) < 0)
    sv->def_names[0] = NULL;
  if (asprintf(&sv->def_names[1], "%s:%d", TF_OperationName(sv->save.oper), sv->save.index) < 0)
    sv->def_names[1] = NULL;
  sv->def_names[2] = strdup(TF_OperationName(sv->restore_op));
  TFC_SaverSetKeepCheckpointEveryNHours(sv, 10000.0);
}

/* The variable behind a saver input: a reference variable op's output 0. */
static int check_var(bld_call *c, TF_Output o, int i, tfc_node **out) {
  char what[64];
  snprintf(what, sizeof what, "TFC_NewSaver: vars[%d]", i);
  TFC_TRY(bld_check_output(c, o, what));
  tfc_node *n = tfc_capi_node(o.oper);
  if (o.index != 0 || (strcmp(n->op->name, "VariableV2") != 0 && strcmp(n->op->name, "Variable") != 0))
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                          "TFC_NewSaver: vars[%d] ('%s:%d', %s) is not a reference variable (VariableV2)", i, n->name,
                          o.index, n->op->name);
  *out = n;
  return TFC_OK;
}

/* The table behind tables[i] and its saved tensors: a mutable table op's output 0, and the
 * export outputs given or a new LookupTableExportV2 ("<table>_lookup_table_export_values", as
 * Python's table makes it) at the scope's root. */
static int check_table(bld_call *c, const TFC_Scope *scope, const TFC_SaverTable *t, int i, saveable *out) {
  char what[64];
  snprintf(what, sizeof what, "TFC_NewSaverWithTables: tables[%d].table", i);
  TFC_TRY(bld_check_output(c, t->table, what));
  tfc_node *n = tfc_capi_node(t->table.oper);
  const char *op = n->op->name;
  if (t->table.index != 0 || (strcmp(op, "MutableHashTableV2") && strcmp(op, "MutableHashTableOfTensorsV2") &&
                              strcmp(op, "MutableDenseHashTableV2")))
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                          "TFC_NewSaverWithTables: tables[%d].table ('%s:%d', %s) is not a mutable lookup table", i,
                          n->name, t->table.index, op);
  if (!t->name || !*t->name)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "TFC_NewSaverWithTables: tables[%d].name is empty", i);
  out->name = t->name;
  out->table = n;
  if (t->keys.oper) {
    snprintf(what, sizeof what, "TFC_NewSaverWithTables: tables[%d].keys", i);
    TFC_TRY(bld_check_output(c, t->keys, what));
    snprintf(what, sizeof what, "TFC_NewSaverWithTables: tables[%d].values", i);
    TFC_TRY(bld_check_output(c, t->values, what));
    out->keys = (tfc_endpoint){tfc_capi_node(t->keys.oper), t->keys.index};
    out->values = (tfc_endpoint){tfc_capi_node(t->values.oper), t->values.index};
  } else {
    const tfc_attr_value *kd = tfc_node_attr(n, "key_dtype"), *vd = tfc_node_attr(n, "value_dtype");
    char base[512];
    snprintf(base, sizeof base, "%s_lookup_table_export_values", n->name);
    char *es = bld_unique(c, scope->name, base);
    if (!es) return c->s->code;
    bld_where w = bld_where_of(scope, es);
    w.coloc = n; /* Python's table ops are colocated with the table */
    tfc_endpoint in = {n, 0};
    bld_attr ea[2] = {{"Tkeys", tfc_attr_type(kd ? kd->u.type : TFC_DT_INVALID)},
                      {"Tvalues", tfc_attr_type(vd ? vd->u.type : TFC_DT_INVALID)}};
    tfc_node *e = bld_op(c, &w, "LookupTableExportV2", NULL, &in, 1, ea, 2);
    free(es);
    if (!e) return c->s->code;
    out->keys = (tfc_endpoint){e, 0};
    out->values = (tfc_endpoint){e, 1};
  }
  if (asprintf(&out->key_name, "%s-keys", t->name) < 0) out->key_name = NULL;
  if (asprintf(&out->value_name, "%s-values", t->name) < 0) out->value_name = NULL;
  if (!out->key_name || !out->value_name) return TFC_OOM(c->s);
  return TFC_OK;
}

TFC_EXPORT TFC_Saver *TFC_NewSaver(const TFC_Scope *scope, const char *const *names, const TF_Output *vars,
                                   int num_vars, int max_to_keep, TF_Status *status) {
  return TFC_NewSaverWithTables(scope, names, vars, num_vars, NULL, 0, max_to_keep, status);
}

TFC_EXPORT TFC_Saver *TFC_NewSaverWithTables(const TFC_Scope *scope, const char *const *names, const TF_Output *vars,
                                             int num_vars, const TFC_SaverTable *tables, int num_tables,
                                             int max_to_keep, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TFC_Saver *saver = NULL;
  saveable *sv = NULL;
  TFC_Variable *globals = NULL;
  char *cpu = NULL;
  /* RestoreV2's device: "/cpu:0" merged onto the scope's (Python's `with ops.device("cpu:0")`). */
  TFC_Scope *cpu_scope = scope ? TFC_ScopeWithDevice(scope, "/cpu:0") : NULL;
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    TFC_DeleteScope(cpu_scope);
    tfc_status_fini(&scratch);
    return NULL;
  }
  int n = num_vars, n_alloc = 0;
  if (num_vars < 0 || (num_vars > 0 && !vars)) {
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_NewSaver: %d variables given with %s", num_vars,
                   vars ? "a negative count" : "vars NULL");
  } else if (num_vars == 0) {
    /* Every global variable, under its op name. */
    n = c.st->n_vars;
    globals = calloc((size_t)(n ? n : 1), sizeof *globals);
    if (!globals) TFC_OOM(c.s);
    n = 0;
    for (int i = 0; globals && i < c.st->n_vars; i++)
      if (c.st->vars[i].global) globals[n++] = c.st->vars[i].v;
  }
  if (tfc_status_ok(c.s) && (num_tables < 0 || (num_tables > 0 && !tables)))
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_NewSaverWithTables: %d tables given with %s", num_tables,
                   tables ? "a negative count" : "tables NULL");
  if (tfc_status_ok(c.s) && n + num_tables == 0) tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "No variables to save");
  if (tfc_status_ok(c.s)) {
    n_alloc = n + num_tables;
    sv = calloc((size_t)n_alloc, sizeof *sv);
    saver = calloc(1, sizeof *saver);
    if (!cpu_scope || !(cpu = strdup(cpu_scope->device)) || !sv || !saver) TFC_OOM(c.s);
  }
  for (int i = 0; tfc_status_ok(c.s) && i < n; i++) {
    TF_Output o = globals ? (TF_Output){globals[i].variable, 0} : vars[i];
    if (check_var(&c, o, i, &sv[i].var)) break;
    sv[i].name = names && !globals ? names[i] : sv[i].var->name;
    if (!sv[i].name || !*sv[i].name)
      tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_NewSaver: names[%d] is empty", i);
  }
  for (int i = 0; tfc_status_ok(c.s) && i < num_tables; i++)
    if (check_table(&c, scope, &tables[i], i, &sv[n + i])) break;
  if (tfc_status_ok(c.s)) {
    n += num_tables;
    qsort(sv, (size_t)n, sizeof *sv, saveable_cmp);
    for (int i = 1; i < n; i++)
      if (strcmp(sv[i - 1].name, sv[i].name) == 0) {
        tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "At least two variables have the same name: %s", sv[i].name);
        break;
      }
  }
  if (tfc_status_ok(c.s)) build(&c, scope, cpu, sv, n, saver);
  if (bld_end(&c) == TFC_OK) {
    saver_init(saver, scope->graph, max_to_keep);
  } else {
    free(saver);
    saver = NULL;
  }
  for (int i = 0; sv && i < n_alloc; i++) {
    free(sv[i].key_name);
    free(sv[i].value_name);
  }
  free(sv);
  free(globals);
  free(cpu);
  TFC_DeleteScope(cpu_scope);
  tfc_status_fini(&scratch);
  return saver;
}

static void free_last(TFC_Saver *s) {
  for (int i = 0; i < s->n_last; i++) free(s->last[i].path);
  free(s->last);
  s->last = NULL;
  s->n_last = 0;
}

TFC_EXPORT void TFC_DeleteSaver(TFC_Saver *saver) {
  if (!saver) return;
  free_last(saver);
  for (int i = 0; i < 3; i++) free(saver->def_names[i]);
  free(saver->swept);
  free(saver);
}

TFC_EXPORT TF_Output TFC_SaverFilenameTensor(const TFC_Saver *saver) { return saver->filename; }
TFC_EXPORT TF_Output TFC_SaverSaveTensor(const TFC_Saver *saver) { return saver->save; }
TFC_EXPORT TF_Operation *TFC_SaverSaveOp(const TFC_Saver *saver) { return saver->save_op; }
TFC_EXPORT TF_Operation *TFC_SaverRestoreOp(const TFC_Saver *saver) { return saver->restore_op; }
TFC_EXPORT int TFC_SaverNumLastCheckpoints(const TFC_Saver *saver) { return saver->n_last; }
TFC_EXPORT const char *TFC_SaverLastCheckpoint(const TFC_Saver *saver, int i) {
  return i >= 0 && i < saver->n_last ? saver->last[i].path : NULL;
}

/* ---------------------------------------------------------------- the state file */

/* The directory of a save path ("." for none), as os.path.dirname (with "" -> "."). */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

/* p relative to dir when it lies in it, else p itself (heap copy). */
static char *relative_to(const char *p, const char *dir) {
  size_t n = strlen(dir);
  if (strcmp(dir, ".") == 0 && strncmp(p, "./", 2) != 0 && p[0] != '/') return strdup(p);
  if (strcmp(dir, "/") == 0 && p[0] == '/') return strdup(p + 1);
  if (strncmp(p, dir, n) == 0 && p[n] == '/') return strdup(p + n + 1);
  return strdup(p);
}

/* Appends s quoted with text_format's C escapes (Python's text_encoding.CEscape). */
static void put_quoted(tfc_strbuf *b, const char *s) {
  tfc_strbuf_puts(b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '\n': tfc_strbuf_puts(b, "\\n"); break;
      case '\r': tfc_strbuf_puts(b, "\\r"); break;
      case '\t': tfc_strbuf_puts(b, "\\t"); break;
      case '"': tfc_strbuf_puts(b, "\\\""); break;
      case '\'': tfc_strbuf_puts(b, "\\'"); break;
      case '\\': tfc_strbuf_puts(b, "\\\\"); break;
      default:
        if (*p >= 0x20 && *p < 0x7f) tfc_strbuf_append(b, p, 1);
        else tfc_strbuf_printf(b, "\\%03o", *p);
    }
  }
  tfc_strbuf_puts(b, "\"");
}

/* A path as the state file of dir records it: relative to dir, or with as_given (TF's
 * save_relative_paths off) as given, except that a relative path in a relative dir is made
 * relative to it either way, as TF's generate_checkpoint_state_proto does (the reader joins it
 * to the dir again). */
static char *state_path(const char *p, const char *dir, int as_given) {
  return as_given && (p[0] == '/' || dir[0] == '/') ? strdup(p) : relative_to(p, dir);
}

/* Writes dir/<fname> (temp file + rename): model path, then every path of all (state_path). */
static int state_write(const char *dir, const char *fname, const char *model, const char *const *all, int n_all,
                       int as_given, tfc_status *s) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  char *rel = state_path(model, dir, as_given);
  tfc_strbuf_puts(&b, "model_checkpoint_path: ");
  put_quoted(&b, rel ? rel : model);
  tfc_strbuf_puts(&b, "\n");
  free(rel);
  /* Python appends the model path when the list does not end with it. */
  int ends_with_model = n_all > 0 && strcmp(all[n_all - 1], model) == 0;
  for (int i = 0; i <= n_all; i++) {
    const char *p = i < n_all ? all[i] : (ends_with_model ? NULL : model);
    if (!p) break;
    char *r = state_path(p, dir, as_given);
    tfc_strbuf_puts(&b, "all_model_checkpoint_paths: ");
    put_quoted(&b, r ? r : p);
    tfc_strbuf_puts(&b, "\n");
    free(r);
  }
  char *path = NULL, *tmp = NULL;
  if (!tfc_strbuf_ok(&b) || asprintf(&path, "%s/%s", dir, fname) < 0 ||
      asprintf(&tmp, "%s/%s.tmp%ld", dir, fname, (long)getpid()) < 0) {
    tfc_strbuf_fini(&b);
    free(path);
    return TFC_OOM(s);
  }
  const char *text = tfc_strbuf_str(&b);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    tfc_table_io_error(s, errno, tmp);
  } else {
    size_t len = strlen(text);
    int bad = fwrite(text, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int err = errno;
    if (fclose(f) != 0 && !bad) {
      bad = 1;
      err = errno;
    }
    if (bad) tfc_table_io_error(s, err ? err : EIO, tmp);
    else if (rename(tmp, path) != 0) tfc_table_io_error(s, errno, path);
    if (!tfc_status_ok(s)) unlink(tmp);
  }
  tfc_strbuf_fini(&b);
  free(path);
  free(tmp);
  return s->code;
}

typedef struct state {
  char *model;  /* NULL when absent */
  char **all;
  int n_all;
} state;

static void state_free(state *st) {
  free(st->model);
  for (int i = 0; i < st->n_all; i++) free(st->all[i]);
  free(st->all);
}

/* Parses a quoted text_format string at *p (after the opening quote) into a heap string. */
static char *unquote(const char **p) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  const char *q = *p;
  while (*q && *q != '"') {
    char ch = *q++;
    if (ch == '\\') {
      char e = *q++;
      switch (e) {
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case '\0': tfc_strbuf_fini(&b); return NULL;
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int k = 0; k < 2 && *q >= '0' && *q <= '7'; k++) v = v * 8 + (*q++ - '0');
            ch = (char)v;
          } else {
            ch = e; /* \" \' \\ */
          }
      }
    }
    tfc_strbuf_append(&b, &ch, 1);
  }
  if (*q != '"' || !tfc_strbuf_ok(&b)) {
    tfc_strbuf_fini(&b);
    return NULL;
  }
  *p = q + 1;
  tfc_strbuf_str(&b);
  return tfc_strbuf_take(&b);
}

/* Reads dir/<fname>. 1: read; 0: no such file; error code with status otherwise. Relative
 * paths are joined to dir. */
static int state_read(const char *dir, const char *fname, state *st, tfc_status *s) {
  memset(st, 0, sizeof *st);
  char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, fname) < 0) return TFC_OOM(s);
  FILE *f = fopen(path, "rb");
  if (!f) {
    int err = errno;
    free(path);
    if (err == ENOENT || err == ENOTDIR) return 0;
    return tfc_table_io_error(s, err, path);
  }
  char line[8192];
  int rc = 1, lineno = 0;
  while (rc == 1 && fgets(line, sizeof line, f)) {
    lineno++;
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\n' || *p == '\0' || *p == '#') continue;
    int is_model = strncmp(p, "model_checkpoint_path:", 22) == 0;
    int is_all = strncmp(p, "all_model_checkpoint_paths:", 27) == 0;
    if (!is_model && !is_all) {
      /* Later TF's timestamps and other fields are skipped. */
      if (strncmp(p, "all_model_checkpoint_timestamps:", 32) == 0 || strncmp(p, "last_preserved_timestamp:", 25) == 0)
        continue;
      rc = tfc_status_set(s, TFC_DATA_LOSS, "Unparseable checkpoint state file %s: line %d", path, lineno);
      break;
    }
    p += is_model ? 22 : 27;
    while (*p == ' ') p++;
    char *v = *p == '"' ? (p++, unquote(&p)) : NULL;
    if (!v) {
      rc = tfc_status_set(s, TFC_DATA_LOSS, "Unparseable checkpoint state file %s: line %d", path, lineno);
      break;
    }
    char *full = v;
    if (v[0] != '/' && strcmp(dir, ".") != 0) {
      full = NULL;
      if (asprintf(&full, "%s/%s", dir, v) < 0) full = NULL;
      free(v);
      if (!full) {
        rc = TFC_OOM(s);
        break;
      }
    }
    if (is_model) {
      free(st->model);
      st->model = full;
    } else {
      char **a = realloc(st->all, sizeof(char *) * (size_t)(st->n_all + 1));
      if (!a) {
        free(full);
        rc = TFC_OOM(s);
        break;
      }
      st->all = a;
      st->all[st->n_all++] = full;
    }
  }
  fclose(f);
  free(path);
  if (rc != 1) state_free(st);
  return rc;
}

/* ---------------------------------------------------------------- save and restore */

static int copy_out(const char *value, char *out, size_t out_len, tfc_status *s) {
  if (!out) return TFC_OK;
  size_t n = strlen(value);
  if (n + 1 > out_len)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "output buffer of %zu bytes is too small for '%s' (%zu bytes)",
                          out_len, value, n + 1);
  memcpy(out, value, n + 1);
  return TFC_OK;
}

/* Python's _RecordLastCheckpoint: path moves to the end (saved now); the oldest beyond
 * max_to_keep is dropped into *out_dropped (caller frees; else NULL). */
static int record_last(TFC_Saver *sv, const char *path, tracked *out_dropped, tfc_status *s) {
  *out_dropped = (tracked){NULL, 0};
  if (sv->max_to_keep <= 0) return TFC_OK;
  int k = 0;
  for (int i = 0; i < sv->n_last; i++) {
    if (strcmp(sv->last[i].path, path) == 0) free(sv->last[i].path);
    else sv->last[k++] = sv->last[i];
  }
  sv->n_last = k;
  tracked *l = realloc(sv->last, sizeof *l * (size_t)(sv->n_last + 1));
  char *copy = strdup(path);
  if (!l || !copy) {
    if (l) sv->last = l;
    free(copy);
    return TFC_OOM(s);
  }
  sv->last = l;
  sv->last[sv->n_last++] = (tracked){copy, now_seconds()};
  if (sv->n_last <= sv->max_to_keep) return TFC_OK;
  *out_dropped = sv->last[0];
  memmove(sv->last, sv->last + 1, sizeof *sv->last * (size_t)(sv->n_last - 1));
  sv->n_last--;
  return TFC_OK;
}

/* Python's _MaybeDeleteOldCheckpoints for one dropped checkpoint: kept when saved after the
 * next keep time (which then moves on by keep_hours), else its files and meta graph go. */
static void maybe_delete(TFC_Saver *sv, const tracked *dropped, const char *meta_suffix) {
  if (!dropped->path) return;
  if (dropped->time > sv->next_keep) {
    sv->next_keep += sv->keep_hours * 3600.0;
    return;
  }
  tfc_bundle_delete(dropped->path);
  char *meta = NULL;
  if (asprintf(&meta, "%s.%s", dropped->path, meta_suffix && *meta_suffix ? meta_suffix : "meta") >= 0) {
    unlink(meta);
    free(meta);
  }
}

TFC_EXPORT int TFC_SaverSave(TFC_Saver *saver, TF_Session *session, const char *save_path, int64_t global_step,
                             char *out_path, size_t out_len, TF_Status *status) {
  return TFC_SaverSaveWithOptions(saver, session, save_path, global_step, NULL, NULL, 0, out_path, out_len, status);
}

TFC_EXPORT int TFC_SaverSaveWithOptions(TFC_Saver *saver, TF_Session *session, const char *save_path,
                                        int64_t global_step, const char *latest_filename, const char *meta_suffix,
                                        int flags, char *out_path, size_t out_len, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  char *prefix = NULL, *dir = NULL;
  tracked dropped = {NULL, 0};
  TF_Tensor *feed = NULL, *fetched = NULL;
  const char *fname = latest_filename && *latest_filename ? latest_filename : "checkpoint";
  if (!saver || !session || !save_path || !*save_path) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SaverSave: %s", !saver ? "saver is NULL" : !session ? "session is NULL"
                                                                                               : "save_path is empty");
    goto done;
  }
  if (strchr(fname, '/')) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "'latest_filename' must not contain path components");
    goto done;
  }
  int pad = (flags & TFC_SAVER_PAD_STEP_NUMBER) != 0;
  if (global_step >= 0 ? asprintf(&prefix, pad ? "%s-%08lld" : "%s-%lld", save_path, (long long)global_step) < 0
                       : !(prefix = strdup(save_path))) {
    prefix = NULL;
    TFC_OOM(s);
    goto done;
  }
  /* 0. On the first save to this path, the temporaries of saves killed midway go. */
  if (!saver->swept || strcmp(saver->swept, save_path) != 0) {
    tfc_bundle_remove_stale_temps(save_path);
    free(saver->swept);
    saver->swept = strdup(save_path); /* NULL on OOM: swept again next time, harmless */
  }
  /* 1. Run the save tensor with the prefix fed. */
  if (!(feed = tfc_capi_string_scalar(prefix, s))) goto done;
  TF_Status *run = TF_NewStatus();
  if (!run) {
    TFC_OOM(s);
    goto done;
  }
  TF_SessionRun(session, NULL, &saver->filename, &feed, 1, &saver->save, &fetched, 1, NULL, 0, NULL, run);
  if (TF_GetCode(run) != TF_OK) tfc_status_set(s, (int)TF_GetCode(run), "%s", TF_Message(run));
  TF_DeleteStatus(run);
  if (!tfc_status_ok(s)) goto done;
  /* 2. Track it, rewrite the state file, then delete what fell off the list. */
  if (!(flags & TFC_SAVER_NO_STATE)) {
    if (record_last(saver, prefix, &dropped, s)) goto done;
    if (!(dir = dir_of(save_path))) {
      TFC_OOM(s);
      goto done;
    }
    const char **all = calloc((size_t)saver->n_last + 1, sizeof *all);
    if (!all) {
      TFC_OOM(s);
      goto done;
    }
    for (int i = 0; i < saver->n_last; i++) all[i] = saver->last[i].path;
    state_write(dir, fname, prefix, all, saver->n_last, (flags & TFC_SAVER_PATHS_AS_GIVEN) != 0, s);
    free(all);
    if (!tfc_status_ok(s)) goto done;
    maybe_delete(saver, &dropped, meta_suffix);
  }
  /* 3. The MetaGraphDef beside it (write_meta_graph=True). */
  if (flags & TFC_SAVER_WRITE_META_GRAPH) {
    char *meta = NULL;
    TFC_SaverDef def;
    TFC_SaverGetDef(saver, &def);
    if (asprintf(&meta, "%s.%s", prefix, meta_suffix && *meta_suffix ? meta_suffix : "meta") < 0) {
      TFC_OOM(s);
      goto done;
    }
    TF_Status *ms = TF_NewStatus();
    TFC_MetaGraph *mg = ms ? TFC_ExportMetaGraph(saver->graph, &def, NULL, 0, 0, ms) : NULL;
    if (mg) TFC_WriteMetaGraph(mg, meta, ms);
    if (!ms) TFC_OOM(s);
    else if (TF_GetCode(ms) != TF_OK) tfc_status_set(s, (int)TF_GetCode(ms), "%s", TF_Message(ms));
    TFC_DeleteMetaGraph(mg);
    TF_DeleteStatus(ms);
    free(meta);
    if (!tfc_status_ok(s)) goto done;
  }
  copy_out(prefix, out_path, out_len, s);
done:
  TF_DeleteTensor(feed);
  TF_DeleteTensor(fetched);
  free(prefix);
  free(dir);
  free(dropped.path);
  int ok = tfc_status_ok(s);
  tfc_status_fini(&scratch);
  return ok;
}

TFC_EXPORT void TFC_SaverRestore(TFC_Saver *saver, TF_Session *session, const char *save_path, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TF_Tensor *feed = NULL;
  if (!saver || !session || !save_path) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SaverRestore: %s",
                   !saver ? "saver is NULL" : !session ? "session is NULL" : "save_path is NULL");
  } else if (!tfc_bundle_exists(save_path)) {
    tfc_status_set(s, TFC_NOT_FOUND, "The passed save_path is not a valid checkpoint: %s", save_path);
  } else if ((feed = tfc_capi_string_scalar(save_path, s))) {
    TF_Status *run = TF_NewStatus();
    if (!run) {
      TFC_OOM(s);
    } else {
      TF_Operation *targets[1] = {saver->restore_op};
      TF_SessionRun(session, NULL, &saver->filename, &feed, 1, NULL, NULL, 0, (const TF_Operation *const *)targets, 1, NULL,
                    run);
      if (TF_GetCode(run) != TF_OK) tfc_status_set(s, (int)TF_GetCode(run), "%s", TF_Message(run));
      TF_DeleteStatus(run);
    }
  }
  TF_DeleteTensor(feed);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_SaverRecoverLastCheckpoints(TFC_Saver *saver, const char *checkpoint_dir, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  state st;
  if (!saver || !checkpoint_dir) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SaverRecoverLastCheckpoints: %s is NULL",
                   !saver ? "saver" : "checkpoint_dir");
  } else if (state_read(*checkpoint_dir ? checkpoint_dir : ".", "checkpoint", &st, s) == 1) {
    /* Existing ones, newest max_to_keep (all when max_to_keep <= 0 tracks none, as Python). */
    free_last(saver);
    for (int i = 0; i < st.n_all; i++) {
      if (!tfc_bundle_exists(st.all[i])) continue;
      tracked dropped;
      record_last(saver, st.all[i], &dropped, s);
      free(dropped.path);
    }
    state_free(&st);
  }
  tfc_status_fini(&scratch);
}

TFC_EXPORT int TFC_LatestCheckpoint(const char *checkpoint_dir, char *out, size_t out_len, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  int found = -1;
  state st;
  if (!checkpoint_dir) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_LatestCheckpoint: checkpoint_dir is NULL");
  } else {
    int r = state_read(*checkpoint_dir ? checkpoint_dir : ".", "checkpoint", &st, s);
    if (r == 0) found = 0;
    if (r == 1) {
      found = st.model && tfc_bundle_exists(st.model);
      if (found && copy_out(st.model, out, out_len, s)) found = -1;
      state_free(&st);
    }
  }
  tfc_status_fini(&scratch);
  return found;
}

TFC_EXPORT int TFC_CheckpointIntact(const char *prefix, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  if (!prefix || !*prefix) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_CheckpointIntact: prefix is empty");
  else tfc_bundle_verify(prefix, s);
  int ok = tfc_status_ok(s);
  tfc_status_fini(&scratch);
  return ok;
}

TFC_EXPORT int TFC_LatestIntactCheckpoint(const char *checkpoint_dir, char *out, size_t out_len,
                                          TFC_CheckpointSkipped skipped, void *arg, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  int found = -1;
  state st;
  if (!checkpoint_dir) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_LatestIntactCheckpoint: checkpoint_dir is NULL");
  } else {
    int r = state_read(*checkpoint_dir ? checkpoint_dir : ".", "checkpoint", &st, s);
    if (r == 0) found = 0;
    if (r == 1) {
      /* Newest first: the model path, then the list from its end; each path once. */
      found = 0;
      TF_Status *why = TF_NewStatus();
      if (!why) {
        TFC_OOM(s);
        found = -1;
      }
      for (int i = st.n_all; why && found == 0 && i >= 0; i--) {
        const char *p = i == st.n_all ? st.model : st.all[i];
        if (!p || (i < st.n_all && st.model && strcmp(p, st.model) == 0)) continue;
        int dup = 0;
        for (int k = i + 1; k < st.n_all && !dup; k++) dup = strcmp(st.all[k], p) == 0;
        if (dup) continue;
        TF_SetStatus(why, TF_OK, "");
        if (TFC_CheckpointIntact(p, why)) {
          found = copy_out(p, out, out_len, s) ? -1 : 1;
        } else if (skipped) {
          skipped(arg, p, why);
        }
      }
      TF_DeleteStatus(why);
      state_free(&st);
    }
  }
  tfc_status_fini(&scratch);
  return found;
}

/* ---------------------------------------------------------------- saver defs and state */

/* The output "op:k" (":k" optional) of graph, or an oper-NULL output. */
static TF_Output output_named(TF_Graph *graph, const char *name) {
  TF_Output o = {NULL, 0};
  const char *colon = name ? strrchr(name, ':') : NULL;
  char *op = name ? (colon ? strndup(name, (size_t)(colon - name)) : strdup(name)) : NULL;
  if (!op) return o;
  char *end = NULL;
  long k = colon ? strtol(colon + 1, &end, 10) : 0;
  if (!colon || (end && !*end && end != colon + 1 && k >= 0)) {
    o.oper = TF_GraphOperationByName(graph, op);
    o.index = (int)k;
    if (o.oper && o.index >= TF_OperationNumOutputs(o.oper)) o.oper = NULL;
  }
  free(op);
  return o;
}

TFC_EXPORT TFC_Saver *TFC_NewSaverFromDef(TF_Graph *graph, const TFC_SaverDef *def, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_Saver *sv = NULL;
  if (!graph || !def) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_NewSaverFromDef: %s is NULL", !graph ? "graph" : "def");
  } else if (!def->save_tensor_name || !*def->save_tensor_name) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "saver_def must specify the save_tensor_name");
  } else if (!def->restore_op_name || !*def->restore_op_name) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "saver_def must specify the restore_op_name");
  } else if (!(sv = calloc(1, sizeof *sv))) {
    TFC_OOM(s);
  } else {
    const char *names[3] = {def->filename_tensor_name, def->save_tensor_name, def->restore_op_name};
    sv->filename = output_named(graph, names[0]);
    sv->save = output_named(graph, names[1]);
    sv->restore_op = strchr(names[2], ':') ? NULL : TF_GraphOperationByName(graph, names[2]);
    for (int i = 0; i < 3 && tfc_status_ok(s); i++)
      if (!(i == 0 ? sv->filename.oper : i == 1 ? sv->save.oper : (TF_Operation *)sv->restore_op))
        tfc_status_set(s, TFC_NOT_FOUND, "The saver_def's %s '%s' is not in the graph",
                       i == 0 ? "filename_tensor_name" : i == 1 ? "save_tensor_name" : "restore_op_name",
                       names[i] ? names[i] : "");
    if (tfc_status_ok(s)) {
      saver_init(sv, graph, def->max_to_keep);
      if (def->keep_checkpoint_every_n_hours > 0)
        TFC_SaverSetKeepCheckpointEveryNHours(sv, def->keep_checkpoint_every_n_hours);
    } else {
      free(sv);
      sv = NULL;
    }
  }
  tfc_status_fini(&scratch);
  return sv;
}

TFC_EXPORT void TFC_SaverGetDef(const TFC_Saver *saver, TFC_SaverDef *out) {
  out->filename_tensor_name = saver->def_names[0] ? saver->def_names[0] : "";
  out->save_tensor_name = saver->def_names[1] ? saver->def_names[1] : "";
  out->restore_op_name = saver->def_names[2] ? saver->def_names[2] : "";
  out->max_to_keep = saver->max_to_keep;
  out->sharded = 0;
  out->keep_checkpoint_every_n_hours = saver->keep_hours;
  out->version = 2;
}

TFC_EXPORT void TFC_SaverSetKeepCheckpointEveryNHours(TFC_Saver *saver, double hours) {
  saver->keep_hours = hours;
  saver->next_keep = now_seconds() + hours * 3600.0;
}

TFC_EXPORT double TFC_SaverLastCheckpointTime(const TFC_Saver *saver, int i) {
  return i >= 0 && i < saver->n_last ? saver->last[i].time : 0;
}

TFC_EXPORT void TFC_SaverSetLastCheckpoints(TFC_Saver *saver, const char *const *paths, const double *times, int n,
                                            TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  tracked *l = n > 0 ? calloc((size_t)n, sizeof *l) : NULL;
  if (!saver || n < 0 || (n > 0 && !paths)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SaverSetLastCheckpoints: %s", !saver ? "saver is NULL" : "bad paths");
  } else if (n > 0 && !l) {
    TFC_OOM(s);
  } else {
    for (int i = 0; i < n && tfc_status_ok(s); i++) {
      l[i] = (tracked){paths[i] ? strdup(paths[i]) : NULL, times ? times[i] : INFINITY};
      if (!l[i].path) tfc_status_set(s, paths[i] ? TFC_RESOURCE_EXHAUSTED : TFC_INVALID_ARGUMENT,
                                     "TFC_SaverSetLastCheckpoints: path %d %s", i, paths[i] ? "not copied" : "is NULL");
    }
    if (tfc_status_ok(s)) {
      free_last(saver);
      saver->last = l;
      saver->n_last = n;
      l = NULL;
    }
  }
  for (int i = 0; l && i < n; i++) free(l[i].path);
  free(l);
  tfc_status_fini(&scratch);
}

struct TFC_CheckpointState {
  state st;
};

TFC_EXPORT TFC_CheckpointState *TFC_GetCheckpointState(const char *checkpoint_dir, const char *latest_filename,
                                                       TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_CheckpointState *cs = NULL;
  const char *fname = latest_filename && *latest_filename ? latest_filename : "checkpoint";
  if (!checkpoint_dir) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_GetCheckpointState: checkpoint_dir is NULL");
  } else if (!(cs = calloc(1, sizeof *cs))) {
    TFC_OOM(s);
  } else if (state_read(*checkpoint_dir ? checkpoint_dir : ".", fname, &cs->st, s) != 1) {
    free(cs);
    cs = NULL;
  }
  tfc_status_fini(&scratch);
  return cs;
}

TFC_EXPORT void TFC_DeleteCheckpointState(TFC_CheckpointState *state) {
  if (!state) return;
  state_free(&state->st);
  free(state);
}

TFC_EXPORT const char *TFC_CheckpointStateModelPath(const TFC_CheckpointState *state) {
  return state->st.model ? state->st.model : "";
}

TFC_EXPORT int TFC_CheckpointStateNumPaths(const TFC_CheckpointState *state) { return state->st.n_all; }

TFC_EXPORT const char *TFC_CheckpointStatePath(const TFC_CheckpointState *state, int i) {
  return i >= 0 && i < state->st.n_all ? state->st.all[i] : NULL;
}

TFC_EXPORT void TFC_UpdateCheckpointState(const char *save_dir, const char *model_checkpoint_path,
                                          const char *const *all_model_checkpoint_paths, int n,
                                          const char *latest_filename, int paths_as_given, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  const char *fname = latest_filename && *latest_filename ? latest_filename : "checkpoint";
  if (!save_dir || !model_checkpoint_path || n < 0 || (n > 0 && !all_model_checkpoint_paths))
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_UpdateCheckpointState: %s is NULL",
                   !save_dir ? "save_dir" : !model_checkpoint_path ? "model_checkpoint_path" : "the path list");
  else if (strchr(fname, '/'))
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "'latest_filename' must not contain path components");
  else
    state_write(*save_dir ? save_dir : ".", fname, model_checkpoint_path, all_model_checkpoint_paths, n,
                paths_as_given, s);
  tfc_status_fini(&scratch);
}
