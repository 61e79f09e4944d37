/*
 * tfc_run — `tfc run MODEL.pb [OPTIONS] STEP [--then STEP]...`: one session over a GraphDef,
 * running its steps in order (the help text below is the reference for the syntax).
 *
 * A step is one TF_SessionRun, made of feeds, fetches and targets, run --repeat N times; or a
 * checkpoint restore (--restore PREFIX), a step of its own that feeds PREFIX to the saver's
 * filename tensor and runs its restore op. Session options may sit anywhere. Variables live
 * in the session, so `--target init --then --restore ckpt --then --target train --repeat 10
 * --fetch loss` initializes, restores, trains and reports as a Python loop over sess.run
 * would.
 *
 * The work is split in three passes so that every mistake in the command line is reported
 * before anything runs: parse the arguments (syntax only, no graph), load the graph and
 * resolve them against it (names, output indexes, feed values against the dtype and the
 * statically known shape), then run. Exit codes: 2 when the command line is wrong (flags,
 * values, names, feeds), 1 when a file cannot be loaded or a run fails; errors from the
 * library start with TF's code name.
 *
 * MODEL may also be a SavedModel directory: the MetaGraphDef of the --tag set (default
 * "serve") is loaded by TF_LoadSessionFromSavedModel (variables restored, init op run), and the
 * --signature's (default "serving_default") input and output keys name feeds and fetches; a
 * step without fetches or targets fetches every output of the signature, printed as
 * saved_model_cli run prints them ("Result for output key y:"). A tag-set or signature the
 * SavedModel lacks, or an unknown input key, is named with the available ones, in
 * saved_model_cli's words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/status.h"
#include "tensorflow/c/c_api.h"
#include "tfc/saved_model.h"
#include "tfc/tfc.h"
#include "tfc_feed.h"
#include "tfc_print.h"
#include "tfc_tool.h"

#define EXIT_USAGE 2
#define EXIT_FAILED 1

static const char kHelp[] =
    "usage: tfc run MODEL.pb [OPTIONS] STEP [--then STEP]...\n"
    "       tfc run SAVED_MODEL_DIR [--tag TAGS] [--signature KEY] [OPTIONS] [STEP [--then STEP]...]\n"
    "\n"
    "Runs steps, in order, in one session over the GraphDef MODEL.pb; variables keep their\n"
    "values from one step to the next.\n"
    "\n"
    "On a SavedModel directory the session is TF_LoadSessionFromSavedModel's over the\n"
    "MetaGraphDef of the tag-set TAGS (comma-separated, default serve), and NAME in --feed and\n"
    "--fetch may be an input or output key of the signature KEY (default serving_default); a\n"
    "step with no --fetch or --target fetches every output of the signature.\n"
    "\n"
    "A STEP is any of:\n"
    "  --feed NAME[:K]=VALUE  feed output K (default 0) of node NAME\n"
    "  --fetch NAME[:K]       fetch and print output K of node NAME\n"
    "  --target NAME          run node NAME for its effect (an initializer, a train op)\n"
    "  --repeat N             run the step N times (default 1); fetches print after the last\n"
    "or, alone in its step:\n"
    "  --restore PREFIX       restore the checkpoint PREFIX through the graph's tf.train.Saver\n"
    "                         (its save/Const filename tensor and save/restore_all op)\n"
    "\n"
    "VALUE is numpy-like: 3, -1.5, true, [1,2,3], [[1,2],[3,4]], [\"a\",\"b c\"]. Its shape comes\n"
    "from the brackets and must agree with the dims the graph knows; its dtype is the fed\n"
    "output's, and every element must fit it (no truncation, no wrapping). Strings are quoted\n"
    "with \\\" \\' \\\\ \\n \\t \\xHH escapes; an unquoted string scalar is taken as it is.\n"
    "Fetched tensors print as numpy prints them.\n"
    "\n"
    "OPTIONS (anywhere):\n"
    "  --cpus N               give the session N CPU devices\n"
    "  --soft-placement       allow soft placement\n"
    "  --log-placement        print TF's device placement log\n"
    "  --explain-placement    the placement log with why each node went where it did\n"
    "  --timeout-ms MS        fail a run that takes longer than MS milliseconds\n"
    "  --print-all            print large tensors whole (default: numpy's summary with ...)\n"
    "  --help                 this text\n"
    "\n"
    "Example: initialize, train 100 steps, then evaluate:\n"
    "  tfc run model.pb --target init --then --target train --feed x=[[1,2]] --repeat 100\n"
    "          --then --feed x=[[3,4]] --fetch loss\n"
    "\n"
    "Exit status: 0 when every step ran, 1 when the model cannot be loaded or a step fails,\n"
    "2 when the command line is wrong.\n";

/* ---- pass 1: the command line --------------------------------------------------------------- */

