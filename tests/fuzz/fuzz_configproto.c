/* libFuzzer harness: ConfigProto decoding. A failed parse leaves the config unchanged; a
 * successful one keeps the raw bytes exactly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_session_config c, d;
  tfc_session_config_init(&c);
  c.allow_soft_placement = 7; /* a marker a failed parse must not touch */
  if (tfc_session_config_parse(&c, data, size, &s) == TFC_OK) {
    if (c.raw_len != size || (size && memcmp(c.raw, data, size) != 0)) abort();
    if (c.n_device_counts < 0 || c.n_device_counts > TFC_CONFIG_MAX_DEVICE_TYPES) abort();
    if (tfc_session_config_copy(&c, &d, &s) != TFC_OK) abort();
    tfc_session_config_fini(&d);
  } else if (c.allow_soft_placement != 7 || s.code != TFC_INVALID_ARGUMENT) {
    abort();
  }
  tfc_session_config_fini(&c);
  tfc_status_fini(&s);
  return 0;
}
