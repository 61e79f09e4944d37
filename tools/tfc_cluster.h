/*
 * tfc_cluster — what the supervisor (tfc_cluster.c) and the Kubernetes manifest writer
 * (tfc_cluster_k8s.c) share: the cluster spec taken apart into jobs and tasks, and the
 * trainer command's placeholders.
 *
 * The spec is the string `tfc server --cluster` takes ("ps=h:1;worker=h:2,h:3", syntax in
 * include/tfc/server.h). It is checked by TFC_NewServerDef, the one parser of that syntax,
 * and read back from the ServerDef's ClusterDef, so both tools accept exactly what a server
 * accepts. Jobs come out sorted by name (the ClusterDef's order), tasks in index order.
 *
 * Placeholders in a trainer's arguments: {job}, {task}, {cluster}, {address} (the task's
 * host:port) and {target} (grpc://host:port). Any other text, braces included, stays as it is.
 */
#ifndef TFC_TOOLS_TFC_CLUSTER_H
#define TFC_TOOLS_TFC_CLUSTER_H

#include <stdio.h>

typedef struct tfc_cluster_job {
  char *name;
  int n_tasks;
  char **addresses; /* host:port of task 0, 1, ... */
} tfc_cluster_job;

typedef struct tfc_cluster_spec {
  int n_jobs;
  tfc_cluster_job *jobs; /* sorted by name */
} tfc_cluster_spec;

/* Parses and checks `text`, given by `flag`, into *out (which the caller frees with
 * tfc_cluster_spec_fini, also after an error). Returns 0, or -1 after printing "tfc cluster:
 * INVALID_ARGUMENT: FLAG: ..." (the server parser's message). */
int tfc_cluster_spec_parse(const char *text, const char *flag, tfc_cluster_spec *out);
void tfc_cluster_spec_fini(tfc_cluster_spec *sp);

/* The job named `name`, or NULL. Borrowed from sp. */
const tfc_cluster_job *tfc_cluster_spec_job(const tfc_cluster_spec *sp, const char *name);

/* Whether `job` is one of the comma-separated names in `list`. */
int tfc_cluster_name_in_list(const char *job, const char *list);

/* The values the placeholders stand for, in the order of tfc_cluster_placeholders. */
enum { TFC_CLUSTER_PH_JOB, TFC_CLUSTER_PH_TASK, TFC_CLUSTER_PH_CLUSTER, TFC_CLUSTER_PH_ADDRESS,
       TFC_CLUSTER_PH_TARGET, TFC_CLUSTER_PH_COUNT };
extern const char *const tfc_cluster_placeholders[TFC_CLUSTER_PH_COUNT]; /* "job", "task", ... */

/* `tmpl` with every placeholder replaced by values[its index] as it is. When `escape` is not
 * NULL, the text around the placeholders goes through it (each character; it returns the
 * replacement string for the character, or NULL to keep it), so that the caller can quote the
 * literal parts for a shell and leave the values (shell variables) unquoted. Returns a new
 * string (the caller frees it), or NULL when out of memory. */
char *tfc_cluster_expand(const char *tmpl, const char *const values[TFC_CLUSTER_PH_COUNT],
                         const char *(*escape)(char c));

/* tfc cluster --k8s (tfc_cluster_k8s.c): the Kubernetes manifests of the cluster on `out`.
 * name: the prefix of every object's name; image: the container image holding tfc (and the
 * trainer); trainer_jobs: comma-separated jobs whose tasks run the trainer (argv, n_trainer
 * words; 0 for none); max_restarts: each Job's backoffLimit. Returns the exit code (0, or 2
 * after printing why the spec cannot run on Kubernetes). */
int tfc_cluster_k8s(const tfc_cluster_spec *sp, const char *name, const char *image, const char *trainer_jobs,
                    char **trainer, int n_trainer, int max_restarts, int cpus, FILE *out);

#endif