typedef struct arg_list {
  int n;
  const char **v;
} arg_list;

typedef struct step {
  arg_list feeds, fetches, targets; /* the argument texts */
  const char **labels;              /* per fetch: the signature's output key, or NULL */
  long repeat;
  const char *restore;
  /* pass 2 */
  TF_Output *feed_outs, *fetch_outs;
  TF_Tensor **feed_vals;
  TF_Operation **target_ops;
  int n_feeds, n_targets;
} step;

typedef struct run_args {
  const char *model;
  step *steps;
  int n_steps;
  int cpus;
  long long timeout_ms;
  int soft, log, explain, print_all;
  /* a SavedModel directory */
  int saved_model;
  const char *tags, *signature;
  char **owned; /* argument texts made from signature keys */
  int n_owned;
} run_args;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tfc run: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'tfc run --help' for more information.\n", stderr);
  return EXIT_USAGE;
}

static int out_of_memory(void) {
  fputs("tfc run: RESOURCE_EXHAUSTED: out of memory\n", stderr);
  return EXIT_FAILED;
}

static int push(arg_list *l, const char *v) {
  const char **p = realloc(l->v, sizeof *p * (size_t)(l->n + 1));
  if (!p) return -1;
  l->v = p;
  l->v[l->n++] = v;
  return 0;
}

