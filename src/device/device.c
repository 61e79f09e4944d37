/* device — see device.h. */
#include "device/device.h"

#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void tfc_device_free(tfc_device *d) {
  if (d) d->ops->free(d);
}

uint64_t tfc_new_incarnation(void) {
  uint64_t v = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
    close(fd);
  }
  if (v == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
  }
  return v ? v : 1;
}
