/* libFuzzer harness: the `tfc run --feed` value parser (tools/tfc_feed.c). The first byte picks
 * the dtype, the rest is the text. A parse either fails with a reason or gives a value whose
 * shape holds exactly its elements; anything else aborts.
 *
 * The normal build replays tests/fuzz/seeds/fuzz_feed/ and tests/fuzz/regress/fuzz_feed/
 * through it (replay_main.c; ctest fuzz_replay_feed), so a crash found once stays tested.
 *
 *   cmake -S . -B build-fuzz -DTFC_FUZZ=ON -DCMAKE_C_COMPILER=clang
 *   cmake --build build-fuzz --target fuzz_feed
 *   cp -r tests/fuzz/seeds/fuzz_feed corpus
 *   build-fuzz/tests/fuzz_feed -dict=tests/fuzz/fuzz_feed.dict -max_total_time=600 corpus */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfc_feed.h"

static const TF_DataType kDtypes[] = {TF_FLOAT,  TF_DOUBLE, TF_INT32,  TF_UINT8,  TF_INT16,    TF_INT8,
                                      TF_STRING, TF_INT64,  TF_BOOL,   TF_UINT16, TF_HALF,     TF_BFLOAT16,
                                      TF_UINT32, TF_UINT64, TF_COMPLEX64};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  TF_DataType dt = kDtypes[data[0] % (sizeof kDtypes / sizeof kDtypes[0])];
  char *text = malloc(size);
  if (!text) return 0;
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  tfc_feed_value v;
  char err[256];
  if (tfc_feed_parse(text, dt, &v, err, sizeof err) == 0) {
    int64_t n = 1;
    if (v.n_dims < 0 || v.n_dims > TFC_FEED_MAX_DIMS) abort();
    for (int i = 0; i < v.n_dims; i++) {
      if (v.dims[i] < 0) abort();
      n *= v.dims[i];
    }
    if (n != v.n_elems || v.dtype != dt) abort();
    if (dt == TF_STRING) {
      for (int64_t i = 0; i < n; i++)
        if (v.strings[i][v.lengths[i]] != '\0') abort();
    } else if (!v.data) {
      abort();
    }
    tfc_feed_value_fini(&v);
  } else if (err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL) {
    abort();
  }
  free(text);
  return 0;
}