/* A whole decimal number in [lo, hi]; -1 otherwise. */
static int parse_count(const char *text, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end || errno == ERANGE || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static step *new_step(run_args *a) {
  step *s = realloc(a->steps, sizeof *s * (size_t)(a->n_steps + 1));
  if (!s) return NULL;
  a->steps = s;
  s = &a->steps[a->n_steps++];
  memset(s, 0, sizeof *s);
  s->repeat = 1;
  return s;
}

static int step_is_empty(const step *s) { return !s->feeds.n && !s->fetches.n && !s->targets.n && !s->restore; }

/* Checks a finished step; returns 0 or the exit code after a message. */
static int check_step(const run_args *a, const step *s) {
  int k = (int)(s - a->steps) + 1;
  if (a->saved_model && !s->restore) return 0; /* no fetch: the signature's outputs */
  if (s->restore && (s->feeds.n || s->fetches.n || s->targets.n || s->repeat != 1))
    return usage_error("step %d: --restore is a step of its own; separate it from --feed, --fetch, --target and "
                       "--repeat with --then",
                       k);
  if (!s->restore && !s->fetches.n && !s->targets.n) {
    if (a->n_steps > 1) return usage_error("step %d has nothing to run: give it a --fetch, a --target or a --restore", k);
    return usage_error("nothing to run: give a --fetch, a --target or a --restore");
  }
  return 0;
}

static int parse_args(int argc, char **argv, run_args *a, int *help) {
  step *cur = new_step(a);
  if (!cur) return out_of_memory();
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    static const char *const with_value[] = {"--feed",       "--fetch", "--target",    "--repeat", "--restore",
                                             "--cpus",       "--tag",   "--signature", "--timeout-ms"};
    int wants_value = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) wants_value |= strcmp(arg, with_value[k]) == 0;
    if (wants_value && i + 1 >= argc) return usage_error("%s needs a value", arg);
    const char *val = wants_value ? argv[++i] : NULL;
    int oom = 0;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      *help = 1;
      return 0;
    } else if (!strcmp(arg, "--then")) {
      if (step_is_empty(cur)) return usage_error("--then after an empty step (step %d has nothing to run)", a->n_steps);
      int rc = check_step(a, cur);
      if (rc) return rc;
      if (!(cur = new_step(a))) return out_of_memory();
    } else if (!strcmp(arg, "--feed")) {
      if (!strchr(val, '=')) return usage_error("--feed %s: wants NAME[:K]=VALUE", val);
      oom = push(&cur->feeds, val);
    } else if (!strcmp(arg, "--fetch")) {
      oom = push(&cur->fetches, val);
    } else if (!strcmp(arg, "--target")) {
      oom = push(&cur->targets, val);
    } else if (!strcmp(arg, "--restore")) {
      if (cur->restore) return usage_error("--restore given twice in step %d", a->n_steps);
      if (!*val) return usage_error("--restore needs a checkpoint prefix, not an empty string");
      cur->restore = val;
    } else if (!strcmp(arg, "--repeat")) {
      long long v;
      if (parse_count(val, 1, 1000000000, &v)) return usage_error("--repeat takes a count from 1 to 1000000000, not '%s'", val);
      cur->repeat = (long)v;
    } else if (!strcmp(arg, "--cpus")) {
      long long v;
      if (parse_count(val, 1, 1024, &v)) return usage_error("--cpus takes a count from 1 to 1024, not '%s'", val);
      a->cpus = (int)v;
    } else if (!strcmp(arg, "--timeout-ms")) {
      if (parse_count(val, 0, INT64_MAX, &a->timeout_ms))
        return usage_error("--timeout-ms takes a whole number of milliseconds (0: none), not '%s'", val);
    } else if (!strcmp(arg, "--tag")) {
      a->tags = val;
    } else if (!strcmp(arg, "--signature")) {
      a->signature = val;
    } else if (!strcmp(arg, "--soft-placement")) {
      a->soft = 1;
    } else if (!strcmp(arg, "--log-placement")) {
      a->log = 1;
    } else if (!strcmp(arg, "--explain-placement")) {
      a->explain = 1;
    } else if (!strcmp(arg, "--print-all")) {
      a->print_all = 1;
    } else if (arg[0] == '-' && arg[1]) {
      return usage_error("unknown option '%s'", arg);
    } else if (!a->model) {
      struct stat st;
      a->model = arg;
      a->saved_model = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
    } else {
      return usage_error("unexpected argument '%s' (the model is %s)", arg, a->model);
    }
    if (oom) return out_of_memory();
  }
  if (!a->model) return usage_error("no MODEL.pb given");
  if (!a->saved_model && (a->tags || a->signature))
    return usage_error("%s given, but %s is not a SavedModel directory", a->tags ? "--tag" : "--signature", a->model);
  return check_step(a, cur);
}

/* ---- pass 2: the arguments against the graph ---------------------------------------------- */

/* NAME[:K] to an output of the graph. Returns 0 or the exit code after a message. */
static int resolve_output(TF_Graph *g, const char *flag, const char *spec, size_t spec_len, TF_Output *out) {
  char name[1024];
  if (spec_len >= sizeof name) return usage_error("%s %.40s...: name too long", flag, spec);
  memcpy(name, spec, spec_len);
  name[spec_len] = '\0';
  long long index = 0;
  char *colon = strrchr(name, ':');
  if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
    if (parse_count(colon + 1, 0, INT32_MAX, &index))
      return usage_error("%s %s: output index %s is out of range", flag, name, colon + 1);
    *colon = '\0';
  }
  out->oper = TF_GraphOperationByName(g, name);
  out->index = (int)index;
  if (!out->oper) {
    fprintf(stderr, "tfc run: NOT_FOUND: %s %s: the graph has no node named '%s'\n", flag, spec, name);
    return EXIT_USAGE;
  }
  int n = TF_OperationNumOutputs(out->oper);
  if (index >= n) {
    fprintf(stderr, "tfc run: INVALID_ARGUMENT: %s %.*s: node '%s' (%s) has %d output%s\n", flag, (int)spec_len, spec,
            name, TF_OperationOpType(out->oper), n, n == 1 ? "" : "s");
    return EXIT_USAGE;
  }
  return 0;
}

