/*
 * tfc cluster --k8s — the Kubernetes manifests of a cluster (YAML on stdout, for kubectl apply
 * -f -), the way TF clusters ran on Kubernetes: one pod per task, found by a stable DNS name.
 *
 * Per job of the spec, two objects named NAME-JOB (lowercase, '_' as '-'):
 *   - a headless Service (clusterIP None, publishNotReadyAddresses, so that every task's DNS
 *     name resolves as soon as its pod exists: tasks look each other up while they start);
 *   - a StatefulSet of `tfc server` pods (restartPolicy Always: a dead server comes back under
 *     the same name), or, for a job in --trainer-jobs when a trainer is given, an Indexed Job
 *     of trainer pods (restartPolicy OnFailure, backoffLimit --max-restarts, done when every
 *     index succeeded) whose subdomain is the Service.
 * Either way pod i of job J is named NAME-J-i and reachable as NAME-J-i.NAME-J, so the cluster
 * spec every pod gets is the given one with each host rewritten to that name and the ports
 * kept ("ps=tfc-ps-0.tfc-ps:2222;worker=tfc-worker-0.tfc-worker:2223,...").
 *
 * A pod learns its task index from its hostname's suffix (StatefulSets and Indexed Jobs both
 * name pods NAME-J-<index>), in a small sh script that sets TFC_JOB, TFC_TASK, TFC_CLUSTER,
 * TFC_ADDRESS, TFC_TARGET and TF_CONFIG, then execs the server or the trainer. The trainer's
 * placeholders become those variables; the rest of its words are quoted for the shell. The
 * image must hold tfc (on PATH) and whatever the trainer runs.
 *
 * Errors (exit code 2): a port 0 (pods need fixed ports), a --name that is not a DNS label, two
 * jobs whose names differ only in case or '_', a name too long for a DNS label with its
 * suffixes, control characters in the trainer's words.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfc_cluster.h"

/* The longest NAME-JOB: a pod's hostname adds "-<index>" and must stay a 63-byte DNS label;
 * StatefulSets also add an 11-byte controller-revision hash to a label of their pods. */
#define MAX_OBJECT_NAME 50

/* NAME-JOB as a DNS label into out: lowercase, '_' as '-'. The caller checked the length. */
static void object_name(const char *name, const char *job, char *out, size_t cap) {
  if (snprintf(out, cap, "%s-%s", name, job) >= (int)cap) out[cap - 1] = '\0';
  for (char *p = out; *p; p++) *p = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
}

/* A YAML double-quoted scalar (JSON's escapes). */
static void yaml_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) fprintf(f, "\\x%02x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* Inside a double-quoted shell word, these four are special. */
static const char *sh_dq_escape(char c) {
  switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '$': return "\\$";
    case '`': return "\\`";
    default: return NULL;
  }
}

static void labels(FILE *f, const char *ind, const char *name, const char *job) {
  fprintf(f, "%sapp.kubernetes.io/name: tfc\n%sapp.kubernetes.io/instance: ", ind, ind);
  yaml_str(f, name);
  fprintf(f, "\n%stfc-job: ", ind);
  yaml_str(f, job);
  fputc('\n', f);
}

