/*
 * multi_tower — TensorFlow's multi-device example, in C:
 *
 *   c = []
 *   for d in ['/device:CPU:2', '/device:CPU:3']:       # ['/device:GPU:2', '/device:GPU:3'] in TF's guide
 *     with tf.device(d):
 *       a = tf.constant([1., 2., 3., 4., 5., 6.], shape=[2, 3])
 *       b = tf.constant([1., 2., 3., 4., 5., 6.], shape=[3, 2])
 *       c.append(tf.matmul(a, b))
 *   with tf.device('/cpu:0'):
 *     sum = tf.add_n(c)
 *   sess = tf.Session(config=tf.ConfigProto(device_count={'CPU': 4}, log_device_placement=True))
 *   print(sess.run(sum))        # [[ 44.  56.] [ 98. 128.]]
 *
 * The session has four CPU devices; each tower runs on its own, the sum on CPU:0, and the
 * partitioner joins them with _Send/_Recv pairs. The placement log is TF's.
 *
 * Usage: multi_tower [--gpu]
 *   --gpu asks for /device:GPU:2 and /device:GPU:3, as TF's guide does, with
 *   allow_soft_placement: on a machine without them the towers fall back to a CPU and the log
 *   says where each node went (with tfc's placement reasons).
 */
#include "example_util.h"

int main(int argc, char **argv) {
  int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float vals[6] = {1, 2, 3, 4, 5, 6};
  const int64_t da[2] = {2, 3}, db[2] = {3, 2};
  const char *devices[2] = {"/device:CPU:2", "/device:CPU:3"};
  if (gpu) devices[0] = "/device:GPU:2", devices[1] = "/device:GPU:3";
  /* The names Python gives these nodes: Const, Const_1, MatMul, Const_2, ... */
  const char *names[2][3] = {{"Const", "Const_1", "MatMul"}, {"Const_2", "Const_3", "MatMul_1"}};
  TF_Output towers[2];
  for (int t = 0; t < 2; t++) {
    TF_Operation *a = ex_const(g, names[t][0], devices[t], da, 2, vals, s);
    TF_Operation *b = ex_const(g, names[t][1], devices[t], db, 2, vals, s);
    towers[t] = (TF_Output){ex_binary(g, "MatMul", names[t][2], devices[t], (TF_Output){a, 0}, (TF_Output){b, 0}, s), 0};
  }
  TF_OperationDescription *d = TF_NewOperation(g, "AddN", "AddN");
  TF_SetDevice(d, "/cpu:0");
  TF_AddInputList(d, towers, 2);
  TF_Operation *sum = TF_FinishOperation(d, s);
  ex_check(s, "TF_FinishOperation(AddN)");

  TF_SessionOptions *opts = ex_options(4, 1, gpu, s);
  if (gpu) TFC_SetLogPlacementReasons(opts, 1);
  TF_Session *sess = TF_NewSession(g, opts, s);
  ex_check(s, "TF_NewSession");
  TF_Output out = {sum, 0};
  TF_Tensor *result = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &result, 1, NULL, 0, NULL, s);
  ex_check(s, "TF_SessionRun");
  fflush(stdout);
  ex_print_matrix("", result);

  TF_DeviceList *dl = TF_SessionListDevices(sess, s);
  ex_check(s, "TF_SessionListDevices");
  printf("%d devices:", TF_DeviceListCount(dl));
  for (int i = 0; i < TF_DeviceListCount(dl); i++) printf(" %s", TF_DeviceListName(dl, i, s));
  printf("\n");
  TF_DeleteDeviceList(dl);
  TF_DeleteTensor(result);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
