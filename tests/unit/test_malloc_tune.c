/* Unit tests of base/malloc_tune: once a session's CPU device is set up, freeing a block at the
 * top of glibc's heap leaves the space in the heap (the next step's tensors reuse it without
 * page faults) instead of returning it to the kernel; TFC_MALLOC_TUNE=0 keeps glibc's
 * behaviour. Only with glibc's own allocator (not under a sanitizer's). */
#include <stdlib.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <malloc.h>
#define HAVE_GLIBC_MALLOC 1
#else
#define HAVE_GLIBC_MALLOC 0
#endif

static void open_session(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* Bytes of free space left at the top of the main heap after a 512 KiB block there is freed. */
static size_t top_after_free(void) {
#if HAVE_GLIBC_MALLOC
  char *p = malloc(512 << 10);
  EXPECT_TRUE(p != NULL);
  for (size_t i = 0; i < (512u << 10); i += 4096) p[i] = 1;
  free(p);
  return mallinfo2().keepcost;
#else
  return 0;
#endif
}

static void a_session_keeps_freed_heap_space(void) {
  if (!HAVE_GLIBC_MALLOC) tfc_test_skip("needs glibc's allocator");
  unsetenv("TFC_MALLOC_TUNE");
  open_session();
  size_t kept = top_after_free();
  if (kept < (512u << 10)) tfc_test_fail(__FILE__, __LINE__, "top of heap after free: %zu bytes, want >= 512 KiB", kept);
}

static void malloc_tune_0_keeps_glibc_defaults(void) {
  if (!HAVE_GLIBC_MALLOC) tfc_test_skip("needs glibc's allocator");
  setenv("TFC_MALLOC_TUNE", "0", 1);
  open_session();
  size_t kept = top_after_free();
  if (kept >= (512u << 10)) tfc_test_fail(__FILE__, __LINE__, "top of heap after free: %zu bytes, want trimmed", kept);
}

static const tfc_test tests[] = {
    TFC_TEST(a_session_keeps_freed_heap_space),
    TFC_TEST(malloc_tune_0_keeps_glibc_defaults),
    {0}};

TFC_TEST_MAIN(tests)