/* The pod's script, each line indented by `ind` (a YAML block scalar's body). */
static int pod_script(FILE *f, const char *ind, const tfc_cluster_spec *sp, const char *const *hosts,
                      const char *k8s_spec, int j, char **trainer, int n_trainer, int cpus) {
  const tfc_cluster_job *jb = &sp->jobs[j];
  fprintf(f, "%sTFC_TASK=${HOSTNAME##*-}\n%sTFC_JOB=%s\n%sTFC_CLUSTER='%s'\n%scase $TFC_TASK in\n", ind, ind,
          jb->name, ind, k8s_spec, ind);
  for (int t = 0; t < jb->n_tasks; t++) {
    const char *port = strrchr(jb->addresses[t], ':') + 1;
    fprintf(f, "%s%d) TFC_ADDRESS='%s-%d.%s:%s' ;;\n", ind, t, hosts[j], t, hosts[j], port);
  }
  fprintf(f, "%s*) echo \"$HOSTNAME: no task $TFC_TASK in job $TFC_JOB\" >&2; exit 2 ;;\n%sesac\n", ind, ind);
  fprintf(f, "%sTFC_TARGET=grpc://$TFC_ADDRESS\n", ind);
  /* TF_CONFIG: the cluster as JSON, then this task. */
  fprintf(f, "%sexport TF_CONFIG='{\"cluster\": {", ind);
  for (int k = 0; k < sp->n_jobs; k++) {
    fprintf(f, "%s\"%s\": [", k ? ", " : "", sp->jobs[k].name);
    for (int t = 0; t < sp->jobs[k].n_tasks; t++)
      fprintf(f, "%s\"%s-%d.%s:%s\"", t ? ", " : "", hosts[k], t, hosts[k], strrchr(sp->jobs[k].addresses[t], ':') + 1);
    fputc(']', f);
  }
  fprintf(f, "}, \"task\": {\"type\": \"%s\", \"index\": '\"$TFC_TASK\"'}}'\n", jb->name);
  if (!trainer) {
    fprintf(f, "%sexec tfc server --cluster \"$TFC_CLUSTER\" --job \"$TFC_JOB\" --task \"$TFC_TASK\"", ind);
    if (cpus) fprintf(f, " --cpus %d", cpus);
    fputc('\n', f);
    return 0;
  }
  static const char *const vars[TFC_CLUSTER_PH_COUNT] = {"${TFC_JOB}", "${TFC_TASK}", "${TFC_CLUSTER}",
                                                         "${TFC_ADDRESS}", "${TFC_TARGET}"};
  fprintf(f, "%sexec", ind);
  for (int i = 0; i < n_trainer; i++) {
    char *w = tfc_cluster_expand(trainer[i], vars, sh_dq_escape);
    if (!w) return -1;
    fprintf(f, " \"%s\"", w);
    free(w);
  }
  fputc('\n', f);
  return 0;
}

