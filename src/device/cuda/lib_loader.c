/* lib_loader — see lib_loader.h. */
#include "device/cuda/lib_loader.h"

#include <dlfcn.h>
#include <stdio.h>

int tfc_cuda_lib_load(const char *name, const char *soname, const tfc_cuda_sym *syms, int n, char *err, size_t cap) {
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(err, cap, "cannot load %s (%s): %s", name, soname, dlerror());
    return -1;
  }
  /* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
  for (int i = 0; i < n && syms[i].name; i++)
    if (!(*syms[i].slot = dlsym(lib, syms[i].name))) {
      snprintf(err, cap, "%s has no symbol %s", soname, syms[i].name);
      dlclose(lib);
      return -1;
    }
  return 0;
}
