#ifndef MAILTO_ROUTE_CTESTPROCESS_SHIM_H
#define MAILTO_ROUTE_CTESTPROCESS_SHIM_H

/* Linux's pidfd_send_signal (5.1), which glibc 2.36 does not wrap and Swift cannot reach
 * through the variadic syscall(2): the tests hold the servers they start by a pidfd (CGIO's
 * mr_pidfd_open), so that a signal never reaches another process that was given the same,
 * reused, ID. -1 with errno where the kernel lacks it. */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int mr_test_pidfd_send_signal(int pidfd, int signal) {
#ifdef SYS_pidfd_send_signal
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, (void *)0, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* glibc's posix_spawn_file_actions_addclosefrom_np (2.34), which <spawn.h> declares only
 * where Swift's Glibc module does not see it: a server the tests start holds no descriptor
 * of the test process but 0-2 (ServerProcess). */
#include <spawn.h>

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int mr_test_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif
