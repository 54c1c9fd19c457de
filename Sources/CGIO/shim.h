#ifndef MAILTO_ROUTE_CGIO_SHIM_H
#define MAILTO_ROUTE_CGIO_SHIM_H

#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#include <glib-unix.h>

/* GLib's version macros and type-check macros do not import into Swift; these
 * static inline helpers give them a typed, non-macro form. */

static inline unsigned mr_glib_major_version(void) { return glib_major_version; }
static inline unsigned mr_glib_minor_version(void) { return glib_minor_version; }
static inline unsigned mr_glib_micro_version(void) { return glib_micro_version; }

static inline GDesktopAppInfo *mr_as_desktop_app_info(GAppInfo *info) {
    return G_IS_DESKTOP_APP_INFO(info) ? G_DESKTOP_APP_INFO(info) : NULL;
}

static inline GAppInfo *mr_desktop_as_app_info(GDesktopAppInfo *info) {
    return G_APP_INFO(info);
}

#endif