int tfc_cluster_k8s(const tfc_cluster_spec *sp, const char *name, const char *image, const char *trainer_jobs,
                    char **trainer, int n_trainer, int max_restarts, int cpus, FILE *out) {
  /* Check what Kubernetes needs before writing anything. */
  int name_ok = isalpha((unsigned char)name[0]) && islower((unsigned char)name[0]);
  for (const char *p = name; name_ok && *p; p++)
    name_ok = islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-';
  if (!name_ok || name[strlen(name) - 1] == '-') {
    fprintf(stderr,
            "tfc cluster: INVALID_ARGUMENT: --name '%s' is not a DNS label (lowercase letters, digits and '-', from a "
            "letter)\n",
            name);
    return 2;
  }
  for (int i = 0; i < n_trainer; i++)
    for (const char *p = trainer[i]; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f) {
        fprintf(stderr, "tfc cluster: INVALID_ARGUMENT: --k8s: trainer word %d holds a control character\n", i + 1);
        return 2;
      }
  char(*hosts)[64] = calloc((size_t)sp->n_jobs, sizeof *hosts);
  const char **host_ptrs = calloc((size_t)sp->n_jobs, sizeof *host_ptrs);
  int rc = 2;
  char *spec = NULL;
  size_t spec_len = 0;
  FILE *sf = NULL;
  if (!hosts || !host_ptrs || !(sf = open_memstream(&spec, &spec_len))) {
    fprintf(stderr, "tfc cluster: RESOURCE_EXHAUSTED: out of memory\n");
    goto out;
  }
  for (int j = 0; j < sp->n_jobs; j++) {
    const tfc_cluster_job *jb = &sp->jobs[j];
    if (strlen(name) + 1 + strlen(jb->name) > MAX_OBJECT_NAME) {
      fprintf(stderr, "tfc cluster: INVALID_ARGUMENT: --k8s: '%s-%s' is longer than %d characters: a shorter --name\n",
              name, jb->name, MAX_OBJECT_NAME);
      goto out;
    }
    object_name(name, jb->name, hosts[j], sizeof hosts[j]);
    host_ptrs[j] = hosts[j];
    for (int k = 0; k < j; k++)
      if (strcmp(hosts[k], hosts[j]) == 0) {
        fprintf(stderr, "tfc cluster: INVALID_ARGUMENT: --k8s: jobs '%s' and '%s' both become '%s'\n",
                sp->jobs[k].name, jb->name, hosts[j]);
        goto out;
      }
    fprintf(sf, "%s%s=", j ? ";" : "", jb->name);
    for (int t = 0; t < jb->n_tasks; t++) {
      const char *port = strrchr(jb->addresses[t], ':') + 1;
      if (atoi(port) == 0) {
        fprintf(stderr,
                "tfc cluster: INVALID_ARGUMENT: --k8s: job '%s' task %d: port 0 in '%s': pods need the port fixed in "
                "the spec\n",
                jb->name, t, jb->addresses[t]);
        goto out;
      }
      fprintf(sf, "%s%s-%d.%s:%s", t ? "," : "", hosts[j], t, hosts[j], port);
    }
  }
  if (fclose(sf) != 0) {
    sf = NULL;
    fprintf(stderr, "tfc cluster: RESOURCE_EXHAUSTED: out of memory\n");
    goto out;
  }
  sf = NULL;

  fprintf(out, "# tfc cluster '%s' on Kubernetes: %s\n", name, spec);
  for (int j = 0; j < sp->n_jobs; j++) {
    const tfc_cluster_job *jb = &sp->jobs[j];
    int runs_trainer = n_trainer > 0 && tfc_cluster_name_in_list(jb->name, trainer_jobs);
    const char *h = hosts[j];
    /* The headless Service: one DNS name per pod. */
    fprintf(out, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  labels:\n", h);
    labels(out, "    ", name, jb->name);
    fprintf(out, "spec:\n  clusterIP: None\n  publishNotReadyAddresses: true\n  selector:\n");
    labels(out, "    ", name, jb->name);
    fprintf(out, "  ports:\n");
    for (int t = 0; t < jb->n_tasks; t++) {
      int port = atoi(strrchr(jb->addresses[t], ':') + 1), seen = 0;
      for (int k = 0; k < t; k++) seen |= atoi(strrchr(jb->addresses[k], ':') + 1) == port;
      if (!seen) fprintf(out, "  - name: grpc-%d\n    port: %d\n", port, port);
    }
    /* The workload. */
    if (runs_trainer) {
      fprintf(out,
              "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  labels:\n", h);
      labels(out, "    ", name, jb->name);
      fprintf(out,
              "spec:\n  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n  backoffLimit: %d\n"
              "  template:\n    metadata:\n      labels:\n",
              jb->n_tasks, jb->n_tasks, max_restarts);
      labels(out, "        ", name, jb->name);
      fprintf(out, "    spec:\n      subdomain: %s\n      restartPolicy: OnFailure\n", h);
    } else {
      fprintf(out, "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: %s\n  labels:\n", h);
      labels(out, "    ", name, jb->name);
      fprintf(out,
              "spec:\n  serviceName: %s\n  replicas: %d\n  podManagementPolicy: Parallel\n  selector:\n"
              "    matchLabels:\n",
              h, jb->n_tasks);
      labels(out, "      ", name, jb->name);
      fprintf(out, "  template:\n    metadata:\n      labels:\n");
      labels(out, "        ", name, jb->name);
      fprintf(out, "    spec:\n      restartPolicy: Always\n");
    }
    fprintf(out, "      containers:\n      - name: tfc\n        image: ");
    yaml_str(out, image);
    fprintf(out, "\n        command: [\"sh\", \"-c\"]\n        args:\n        - |\n");
    if (pod_script(out, "          ", sp, host_ptrs, spec, j, runs_trainer ? trainer : NULL, n_trainer, cpus) != 0) {
      fprintf(stderr, "tfc cluster: RESOURCE_EXHAUSTED: out of memory\n");
      goto out;
    }
    fprintf(out, "        ports:\n");
    for (int t = 0; t < jb->n_tasks; t++) {
      int port = atoi(strrchr(jb->addresses[t], ':') + 1), seen = 0;
      for (int k = 0; k < t; k++) seen |= atoi(strrchr(jb->addresses[k], ':') + 1) == port;
      if (!seen) fprintf(out, "        - containerPort: %d\n", port);
    }
  }
  rc = fflush(out) == 0 ? 0 : 1;
out:
  if (sf) fclose(sf);
  free(spec);
  free(hosts);
  free(host_ptrs);
  return rc;
}