/* A tensor holding the parsed value, or NULL when out of memory. */
static TF_Tensor *feed_tensor(const tfc_feed_value *v) {
  if (v->dtype != TF_STRING) {
    size_t bytes = TF_DataTypeSize(v->dtype) * (size_t)v->n_elems;
    TF_Tensor *t = TF_AllocateTensor(v->dtype, v->dims, v->n_dims, bytes);
    if (t && bytes) memcpy(TF_TensorData(t), v->data, bytes);
    return t;
  }
  size_t total = 8 * (size_t)v->n_elems;
  for (int64_t i = 0; i < v->n_elems; i++) total += TF_StringEncodedSize(v->lengths[i]);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, v->dims, v->n_dims, total);
  if (!t) return NULL;
  char *base = TF_TensorData(t), *payload = base + 8 * (size_t)v->n_elems;
  size_t at = 0, room = total - 8 * (size_t)v->n_elems;
  TF_Status *s = TF_NewStatus();
  for (int64_t i = 0; i < v->n_elems; i++) {
    uint64_t off = at;
    memcpy(base + 8 * i, &off, sizeof off);
    at += TF_StringEncode(v->strings[i], v->lengths[i], payload + at, room - at, s);
  }
  TF_DeleteStatus(s);
  return t;
}

/* Parses --feed NAME[:K]=VALUE against the graph: the output, then the value in its dtype,
 * then the shape against what the graph knows (TF's Python check before a run). */
static int resolve_feed(TF_Graph *g, const char *spec, TF_Output *out, TF_Tensor **val) {
  const char *eq = strchr(spec, '=');
  int rc = resolve_output(g, "--feed", spec, (size_t)(eq - spec), out);
  if (rc) return rc;
  char name[1100];
  snprintf(name, sizeof name, "%s:%d", TF_OperationName(out->oper), out->index);
  TF_DataType dt = TF_OperationOutputType(*out);
  if ((int)dt > 100) dt = (TF_DataType)((int)dt - 100); /* a ref output feeds its value type */
  tfc_feed_value v;
  char err[512];
  if (tfc_feed_parse(eq + 1, dt, &v, err, sizeof err)) {
    fprintf(stderr, "tfc run: INVALID_ARGUMENT: --feed %s: %s\n", name, err);
    return EXIT_USAGE;
  }
  TF_Status *s = TF_NewStatus();
  int nd = TF_GraphGetTensorNumDims(g, *out, s);
  if (TF_GetCode(s) == TF_OK && nd >= 0) {
    int64_t dims[TFC_FEED_MAX_DIMS];
    int agree = nd == v.n_dims;
    if (agree) {
      TF_GraphGetTensorShape(g, *out, dims, nd, s);
      for (int i = 0; i < nd && TF_GetCode(s) == TF_OK; i++) agree &= dims[i] < 0 || dims[i] == v.dims[i];
    }
    if (!agree && TF_GetCode(s) == TF_OK) {
      char given[256], want[256];
      tfc_feed_shape_str(v.dims, v.n_dims, given, sizeof given);
      if (nd != v.n_dims) TF_GraphGetTensorShape(g, *out, dims, nd, s);
      tfc_feed_shape_str(dims, nd, want, sizeof want);
      fprintf(stderr, "tfc run: INVALID_ARGUMENT: Cannot feed value of shape %s for Tensor '%s', which has shape '%s'\n",
              given, name, want);
      TF_DeleteStatus(s);
      tfc_feed_value_fini(&v);
      return EXIT_USAGE;
    }
  }
  TF_DeleteStatus(s);
  *val = feed_tensor(&v);
  tfc_feed_value_fini(&v);
  if (!*val) {
    fprintf(stderr, "tfc run: RESOURCE_EXHAUSTED: --feed %s: cannot allocate the tensor\n", name);
    return EXIT_FAILED;
  }
  return 0;
}

/* The graph's tf.train.Saver: the filename tensor its RestoreV2 reads the prefix from and the
 * scope's restore_all op. Finds them by structure (RestoreV2's input 0, "<scope>/restore_all")
 * rather than by fixed names, so save_1/... and renamed scopes work. */
