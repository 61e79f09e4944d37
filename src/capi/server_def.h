/*
 * capi/server_def — what the cluster spec parser of include/tfc/server.h offers inside the
 * library: the size of one job of a cluster string (the replica device setter's ps job).
 */
#ifndef TFC_CAPI_SERVER_DEF_H
#define TFC_CAPI_SERVER_DEF_H

#include "base/status.h"

/* The number of tasks of job `job_name` in `cluster` (server.h's syntax) in *out_n, -1 when
 * the cluster has no such job. The cluster is checked as TFC_NewServerDef checks it; its
 * errors (INVALID_ARGUMENT) start with `fn` (the caller's name, "F: "). Thread-safe. */
int tfc_cluster_spec_num_tasks(const char *cluster, const char *job_name, const char *fn, int *out_n,
                               tfc_status *s);

#endif
