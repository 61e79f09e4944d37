/*
 * tfc — the command-line tool: dispatches to the subcommands (tfc_tool.h) and holds what they
 * share (reading files, loading graphs).
 *
 *   tfc inspect MODEL.pb      every node, and the ops this build cannot run (tfc_inspect.c)
 *   tfc run MODEL.pb ...      steps in one session, results printed as numpy does (tfc_run.c,
 *                             with the feed parser tfc_feed.c and the printer tfc_print.c)
 *   tfc data fashion-mnist    Debian's Fashion-MNIST as TFRecord files (tfc_data.c)
 *   tfc server ...            one task of a cluster (tfc_server.c)
 *   tfc cluster ...           a supervisor for a cluster's tasks on this host, or its
 *                             Kubernetes manifests (tfc_cluster.c, tfc_cluster_k8s.c)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/status.h"
#include "tfc_tool.h"

#ifndef TFC_PROJECT_VERSION
#define TFC_PROJECT_VERSION "unknown"
#endif

static const char kUsage[] =
    "usage: tfc COMMAND [ARGS]\n"
    "  tfc inspect MODEL.pb\n"
    "  tfc run MODEL.pb [--feed NAME[:K]=VALUE]... [--fetch NAME[:K]]... [--target NAME]...\n"
    "          [--repeat N] [--restore PREFIX] [--then STEP]... [--cpus N] [--soft-placement]\n"
    "          [--log-placement] [--explain-placement] [--timeout-ms MS] [--print-all]\n"
    "  tfc data fashion-mnist --out DIR [--from IDX_DIR] [--limit N]\n"
    "  tfc server --cluster SPEC --job NAME [--task N] [--port P] [--cpus N] | --def SERVERDEF.pb\n"
    "  tfc cluster --cluster SPEC [--tasks LIST | --host HOST] [--max-restarts N] [...] [-- TRAINER ARGS...]\n"
    "  tfc cluster --k8s SPEC [--name NAME] [--image IMAGE] [-- TRAINER ARGS...]\n"
    "  tfc --version | --help\n"
    "'tfc run --help' explains steps, feeds and the options; 'tfc cluster --help' lists its options.\n";

int tfc_tool_read_file(const char *who, const char *path, char **out_bytes, size_t *out_len) {
  *out_bytes = NULL;
  *out_len = 0;
  FILE *f = fopen(path, "rb");
  struct stat st;
  int err = 0;
  if (!f) err = errno;
  else if (fstat(fileno(f), &st) != 0) err = errno;
  else if (S_ISDIR(st.st_mode)) err = EISDIR;
  char *bytes = NULL;
  size_t len = 0, cap = 0;
  while (!err) {
    if (len + 1 >= cap) {
      cap = cap ? 2 * cap : (st.st_size > 0 ? (size_t)st.st_size + 2 : 4096);
      char *b = realloc(bytes, cap);
      if (!b) {
        err = ENOMEM;
        break;
      }
      bytes = b;
    }
    size_t got = fread(bytes + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) err = errno ? errno : EIO;
      break;
    }
  }
  if (f) fclose(f);
  if (err) {
    free(bytes);
    fprintf(stderr, "%s: cannot read %s: %s\n", who, path, strerror(err));
    return -1;
  }
  if (!bytes && !(bytes = malloc(1))) {
    fprintf(stderr, "%s: cannot read %s: %s\n", who, path, strerror(ENOMEM));
    return -1;
  }
  bytes[len] = '\0';
  *out_bytes = bytes;
  *out_len = len;
  return 0;
}

TF_Graph *tfc_tool_load_graph(const char *who, const char *path) {
  char *bytes;
  size_t len;
  if (tfc_tool_read_file(who, path, &bytes, &len)) return NULL;
  TF_Buffer *buf = TF_NewBufferFromString(bytes, len);
  free(bytes);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, o, s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(buf);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s: %s: %s: %s\n", who, tfc_code_name(TF_GetCode(s)), path, TF_Message(s));
    TF_DeleteGraph(g);
    g = NULL;
  }
  TF_DeleteStatus(s);
  return g;
}

int main(int argc, char **argv) {
  const char *cmd = argc >= 2 ? argv[1] : NULL;
  if (!cmd) {
    fprintf(stderr, "tfc: no command given\n%s", kUsage);
    return 2;
  }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    fputs(kUsage, stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("tfc %s (TensorFlow C API %s)\n", TFC_PROJECT_VERSION, TF_Version());
    return 0;
  }
  if (!strcmp(cmd, "inspect")) return tfc_tool_inspect(argc - 2, argv + 2);
  if (!strcmp(cmd, "run")) return tfc_tool_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "data")) return tfc_tool_data(argc - 2, argv + 2);
  if (!strcmp(cmd, "server")) return tfc_tool_server(argc - 2, argv + 2);
  if (!strcmp(cmd, "cluster")) return tfc_tool_cluster(argc - 2, argv + 2);
  fprintf(stderr, "tfc: unknown command '%s'\n%s", cmd, kUsage);
  return 2;
}
