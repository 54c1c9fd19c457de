#ifndef MAILTO_ROUTE_CGIO_SECRET_H
#define MAILTO_ROUTE_CGIO_SECRET_H

#include "shim.h"

/* libsecret, the library made for the freedesktop Secret Service, opened with dlopen the
 * first time a password is looked up in the keyring (a send whose account has a user and
 * no other password source) or stored there (`account add`, the sheet's setup), never at start-up: it pulls in libgcrypt and GIO, which a
 * handoff, a send with a password-command and every other path never need.
 *
 * Its headers live in <includedir>/libsecret-1, which only libsecret-1.pc names; a
 * SwiftPM system library with that pkg-config name would also link libsecret (SwiftPM
 * adds the package's Libs: to every product, so the binary got a DT_NEEDED
 * libsecret-1.so.0). Hence this header sits in CGIO, whose pkg-config (glib-2.0) already
 * gives the GIO headers that libsecret's include, and reaches libsecret's headers from the
 * default include directory. The headers below include each other with quotes; the macro
 * is the one <libsecret/secret.h> itself defines before including them. */
#define __SECRET_INSIDE_HEADER__
#include <libsecret-1/libsecret/secret-types.h>
#include <libsecret-1/libsecret/secret-value.h>
#include <libsecret-1/libsecret/secret-item.h>
#include <libsecret-1/libsecret/secret-service.h>
#undef __SECRET_INSIDE_HEADER__

/* The libsecret entry points that DesktopIntegration uses, under their C names, each typed
 * from libsecret's own declaration (__typeof__), so that a mismatch cannot compile. Every
 * field is filled by mr_secret_load before it returns NULL, hence _Nonnull. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#define MR_SECRET_ENTRY(name) __typeof__(name) *_Nonnull name
typedef struct mr_secret_api {
    MR_SECRET_ENTRY(secret_service_get_type);
    MR_SECRET_ENTRY(secret_service_open);
    MR_SECRET_ENTRY(secret_service_open_finish);
    MR_SECRET_ENTRY(secret_service_search);
    MR_SECRET_ENTRY(secret_service_search_finish);
    MR_SECRET_ENTRY(secret_service_unlock);
    MR_SECRET_ENTRY(secret_service_unlock_finish);
    MR_SECRET_ENTRY(secret_item_get_locked);
    MR_SECRET_ENTRY(secret_item_load_secrets);
    MR_SECRET_ENTRY(secret_item_load_secrets_finish);
    MR_SECRET_ENTRY(secret_item_get_secret);
    MR_SECRET_ENTRY(secret_value_get);
    MR_SECRET_ENTRY(secret_value_unref);
    MR_SECRET_ENTRY(secret_value_new);
    MR_SECRET_ENTRY(secret_service_store);
    MR_SECRET_ENTRY(secret_service_store_finish);
} mr_secret_api;
#undef MR_SECRET_ENTRY
#pragma clang diagnostic pop

/* Fills `api` from the system's libsecret, all fields or none (see MR_SYM in shim.h).
 * RTLD_LOCAL: nothing looks libsecret's symbols up in the global scope, and its own
 * dependencies (GIO, GObject, GLib) resolve to the copies already loaded. */
static inline const char *mr_secret_load(mr_secret_api *api) {
    void *lib = dlopen("libsecret-1.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL) return dlerror();
    mr_secret_api loaded;
    MR_SYM(secret_service_get_type);
    MR_SYM(secret_service_open);
    MR_SYM(secret_service_open_finish);
    MR_SYM(secret_service_search);
    MR_SYM(secret_service_search_finish);
    MR_SYM(secret_service_unlock);
    MR_SYM(secret_service_unlock_finish);
    MR_SYM(secret_item_get_locked);
    MR_SYM(secret_item_load_secrets);
    MR_SYM(secret_item_load_secrets_finish);
    MR_SYM(secret_item_get_secret);
    MR_SYM(secret_value_get);
    MR_SYM(secret_value_unref);
    MR_SYM(secret_value_new);
    MR_SYM(secret_service_store);
    MR_SYM(secret_service_store_finish);
    *api = loaded;
    return NULL;
}

#endif
