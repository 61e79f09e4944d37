/*
 * TF_FunctionDebugString against TensorFlow's own (tests/fixtures/gen_function_debug.py writes
 * fdebug_NAME.fdef, a FunctionDef, and fdebug_NAME.txt, the text TF's TF_FunctionDebugString
 * gives for it): every line the same and in the same order, except the return / @return lines,
 * which TF prints in its map's unspecified order and which must match as a set. The fixtures
 * cover each attr kind, argument form and tensor rank the text has a rule for, and the
 * functions of a TF 2.x tf.function with If, While and a nested call.
 */
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "tensorflow/c/c_api_experimental.h"

/* Splits text into lines (in place); returns the count. */
static int split_lines(char *text, char **lines, int cap) {
  int n = 0;
  for (char *p = text; *p && n < cap;) {
    lines[n++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = 0;
    p = nl + 1;
  }
  return n;
}

static int is_return(const char *l) { return !strncmp(l, "  return ", 9) || !strncmp(l, "  @return ", 10); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void check(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "fdebug_%s.fdef", name);
  TF_Buffer *def = capi_read_fixture(path);
  snprintf(path, sizeof path, "fdebug_%s.txt", name);
  TF_Buffer *want_buf = capi_read_fixture(path);
  TF_Status *s = TF_NewStatus();
  TF_Function *f = TF_FunctionImportFunctionDef(def->data, def->length, s);
  OK(s);
  size_t len = 0;
  const char *got = TF_FunctionDebugString(f, &len);
  EXPECT_TRUE(got != NULL);
  EXPECT_EQ(len, strlen(got));
  char *g = strdup(got), *w = calloc(1, want_buf->length + 1);
  memcpy(w, want_buf->data, want_buf->length);
  EXPECT_EQ(got[0], '\n');
  char *gl[512], *wl[512], *gr[512], *wr[512];
  int ng = split_lines(g, gl, 512), nw = split_lines(w, wl, 512), ngr = 0, nwr = 0, k = 0;
  if (ng != nw) tfc_test_fail(__FILE__, __LINE__, "%s: %d lines, TensorFlow's %d:\n%s", name, ng, nw, got);
  for (int i = 0; i < ng; i++) {
    if (is_return(gl[i]) != is_return(wl[i]))
      tfc_test_fail(__FILE__, __LINE__, "%s line %d:\n  %s\nTensorFlow's:\n  %s", name, i, gl[i], wl[i]);
    if (is_return(gl[i])) {
      gr[ngr++] = gl[i];
      wr[nwr++] = wl[i];
    } else if (strcmp(gl[i], wl[i])) {
      tfc_test_fail(__FILE__, __LINE__, "%s line %d:\n  %s\nTensorFlow's:\n  %s", name, i, gl[i], wl[i]);
    }
  }
  qsort(gr, (size_t)ngr, sizeof *gr, cmp_str);
  qsort(wr, (size_t)nwr, sizeof *wr, cmp_str);
  for (k = 0; k < ngr; k++)
    if (strcmp(gr[k], wr[k])) tfc_test_fail(__FILE__, __LINE__, "%s: %s, TensorFlow's %s", name, gr[k], wr[k]);
  free((void *)got);
  free(g);
  free(w);
  TF_DeleteFunction(f);
  TF_DeleteStatus(s);
  TF_DeleteBuffer(def);
  TF_DeleteBuffer(want_buf);
}

/* Placeholder attrs, number_attr and typed args, allowed and open type attrs, control inputs
 * and outputs, a device, tensors of rank 0-2 (and empty, bool, string), every attr kind and
 * list kind, long and escaped strings, functions with and without attrs. */
static void hand_written_function_matches_tensorflow(void) { check("xtimestwo"); }
static void tf_function_bodies_match_tensorflow(void) {
  check("tf2_inference_inner");
  check("tf2_cond_true");
  check("tf2_cond_false");
  check("tf2_while_cond");
  check("tf2_while_body");
}

static const tfc_test tests[] = {
    TFC_TEST(hand_written_function_matches_tensorflow),
    TFC_TEST(tf_function_bodies_match_tensorflow),
    {0},
};

TFC_TEST_MAIN(tests)
