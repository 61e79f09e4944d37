/*
 * capi/server_def — include/tfc/server.h: a cluster spec string ("ps=h:1;worker=h:2,h:3")
 * parsed, checked and encoded as the ServerDef TF_NewServer takes.
 *
 * Parsing works on a private copy of the spec, cut in place at ';', '=' and ','; every part
 * is checked before anything is encoded, so an error names the first bad part and nothing is
 * built. Jobs go into the ClusterDef sorted by name, as TF Python's ClusterSpec.as_cluster_def
 * writes them, so the bytes match what Python would send for the same cluster.
 *
 * The ConfigProto is checked by decoding it but travels as the caller's bytes (fields this
 * runtime does not know survive): the ServerDef is encoded as fields 1-3, then field 4 by
 * hand, then fields 5-6, which is field order and therefore the canonical encoding.
 */
#include "tfc/server.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "capi/server_def.h"
#include "tensorflow/config.pb-c.h"
#include "tensorflow/tensorflow_server.pb-c.h"

#define FN "TFC_NewServerDef: "

typedef struct job {
  char *name;
  int n_tasks;
  char **tasks; /* into the spec copy */
} job;

typedef struct spec {
  char *copy; /* the cluster string, cut in place */
  int n_jobs;
  job *jobs;
} spec;

static void spec_fini(spec *sp) {
  for (int i = 0; i < sp->n_jobs; i++) free(sp->jobs[i].tasks);
  free(sp->jobs);
  free(sp->copy);
}

static int count_char(const char *s, char c) {
  int n = 0;
  for (; *s; s++) n += *s == c;
  return n;
}

