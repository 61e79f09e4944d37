/*
 * seed_matmul — the seed program, in C against the TensorFlow 1.15 C API:
 *
 *   a = constant([1,2,3,4,5,6], shape [2,3]); b = constant([1,2,3,4,5,6], shape [3,2])
 *   c = matmul(a, b);  run(c) -> [[22. 28.] [49. 64.]]
 *
 * Then it writes the graph to a GraphDef file, imports that file into a fresh graph and runs
 * it again, as a program loading a model would.
 *
 * Usage: seed_matmul [out.pb]   (default: seed_matmul.pb in the current directory)
 */
#include "example_util.h"

/* Runs c:0 and prints it numpy-style: [[22. 28.] [49. 64.]] */
static void run_and_print(TF_Graph *g, const char *label, TF_Status *s) {
  TF_Operation *c = TF_GraphOperationByName(g, "c");
  if (!c) {
    fprintf(stderr, "no node 'c' in the graph\n");
    exit(1);
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  ex_check(s, "TF_NewSession");
  TF_Output out = {c, 0};
  TF_Tensor *result = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &result, 1, NULL, 0, NULL, s);
  ex_check(s, "TF_SessionRun");
  printf("%s: ", label);
  ex_print_matrix("", result);
  TF_DeleteTensor(result);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "seed_matmul.pb";
  printf("tfc, TensorFlow C API %s\n", TF_Version());
  TF_Status *s = TF_NewStatus();

  /* 1. Build the seed graph op by op. */
  TF_Graph *g = TF_NewGraph();
  const float vals[6] = {1, 2, 3, 4, 5, 6};
  const int64_t da[2] = {2, 3}, db[2] = {3, 2};
  TF_Operation *a = ex_const(g, "a", "", da, 2, vals, s);
  TF_Operation *b = ex_const(g, "b", "", db, 2, vals, s);
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "c");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_FinishOperation(d, s);
  ex_check(s, "TF_FinishOperation(MatMul)");
  run_and_print(g, "built with the C API", s);

  /* 2. Write it as a GraphDef. */
  TF_Buffer *buf = TF_NewBuffer();
  TF_GraphToGraphDef(g, buf, s);
  ex_check(s, "TF_GraphToGraphDef");
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(buf->data, 1, buf->length, f) != buf->length || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    return 1;
  }
  printf("wrote %s (%zu bytes)\n", path, buf->length);
  TF_DeleteBuffer(buf);
  TF_DeleteGraph(g);

  /* 3. Import the file into a fresh graph and run again. */
  f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = malloc((size_t)len);
  if (!bytes || fread(bytes, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  fclose(f);
  TF_Buffer *gd = TF_NewBufferFromString(bytes, (size_t)len);
  free(bytes);
  TF_Graph *g2 = TF_NewGraph();
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g2, gd, io, s);
  ex_check(s, "TF_GraphImportGraphDef");
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);
  run_and_print(g2, "imported from the GraphDef", s);
  TF_DeleteGraph(g2);
  TF_DeleteStatus(s);
  return 0;
}