static int find_saver(TF_Graph *g, TF_Output *filename, TF_Operation **restore_all) {
  size_t pos = 0;
  TF_Operation *op, *savers[4];
  int n_savers = 0;
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL) {
    const char *type = TF_OperationOpType(op);
    if (strcmp(type, "RestoreV2") && strcmp(type, "Restore")) continue;
    const char *name = TF_OperationName(op), *slash = strrchr(name, '/');
    char ra[1024];
    snprintf(ra, sizeof ra, "%.*srestore_all", slash ? (int)(slash - name + 1) : 0, name);
    TF_Operation *r = TF_GraphOperationByName(g, ra);
    int seen = 0;
    for (int i = 0; i < n_savers && i < 4; i++) seen |= savers[i] == r;
    if (!r || seen) continue;
    if (n_savers == 0) {
      *restore_all = r;
      *filename = TF_OperationInput((TF_Input){op, 0});
    }
    if (n_savers < 4) savers[n_savers] = r;
    n_savers++;
  }
  if (n_savers == 0) {
    fprintf(stderr,
            "tfc run: NOT_FOUND: --restore: the graph has no saver (a RestoreV2 op beside a restore_all op, as "
            "tf.train.Saver writes them)\n");
    return EXIT_USAGE;
  }
  if (n_savers > 1) {
    fprintf(stderr, "tfc run: INVALID_ARGUMENT: --restore: the graph has %d savers (", n_savers);
    for (int i = 0; i < n_savers && i < 4; i++) fprintf(stderr, "%s%s", i ? ", " : "", TF_OperationName(savers[i]));
    fprintf(stderr, "%s); tfc cannot tell which to use\n", n_savers > 4 ? ", ..." : "");
    return EXIT_USAGE;
  }
  return 0;
}

static int resolve_step(TF_Graph *g, step *st) {
  int n_feeds = st->feeds.n + (st->restore ? 1 : 0), n_targets = st->targets.n + (st->restore ? 1 : 0);
  st->feed_outs = calloc((size_t)n_feeds + 1, sizeof *st->feed_outs);
  st->feed_vals = calloc((size_t)n_feeds + 1, sizeof *st->feed_vals);
  st->fetch_outs = calloc((size_t)st->fetches.n + 1, sizeof *st->fetch_outs);
  st->target_ops = calloc((size_t)n_targets + 1, sizeof *st->target_ops);
  if (!st->feed_outs || !st->feed_vals || !st->fetch_outs || !st->target_ops) return out_of_memory();
  if (st->restore) {
    int rc = find_saver(g, &st->feed_outs[0], &st->target_ops[0]);
    if (rc) return rc;
    char *quoted = malloc(strlen(st->restore) + 1);
    if (!quoted) return out_of_memory();
    tfc_feed_value v = {.dtype = TF_STRING, .n_elems = 1, .strings = &quoted, .lengths = (size_t[]){strlen(st->restore)}};
    strcpy(quoted, st->restore);
    st->feed_vals[0] = feed_tensor(&v);
    free(quoted);
    st->n_feeds = st->n_targets = 1;
    if (!st->feed_vals[0]) return out_of_memory();
    return 0;
  }
  for (int i = 0; i < st->feeds.n; i++) {
    int rc = resolve_feed(g, st->feeds.v[i], &st->feed_outs[i], &st->feed_vals[i]);
    if (rc) return rc;
    st->n_feeds++;
  }
  for (int i = 0; i < st->fetches.n; i++) {
    int rc = resolve_output(g, "--fetch", st->fetches.v[i], strlen(st->fetches.v[i]), &st->fetch_outs[i]);
    if (rc) return rc;
  }
  for (int i = 0; i < st->targets.n; i++) {
    const char *name = st->targets.v[i];
    if (!(st->target_ops[i] = TF_GraphOperationByName(g, name))) {
      fprintf(stderr, "tfc run: NOT_FOUND: --target %s: the graph has no node named '%s'\n", name, name);
      return EXIT_USAGE;
    }
    st->n_targets++;
  }
  return 0;
}

/* ---- a SavedModel directory ---------------------------------------------------------------- */

