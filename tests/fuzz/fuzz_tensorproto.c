/* libFuzzer harness: TensorProto and AttrValue decoding. A decoded value must encode and
 * decode back to an equal value. */
#include <stdint.h>
#include <stdlib.h>

#include "proto/attr_codec.h"
#include "proto/tensor_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfc_tensor_proto_set_max_bytes(1 << 20);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = NULL;
  if (tfc_tensor_from_proto_bytes(data, size, &t, &s) == TFC_OK) {
    void *bytes = NULL;
    size_t len = 0;
    tfc_tensor *u = NULL;
    if (tfc_tensor_to_proto_bytes(t, &bytes, &len, &s) != TFC_OK) abort();
    if (tfc_tensor_from_proto_bytes(bytes, len, &u, &s) != TFC_OK) abort();
    tfc_attr_value a = tfc_attr_tensor(t), b = tfc_attr_tensor(u);
    if (!tfc_attr_value_equal(&a, &b)) abort();
    tfc_attr_value_fini(&a);
    tfc_attr_value_fini(&b);
    free(bytes);
  }
  tfc_status_clear(&s);
  tfc_attr_value v;
  if (tfc_attr_from_proto_bytes(data, size, &v, &s) == TFC_OK) {
    void *bytes = NULL;
    size_t len = 0;
    tfc_attr_value w;
    if (tfc_attr_to_proto_bytes(&v, &bytes, &len, &s) != TFC_OK) abort();
    if (tfc_attr_from_proto_bytes(bytes, len, &w, &s) != TFC_OK) abort();
    if (!tfc_attr_value_equal(&v, &w)) abort();
    tfc_attr_value_fini(&v);
    tfc_attr_value_fini(&w);
    free(bytes);
  }
  tfc_status_fini(&s);
  return 0;
}
