/*
 * A slower disk, emulated: every fsync() and fdatasync() of the process returns
 * SLOW_SYNC_US microseconds (default 1000) later than the disk did. Loaded with
 * LD_PRELOAD into the server (SQLite and the WAL's flusher call libc's), it shows what a
 * change does on a disk whose flush is slower than this machine's (docs/benchmarks.md,
 * "Group commit"). bench/slow-disk/wrap.sh builds it and wraps a server binary.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void wait_longer(void) {
  const char *v = getenv("SLOW_SYNC_US");
  long us = v ? atol(v) : 1000;
  struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
  nanosleep(&t, NULL);
}

/* The libc function `name`, then the wait (dlsym each time: microseconds, against 1 ms). */
static int slower(const char *name, int fd) {
  int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);
  int r = real(fd);
  wait_longer();
  return r;
}

int fdatasync(int fd) { return slower("fdatasync", fd); }

int fsync(int fd) { return slower("fsync", fd); }