/* The tag list of --tag ("serve" by default; comma-separated) in tags (pointers into buf). */
static int split_tags(const char *text, char *buf, size_t cap, const char **tags, int max) {
  snprintf(buf, cap, "%s", text ? text : "serve");
  int n = 0;
  for (char *t = strtok(buf, ","); t && n < max; t = strtok(NULL, ",")) tags[n++] = t;
  return n;
}

/* A copy of text kept until free_args (NULL when out of memory). */
static char *own(run_args *a, const char *text) {
  char *p = strdup(text);
  char **o = realloc(a->owned, sizeof *o * (size_t)(a->n_owned + 1));
  if (o) a->owned = o;
  if (!p || !o) {
    free(p);
    return NULL;
  }
  a->owned[a->n_owned++] = p;
  return p;
}

/* NAME of a --feed or --fetch spec that is a key of the signature's inputs or outputs: the
 * spec rewritten with the tensor name (kept in a->owned) and *label the key. Another spec stays:
 * 0 for a fetch, -2 for a feed (the caller checks it names a node). */
static int map_key(run_args *a, const TFC_SavedModel *sm, int mg, int sig, int is_output, const char **spec,
                   const char **label) {
  size_t n = is_output ? strlen(*spec) : (size_t)(strchr(*spec, '=') - *spec);
  for (int i = 0; i < TFC_SavedModelSignatureNumTensors(sm, mg, sig, is_output); i++) {
    TFC_SignatureTensor t;
    TFC_SavedModelSignatureTensor(sm, mg, sig, is_output, i, &t);
    if (strlen(t.key) != n || strncmp(t.key, *spec, n) || t.kind != TFC_SIGNATURE_TENSOR_DENSE) continue;
    char text[2048];
    snprintf(text, sizeof text, "%s%s", t.name, *spec + n);
    const char *p = own(a, text), *l = label ? own(a, t.key) : "";
    if (!p || !l) return out_of_memory();
    if (label) *label = l;
    *spec = p;
    return 0;
  }
  return is_output ? 0 : -2; /* an output may be a tensor of the graph, resolved later */
}

static void list_input_keys(FILE *f, const TFC_SavedModel *sm, int mg, int sig) {
  for (int i = 0; i < TFC_SavedModelSignatureNumTensors(sm, mg, sig, 0); i++) {
    TFC_SignatureTensor t;
    TFC_SavedModelSignatureTensor(sm, mg, sig, 0, i, &t);
    fprintf(f, "%s\"%s\"", i ? ", " : "", t.key);
  }
}

/* Rewrites every step's keys (pass 2 then resolves the tensor names), and gives a step
 * without fetches or targets the signature's outputs. */
static int map_signature(run_args *a, TF_Graph *g, const TFC_SavedModel *sm, int mg, int sig) {
  for (int k = 0; k < a->n_steps; k++) {
    step *st = &a->steps[k];
    if (st->restore) continue;
    if (!st->fetches.n && !st->targets.n)
      for (int i = 0; i < TFC_SavedModelSignatureNumTensors(sm, mg, sig, 1); i++) {
        TFC_SignatureTensor t;
        TFC_SavedModelSignatureTensor(sm, mg, sig, 1, i, &t);
        const char *key = t.kind == TFC_SIGNATURE_TENSOR_DENSE ? own(a, t.key) : "";
        if (!key || (*key && push(&st->fetches, key))) return out_of_memory();
      }
    st->labels = calloc((size_t)st->fetches.n + 1, sizeof *st->labels);
    if (!st->labels) return out_of_memory();
    for (int i = 0; i < st->feeds.n; i++) {
      const char *spec = st->feeds.v[i];
      int rc = map_key(a, sm, mg, sig, 0, &st->feeds.v[i], NULL);
      if (rc == -2) {
        const char *eq = strchr(spec, '=');
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
        char *colon = strrchr(name, ':');
        if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) *colon = 0;
        if (TF_GraphOperationByName(g, name)) continue; /* a tensor of the graph */
        fprintf(stderr, "tfc run: INVALID_ARGUMENT: \"%.*s\" is not a valid input key. Please choose from ",
                (int)(eq - spec), spec);
        list_input_keys(stderr, sm, mg, sig);
        fprintf(stderr, ", or use tfc inspect.\n");
        return EXIT_USAGE;
      }
      if (rc) return rc;
    }
    for (int i = 0; i < st->fetches.n; i++) {
      int rc = map_key(a, sm, mg, sig, 1, &st->fetches.v[i], &st->labels[i]);
      if (rc) return rc;
    }
  }
  return 0;
}