/* TF's job name syntax (device_name_utils): a letter, then letters, digits, underscores. */
static int valid_job_name(const char *s) {
  if (!isalpha((unsigned char)s[0])) return 0;
  for (s++; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

/* host:port, with a bracketed IPv6 literal allowed as the host. */
static int check_address(const char *fn, const char *jobname, int task, const char *addr, tfc_status *s) {
  if (!addr[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sjob '%s' task %d: empty address", fn, jobname, task);
  const char *port;
  int host_ok = 1;
  if (addr[0] == '[') {
    const char *close = strchr(addr, ']');
    host_ok = close && close > addr + 1 && close[1] == ':';
    for (const char *p = addr + 1; host_ok && p < close; p++)
      host_ok = isxdigit((unsigned char)*p) || *p == ':' || *p == '.';
    port = host_ok ? close + 2 : NULL;
  } else {
    const char *colon = strrchr(addr, ':');
    host_ok = colon && colon > addr;
    for (const char *p = addr; host_ok && p < colon; p++)
      host_ok = isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_';
    port = host_ok ? colon + 1 : NULL;
  }
  size_t nd = port ? strspn(port, "0123456789") : 0;
  if (!host_ok || nd == 0 || port[nd] != '\0')
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sjob '%s' task %d: '%s' is not host:port", fn, jobname, task,
                          addr);
  if (nd > 5 || atol(port) > 65535)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sjob '%s' task %d: port %s in '%s' is out of range [0, 65535]", fn,
                          jobname, task, port, addr);
  return TFC_OK;
}

static int job_cmp(const void *a, const void *b) {
  return strcmp(((const job *)a)->name, ((const job *)b)->name);
}

/* Parses `cluster` into sp (which the caller finis, also on error). */
static int parse_cluster(const char *fn, const char *cluster, spec *sp, tfc_status *s) {
  memset(sp, 0, sizeof *sp);
  if (!cluster || !cluster[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%scluster is empty", fn);
  if (!(sp->copy = strdup(cluster))) return TFC_OOM(s);
  int max_jobs = count_char(cluster, ';') + 1;
  if (!(sp->jobs = calloc((size_t)max_jobs, sizeof *sp->jobs))) return TFC_OOM(s);
  char *entry = sp->copy;
  for (int j = 0; j < max_jobs; j++) {
    /* Cut the next entry by hand: strtok would skip empty entries instead of reporting them. */
    char *semi = strchr(entry, ';');
    if (semi) *semi = '\0';
    if (!entry[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sempty job entry in cluster '%s'", fn, cluster);
    char *eq = strchr(entry, '=');
    if (!eq)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%scluster entry '%s' is not job=host:port[,host:port...]", fn,
                            entry);
    *eq = '\0';
    job *jb = &sp->jobs[sp->n_jobs++];
    jb->name = entry;
    if (!entry[0])
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sjob entry '=%s' has an empty job name", fn, eq + 1);
    if (!valid_job_name(entry))
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "%sjob name '%s' is not valid: it must be a letter followed by letters, digits or "
                            "underscores",
                            fn, entry);
    for (int k = 0; k < sp->n_jobs - 1; k++)
      if (strcmp(sp->jobs[k].name, entry) == 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sjob '%s' appears twice in cluster '%s'", fn, entry, cluster);
    char *addrs = eq + 1;
    if (!addrs[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sjob '%s' has no tasks", fn, entry);
    int max_tasks = count_char(addrs, ',') + 1;
    if (!(jb->tasks = calloc((size_t)max_tasks, sizeof *jb->tasks))) return TFC_OOM(s);
    char *a = addrs;
    for (int t = 0; t < max_tasks; t++) {
      char *comma = strchr(a, ',');
      if (comma) *comma = '\0';
      TFC_TRY(check_address(fn, entry, t, a, s));
      jb->tasks[jb->n_tasks++] = a;
      if (comma) a = comma + 1;
    }
    if (semi) entry = semi + 1;
  }
  qsort(sp->jobs, (size_t)sp->n_jobs, sizeof *sp->jobs, job_cmp);
  return TFC_OK;
}

/* Finds job_name and checks task_index against it. */
static int check_task(const spec *sp, const char *job_name, int task_index, tfc_status *s) {
  if (!job_name || !job_name[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "job_name is empty");
  for (int j = 0; j < sp->n_jobs; j++) {
    if (strcmp(sp->jobs[j].name, job_name) != 0) continue;
    if (task_index < 0 || task_index >= sp->jobs[j].n_tasks)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "task_index %d is out of range for job '%s' with %d task%s",
                            task_index, job_name, sp->jobs[j].n_tasks, sp->jobs[j].n_tasks == 1 ? "" : "s");
    return TFC_OK;
  }
  /* Name the jobs there are (sorted by name). */
  char list[512] = "";
  size_t used = 0;
  for (int j = 0; j < sp->n_jobs && used < sizeof list; j++) {
    int n = snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "", sp->jobs[j].name);
    if (n < 0) break;
    used += (size_t)n;
  }
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "job '%s' is not in the cluster (jobs: %s)", job_name, list);
}

static size_t varint_put(uint8_t *out, uint64_t v) {
  size_t n = 0;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out[n++] = (uint8_t)(b | (v ? 0x80 : 0));
  } while (v);
  return n;
}

/* Encodes the ServerDef; the result is malloc'd. */
static int encode(const spec *sp, const char *job_name, int task_index, int port, const void *config,
                  size_t config_len, uint8_t **out, size_t *out_len, tfc_status *s) {
  int n_entries = 0;
  for (int j = 0; j < sp->n_jobs; j++) n_entries += sp->jobs[j].n_tasks;
  Tensorflow__JobDef *jobs = calloc((size_t)sp->n_jobs, sizeof *jobs);
  Tensorflow__JobDef **job_ptrs = calloc((size_t)sp->n_jobs, sizeof *job_ptrs);
  Tensorflow__JobDef__TasksEntry *entries = calloc((size_t)n_entries, sizeof *entries);
  Tensorflow__JobDef__TasksEntry **entry_ptrs = calloc((size_t)n_entries, sizeof *entry_ptrs);
  uint8_t *buf = NULL;
  if (!jobs || !job_ptrs || !entries || !entry_ptrs) {
    TFC_OOM(s);
    goto out;
  }
  int e = 0;
  for (int j = 0; j < sp->n_jobs; j++) {
    tensorflow__job_def__init(&jobs[j]);
    jobs[j].name = sp->jobs[j].name;
    jobs[j].n_tasks = (size_t)sp->jobs[j].n_tasks;
    jobs[j].tasks = entry_ptrs + e;
    for (int t = 0; t < sp->jobs[j].n_tasks; t++, e++) {
      tensorflow__job_def__tasks_entry__init(&entries[e]);
      entries[e].key = t;
      entries[e].value = sp->jobs[j].tasks[t];
      entry_ptrs[e] = &entries[e];
    }
    job_ptrs[j] = &jobs[j];
  }
  Tensorflow__ClusterDef cd = TENSORFLOW__CLUSTER_DEF__INIT;
  cd.n_job = (size_t)sp->n_jobs;
  cd.job = job_ptrs;
  Tensorflow__ServerDef head = TENSORFLOW__SERVER_DEF__INIT, tail = TENSORFLOW__SERVER_DEF__INIT;
  head.cluster = &cd;
  head.job_name = (char *)job_name;
  head.task_index = task_index;
  tail.protocol = "grpc";
  tail.port = port;
  size_t head_len = tensorflow__server_def__get_packed_size(&head);
  size_t tail_len = tensorflow__server_def__get_packed_size(&tail);
  size_t total = head_len + (config ? 1 + 10 + config_len : 0) + tail_len;
  if (!(buf = malloc(total))) {
    TFC_OOM(s);
    goto out;
  }
  size_t n = tensorflow__server_def__pack(&head, buf);
  if (config) {
    buf[n++] = (4 << 3) | 2; /* field 4, length-delimited */
    n += varint_put(buf + n, config_len);
    memcpy(buf + n, config, config_len);
    n += config_len;
  }
  n += tensorflow__server_def__pack(&tail, buf + n);
  *out = buf;
  *out_len = n;
  buf = NULL;
out:
  free(buf);
  free(jobs);
  free(job_ptrs);
  free(entries);
  free(entry_ptrs);
  return s->code;
}

static TF_Buffer *new_server_def(const char *cluster, const char *job_name, int task_index, int port,
                                 const void *config, size_t config_len, tfc_status *s) {
  spec sp;
  TF_Buffer *b = NULL;
  uint8_t *bytes = NULL;
  size_t len = 0;
  if (parse_cluster(FN, cluster, &sp, s) || check_task(&sp, job_name, task_index, s)) goto out;
  if (port < 0 || port > 65535) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "port %d is out of range [0, 65535]", port);
    goto out;
  }
  if (!config && config_len) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "config_proto is NULL but config_len is %zu", config_len);
    goto out;
  }
  if (config) {
    Tensorflow__ConfigProto *cp = tensorflow__config_proto__unpack(NULL, config_len, config);
    if (!cp) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, FN "config_proto (%zu bytes) is not a valid serialized ConfigProto",
                     config_len);
      goto out;
    }
    tensorflow__config_proto__free_unpacked(cp, NULL);
  }
  if (encode(&sp, job_name, task_index, port, config, config_len, &bytes, &len, s)) goto out;
  if (!(b = TF_NewBuffer())) {
    free(bytes);
    TFC_OOM(s);
  } else if (tfc_capi_fill_buffer(b, bytes, len, s)) {
    TF_DeleteBuffer(b);
    b = NULL;
  }
out:
  spec_fini(&sp);
  return b;
}

int tfc_cluster_spec_num_tasks(const char *cluster, const char *job_name, const char *fn, int *out_n,
                                tfc_status *s) {
  spec sp;
  *out_n = -1;
  int rc = parse_cluster(fn, cluster, &sp, s);
  for (int j = 0; !rc && j < sp.n_jobs; j++)
    if (job_name && strcmp(sp.jobs[j].name, job_name) == 0) *out_n = sp.jobs[j].n_tasks;
  spec_fini(&sp);
  return rc;
}

TFC_EXPORT TF_Buffer *TFC_NewServerDef(const char *cluster, const char *job_name, int task_index, int port,
                                       const void *config_proto, size_t config_len, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  TF_Buffer *b = new_server_def(cluster, job_name, task_index, port, config_proto, config_len, s);
  tfc_status_fini(&scratch);
  return b;
}

TFC_EXPORT TF_Buffer *TFC_NewLocalServerDef(TF_Status *status) {
  return TFC_NewServerDef("local=localhost:0", "local", 0, 0, NULL, 0, status);
}
