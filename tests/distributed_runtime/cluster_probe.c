/*
 * cluster_probe — what the shell tests of `tfc cluster` (tests/scripts/tfc_cluster_*.sh) need
 * from a TF 1.x client, in one small program:
 *
 *   cluster_probe ports N             N distinct free TCP ports of 127.0.0.1, space-separated
 *                                     (bound together with port 0, then released)
 *   cluster_probe run TARGET DEVICE   a session on TARGET ("grpc://127.0.0.1:P") runs
 *                                     y = x + x with x = [1, 2, 3] placed on DEVICE
 *                                     ("/job:worker/replica:0/task:1") and prints
 *                                     "DEVICE: [2 4 6]": proof that the task serves
 *   cluster_probe checkpoints DIR     every checkpoint DIR's "checkpoint" file lists, checked
 *                                     whole (TFC_CheckpointIntact): "PATH intact" or
 *                                     "PATH BROKEN: why" each, then "latest PATH global_step N"
 *                                     (the model path's saved global step); exit 1 when one is
 *                                     broken or the state file is missing
 *
 * run retries a failed attempt (a task may still be starting) every 200 ms for up to 60 s,
 * each attempt bounded by a 10 s run timeout, then prints the last error and exits 1.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tensorflow/c/c_api.h"
#include "tfc/saver.h"

static int free_ports(int n) {
  int fds[64];
  if (n < 1 || n > 64) return 2;
  for (int i = 0; i < n; i++) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fds[i], (struct sockaddr *)&a, &len) != 0) {
      perror("cluster_probe ports");
      return 1;
    }
    printf("%s%d", i ? " " : "", ntohs(a.sin_port));
  }
  printf("\n");
  for (int i = 0; i < n; i++) close(fds[i]);
  return 0;
}

static TF_Operation *add_op(TF_Graph *g, const char *type, const char *name, const char *device, TF_Output *in,
                            int n_in, TF_Tensor *value, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, device);
  for (int i = 0; i < n_in; i++) TF_AddInput(d, in[i]);
  if (value) {
    TF_SetAttrTensor(d, "value", value, s);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
  } else {
    TF_SetAttrType(d, "T", TF_FLOAT);
  }
  return TF_FinishOperation(d, s);
}

/* One attempt; 0 and the line printed, or -1 with s holding why. */
static int run_once(const char *target, const char *device, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  int64_t dims[] = {3};
  TF_Tensor *x = TF_AllocateTensor(TF_FLOAT, dims, 1, 3 * sizeof(float));
  float *xv = TF_TensorData(x);
  xv[0] = 1, xv[1] = 2, xv[2] = 3;
  TF_Operation *c = add_op(g, "Const", "x", device, NULL, 0, x, s);
  TF_DeleteTensor(x);
  TF_Operation *y = NULL;
  if (TF_GetCode(s) == TF_OK) {
    TF_Output in[] = {{c, 0}, {c, 0}};
    y = add_op(g, "AddV2", "y", device, in, 2, NULL, s);
  }
  TF_Session *sess = NULL;
  int rc = -1;
  if (TF_GetCode(s) == TF_OK) {
    TF_SessionOptions *o = TF_NewSessionOptions();
    TF_SetTarget(o, target);
    sess = TF_NewSession(g, o, s);
    TF_DeleteSessionOptions(o);
  }
  if (TF_GetCode(s) == TF_OK) {
    /* RunOptions { timeout_in_ms: 10000 }: field 2, varint 10000. */
    static const unsigned char ro[] = {0x10, 0x90, 0x4e};
    TF_Buffer *opts = TF_NewBufferFromString(ro, sizeof ro);
    TF_Output out = {y, 0};
    TF_Tensor *result = NULL;
    TF_SessionRun(sess, opts, NULL, NULL, 0, &out, &result, 1, NULL, 0, NULL, s);
    TF_DeleteBuffer(opts);
    if (TF_GetCode(s) == TF_OK && result && TF_TensorByteSize(result) == 3 * sizeof(float)) {
      const float *v = TF_TensorData(result);
      printf("%s: [%g %g %g]\n", device, v[0], v[1], v[2]);
      rc = 0;
    }
    TF_DeleteTensor(result);
  }
  if (sess) {
    TF_Status *cs = TF_NewStatus();
    TF_CloseSession(sess, cs);
    TF_DeleteSession(sess, cs);
    TF_DeleteStatus(cs);
  }
  TF_DeleteGraph(g);
  return rc;
}

/* The saved "global_step" of the checkpoint at prefix, or -1 (the reason printed). */
static long long saved_step(const char *prefix, TF_Status *s) {
  TFC_CheckpointReader *r = TFC_NewCheckpointReader(prefix, s);
  TF_Tensor *t = r ? TFC_CheckpointReaderGetTensor(r, "global_step", s) : NULL;
  long long step = -1;
  if (t && TF_TensorType(t) == TF_INT64) step = *(const int64_t *)TF_TensorData(t);
  else if (t && TF_TensorType(t) == TF_INT32) step = *(const int32_t *)TF_TensorData(t);
  else fprintf(stderr, "cluster_probe: global_step of %s: %s\n", prefix, TF_Message(s));
  TF_DeleteTensor(t);
  TFC_DeleteCheckpointReader(r);
  return step;
}

static int checkpoints(const char *dir) {
  TF_Status *s = TF_NewStatus();
  TFC_CheckpointState *st = TFC_GetCheckpointState(dir, NULL, s);
  int rc = 0;
  if (!st) {
    printf("no checkpoint state in %s: %s\n", dir, TF_GetCode(s) == TF_OK ? "no file" : TF_Message(s));
    rc = 1;
  }
  for (int i = 0; st && i < TFC_CheckpointStateNumPaths(st); i++) {
    const char *p = TFC_CheckpointStatePath(st, i);
    if (TFC_CheckpointIntact(p, s)) {
      printf("%s intact\n", p);
    } else {
      printf("%s BROKEN: %s\n", p, TF_Message(s));
      rc = 1;
    }
  }
  if (st) {
    const char *latest = TFC_CheckpointStateModelPath(st);
    long long step = saved_step(latest, s);
    printf("latest %s global_step %lld\n", latest, step);
    if (step < 0) rc = 1;
  }
  TFC_DeleteCheckpointState(st);
  TF_DeleteStatus(s);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "ports") == 0) return free_ports(atoi(argv[2]));
  if (argc == 3 && strcmp(argv[1], "checkpoints") == 0) return checkpoints(argv[2]);
  if (argc != 4 || strcmp(argv[1], "run") != 0) {
    fprintf(stderr, "usage: cluster_probe ports N | cluster_probe run TARGET DEVICE | cluster_probe checkpoints DIR\n");
    return 2;
  }
  TF_Status *s = TF_NewStatus();
  time_t give_up = time(NULL) + 60;
  while (time(NULL) < give_up) {
    if (run_once(argv[2], argv[3], s) == 0) {
      TF_DeleteStatus(s);
      return 0;
    }
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  fprintf(stderr, "cluster_probe: %s on %s: %s\n", argv[2], argv[3], TF_Message(s));
  TF_DeleteStatus(s);
  return 1;
}