static TF_SessionOptions *session_options(const run_args *a, TF_Status *s) {
  TF_SessionOptions *so = TF_NewSessionOptions();
  if (a->cpus) TFC_SetDeviceCount(so, "CPU", a->cpus, s);
  if (a->timeout_ms) TFC_SetOperationTimeout(so, a->timeout_ms);
  TFC_SetAllowSoftPlacement(so, (unsigned char)a->soft);
  TFC_SetLogDevicePlacement(so, (unsigned char)a->log);
  if (a->explain) TFC_SetLogPlacementReasons(so, 1);
  return so;
}

/* Loads the SavedModel a->model into a new graph and session after checking the tag-set and
 * signature; then maps the signature's keys. Returns 0 or the exit code after a message. */
static int load_saved_model(run_args *a, TF_Graph **g, TF_Session **sess) {
  TF_Status *s = TF_NewStatus();
  TFC_SavedModel *sm = TFC_ReadSavedModel(a->model, s);
  int rc = 0;
  char buf[1024];
  const char *tags[64];
  int n_tags = split_tags(a->tags, buf, sizeof buf, tags, 64);
  int mg = sm ? TFC_SavedModelFindMetaGraph(sm, tags, n_tags) : -1;
  const char *key = a->signature ? a->signature : "serving_default";
  int sig = mg >= 0 ? TFC_SavedModelFindSignature(sm, mg, key) : -1;
  if (!sm) {
    fprintf(stderr, "tfc run: %s: %s\n", tfc_code_name(TF_GetCode(s)), TF_Message(s));
    rc = EXIT_FAILED;
  } else if (mg < 0) {
    fprintf(stderr,
            "tfc run: NOT_FOUND: MetaGraphDef associated with tag-set %s could not be found in the SavedModel. "
            "Please use one of the following tag-sets: [",
            a->tags ? a->tags : "serve");
    for (int m = 0; m < TFC_SavedModelNumMetaGraphs(sm); m++) {
      fprintf(stderr, "%s'", m ? ", " : "");
      for (int t = 0; t < TFC_SavedModelNumTags(sm, m); t++) fprintf(stderr, "%s%s", t ? "," : "", TFC_SavedModelTag(sm, m, t));
      fprintf(stderr, "'");
    }
    fprintf(stderr, "]\n");
    rc = EXIT_USAGE;
  } else if (sig < 0) {
    fprintf(stderr, "tfc run: NOT_FOUND: Could not find signature \"%s\". Please choose from: ", key);
    for (int k = 0; k < TFC_SavedModelNumSignatures(sm, mg); k++)
      fprintf(stderr, "%s%s", k ? ", " : "", TFC_SavedModelSignatureKey(sm, mg, k));
    fprintf(stderr, "\n");
    rc = EXIT_USAGE;
  }
  if (!rc) {
    /* TF's loader logs this and goes on; the first run then fails on the unrestored variables */
    char index[2048];
    snprintf(index, sizeof index, "%s/variables/variables.index", a->model);
    if (access(index, F_OK) != 0)
      fprintf(stderr,
              "tfc run: The specified SavedModel has no variables; no checkpoints were restored. File does not "
              "exist: %s\n",
              index);
    *g = TF_NewGraph();
    TF_SessionOptions *so = session_options(a, s);
    if (TF_GetCode(s) == TF_OK) *sess = TF_LoadSessionFromSavedModel(so, NULL, a->model, tags, n_tags, *g, NULL, s);
    TF_DeleteSessionOptions(so);
    if (!*sess) {
      fprintf(stderr, "tfc run: %s: %s\n", tfc_code_name(TF_GetCode(s)), TF_Message(s));
      rc = EXIT_FAILED;
    }
  }
  if (!rc) rc = map_signature(a, *g, sm, mg, sig);
  TFC_DeleteSavedModel(sm);
  TF_DeleteStatus(s);
  return rc;
}

