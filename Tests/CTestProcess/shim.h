#ifndef MAILTO_ROUTE_CTESTPROCESS_SHIM_H
#define MAILTO_ROUTE_CTESTPROCESS_SHIM_H

/* Linux's pidfd calls (5.3), which glibc 2.36 does not wrap and Swift cannot reach through
 * the variadic syscall(2): the tests hold the servers they start by a pidfd, so that a
 * signal never reaches another process that was given the same, reused, ID. Each returns
 * -1 with errno where the kernel lacks it. */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline int mr_test_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static inline int mr_test_pidfd_send_signal(int pidfd, int signal) {
#ifdef SYS_pidfd_send_signal
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, (void *)0, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
