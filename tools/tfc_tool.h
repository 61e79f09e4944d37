/*
 * tfc_tool — the subcommands of the tfc tool, each in a file of its own, and the helpers they
 * share (tfc.c). Every subcommand takes the arguments after its name, writes results to
 * stdout and one-line errors to stderr ("tfc <command>: CODE: message" for errors TF has a
 * code for), and returns the exit code: 0 done, 1 a failure, 2 a wrong command line.
 */
#ifndef TFC_TOOLS_TFC_TOOL_H
#define TFC_TOOLS_TFC_TOOL_H

#include <stddef.h>
#include <stdio.h>

#include "tensorflow/c/c_api.h"

/* tfc inspect MODEL.pb: every node of a GraphDef and what it lacks here (tfc_inspect.c). */
int tfc_tool_inspect(int argc, char **argv);
/* tfc inspect DIR on a SavedModel directory (tfc_inspect_saved_model.c): returns the exit code. */
int tfc_tool_inspect_saved_model(const char *dir);
/* Helpers for printing a SavedModel (tfc_inspect_saved_model.c): a signature as
 * saved_model_cli prints it, each line indented by ind; a MetaGraphDef's tags joined by ", ". */
struct TFC_SavedModel;
void tfc_tool_print_signature(const struct TFC_SavedModel *sm, int mg, int sig, const char *ind);
void tfc_tool_print_tag_set(const struct TFC_SavedModel *sm, int mg, FILE *out);
/* tfc run MODEL.pb [OPTIONS] STEP [--then STEP]...: steps in one session (tfc_run.c). */
int tfc_tool_run(int argc, char **argv);
/* tfc data <dataset> --out DIR ...: argv[0] is the dataset (tfc_data.c). */
int tfc_tool_data(int argc, char **argv);
/* tfc server --cluster SPEC --job NAME [--task N] [--port P] [--cpus N] | --def FILE: one task
 * of a cluster in the foreground until SIGTERM/SIGINT (tfc_server.c). argv[0] is the first
 * flag. Returns the exit code (0 after a clean stop, 1 on a server error, 2 on bad usage). */
int tfc_tool_server(int argc, char **argv);
/* tfc cluster --cluster SPEC ... | --k8s SPEC ...: a supervisor that runs, restarts and stops the
 * cluster's tasks on this host, or the cluster's Kubernetes manifests on stdout (tfc_cluster.c).
 * argv[0] is the first flag. Returns the exit code (0 after a clean stop or when every trainer
 * finished, 1 when a task ran out of restarts or could not start, 2 on bad usage). */
int tfc_tool_cluster(int argc, char **argv);

/* Reads a whole file into *out_bytes (malloc'ed, the caller frees; NUL-terminated beyond
 * *out_len). Returns 0, or -1 after printing "<who>: cannot read PATH: <strerror>". */
int tfc_tool_read_file(const char *who, const char *path, char **out_bytes, size_t *out_len);
/* Imports the GraphDef in path into a new graph (the caller deletes it). NULL after printing
 * why (the file, or TF's code name and message from the import). */
TF_Graph *tfc_tool_load_graph(const char *who, const char *path);

#endif