/* ---- pass 3: the session ------------------------------------------------------------------ */

/* Runs the steps in sess (NULL: a new session over g). */
static int run_steps(const run_args *a, TF_Graph *g, TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = session_options(a, s);
  if (!sess && TF_GetCode(s) == TF_OK) sess = TF_NewSession(g, so, s);
  int rc = TF_GetCode(s) == TF_OK ? 0 : EXIT_FAILED;
  if (rc) fprintf(stderr, "tfc run: %s: %s\n", tfc_code_name(TF_GetCode(s)), TF_Message(s));
  for (int k = 0; k < a->n_steps && !rc; k++) {
    const step *st = &a->steps[k];
    TF_Tensor **outs = calloc((size_t)st->fetches.n + 1, sizeof *outs);
    for (long r = 0; r < st->repeat && !rc && outs; r++) {
      for (int i = 0; i < st->fetches.n; i++) TF_DeleteTensor(outs[i]), outs[i] = NULL;
      TF_SessionRun(sess, NULL, st->feed_outs, st->feed_vals, st->n_feeds, st->fetch_outs, outs, st->fetches.n,
                    (const TF_Operation *const *)st->target_ops, st->n_targets, NULL, s);
      if (TF_GetCode(s) == TF_OK) continue;
      fprintf(stderr, "tfc run: %s: %s", tfc_code_name(TF_GetCode(s)), TF_Message(s));
      if (a->n_steps > 1 || st->repeat > 1) fprintf(stderr, " (step %d of %d, run %ld of %ld)", k + 1, a->n_steps, r + 1, st->repeat);
      if (st->restore) fprintf(stderr, " (restoring %s)", st->restore);
      fputc('\n', stderr);
      rc = EXIT_FAILED;
    }
    if (!outs) {
      out_of_memory();
      rc = EXIT_FAILED;
    }
    for (int i = 0; i < st->fetches.n && outs; i++) {
      if (!rc && outs[i]) {
        if (st->labels && st->labels[i])
          printf("Result for output key %s:\n", st->labels[i]);
        else
          printf("%s:%d = ", TF_OperationName(st->fetch_outs[i].oper), st->fetch_outs[i].index);
        if (tfc_print_tensor(stdout, outs[i], a->print_all)) printf("<out of memory printing the tensor>");
        printf("\n");
      }
      TF_DeleteTensor(outs[i]);
    }
    free(outs);
    fflush(stdout);
  }
  if (sess) {
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
  }
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  return rc;
}

static void free_args(run_args *a) {
  for (int k = 0; k < a->n_steps; k++) {
    step *st = &a->steps[k];
    for (int i = 0; i < st->n_feeds; i++) TF_DeleteTensor(st->feed_vals[i]);
    free(st->feeds.v), free(st->fetches.v), free(st->targets.v);
    free(st->feed_outs), free(st->feed_vals), free(st->fetch_outs), free(st->target_ops);
    free(st->labels);
  }
  free(a->steps);
  for (int i = 0; i < a->n_owned; i++) free(a->owned[i]);
  free(a->owned);
}

int tfc_tool_run(int argc, char **argv) {
  run_args a = {0};
  int help = 0;
  int rc = parse_args(argc, argv, &a, &help);
  if (help) {
    fputs(kHelp, stdout);
    free_args(&a);
    return 0;
  }
  TF_Graph *g = NULL;
  TF_Session *sess = NULL;
  if (!rc && a.saved_model) {
    rc = load_saved_model(&a, &g, &sess);
  } else if (!rc) {
    g = tfc_tool_load_graph("tfc run", a.model);
    if (!g) rc = EXIT_FAILED;
  }
  for (int k = 0; k < a.n_steps && !rc; k++) rc = resolve_step(g, &a.steps[k]);
  if (!rc) {
    rc = run_steps(&a, g, sess);
    sess = NULL; /* run_steps deleted it */
  }
  if (sess) {
    TF_Status *s = TF_NewStatus();
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    TF_DeleteStatus(s);
  }
  if (g) TF_DeleteGraph(g);
  free_args(&a);
  return rc;
}
