/* Times a command from its start to its first top-level window being mapped on the X
 * server: selects SubstructureNotify on the root window, then forks and execs the command
 * (in a process group of its own), waits for the first MapNotify of a window that is not
 * override-redirect, prints the milliseconds, and ends the command's whole group.
 *
 *   map-timer TIMEOUT_SECONDS COMMAND [ARG]...
 *
 * Exit status 0 with the figure on standard output; 1 when nothing was mapped in time. */
#include <X11/Xlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: map-timer TIMEOUT_SECONDS COMMAND [ARG]...\n");
        return 64;
    }
    double timeout = atof(argv[1]) * 1e3;
    Display *display = XOpenDisplay(NULL);
    if (!display) {
        fprintf(stderr, "map-timer: cannot open the display\n");
        return 1;
    }
    XSelectInput(display, DefaultRootWindow(display), SubstructureNotifyMask);
    XSync(display, False);
    double start = now_ms();
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0);
        close(ConnectionNumber(display));
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    setpgid(child, child);
    int fd = ConnectionNumber(display);
    int status = 1;
    while (now_ms() - start < timeout) {
        while (XPending(display)) {
            XEvent event;
            XNextEvent(display, &event);
            if (event.type == MapNotify && !event.xmap.override_redirect) {
                printf("%.2f\n", now_ms() - start);
                status = 0;
                goto done;
            }
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        struct timeval wait = {0, 20000};
        select(fd + 1, &fds, NULL, NULL, &wait);
    }
done:
    kill(-child, SIGTERM);
    waitpid(child, NULL, 0);
    XCloseDisplay(display);
    return status;
}
