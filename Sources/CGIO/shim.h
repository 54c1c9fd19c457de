#ifndef MAILTO_ROUTE_CGIO_SHIM_H
#define MAILTO_ROUTE_CGIO_SHIM_H

#include <dlfcn.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* GLib is linked; GIO and GObject are opened with dlopen the first time a handoff, a
 * registration, a bus call or the network monitor needs them, never at start-up. A
 * direct send never needs them, and loading them (with libgmodule, libmount, libselinux,
 * libblkid, libffi) and running their initialisers was about 1 ms of every send's
 * start-up. The API table below holds the GIO and GObject entry points that
 * DesktopIntegration uses, under their C names; everything else it calls is GLib, and
 * GIO's own dependency on GLib resolves to the libglib-2.0.so.0 already loaded: one
 * GLib, one default main context, in the process. */

/* gdesktopappinfo.h (gio-unix) declares functions that are only ever called through
 * the table; the type is all that is needed here. */
typedef struct _GDesktopAppInfo GDesktopAppInfo;
/* gdesktopappinfo.h's: called once for each process g_desktop_app_info_launch_uris_as_manager starts. */
typedef void (*GDesktopAppLaunchCallback)(GDesktopAppInfo *appinfo, GPid pid, gpointer user_data);

/* Every field is filled by mr_gio_load before it returns NULL, hence _Nonnull: Swift
 * calls them as plain functions. The other pointers keep GLib's (unspecified) nullability. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
typedef struct mr_gio_api {
    /* GObject */
    gpointer (* _Nonnull g_object_ref)(gpointer object);
    void (* _Nonnull g_object_unref)(gpointer object);
    gulong (* _Nonnull g_signal_connect_data)(gpointer instance, const gchar *detailed_signal, GCallback c_handler,
                                             gpointer data, GClosureNotify destroy_data, GConnectFlags connect_flags);
    void (* _Nonnull g_signal_handler_disconnect)(gpointer instance, gulong handler_id);
    gboolean (* _Nonnull g_type_check_instance_is_a)(GTypeInstance *instance, GType iface_type);
    /* GAppInfo, GDesktopAppInfo, GAppLaunchContext */
    GAppInfo *(* _Nonnull g_app_info_get_default_for_uri_scheme)(const char *uri_scheme);
    GAppInfo *(* _Nonnull g_app_info_get_default_for_type)(const char *content_type, gboolean must_support_uris);
    GList *(* _Nonnull g_app_info_get_recommended_for_type)(const gchar *content_type);
    GList *(* _Nonnull g_app_info_get_all_for_type)(const char *content_type);
    const char *(* _Nonnull g_app_info_get_id)(GAppInfo *appinfo);
    const char *(* _Nonnull g_app_info_get_name)(GAppInfo *appinfo);
    const char *(* _Nonnull g_app_info_get_executable)(GAppInfo *appinfo);
    const char *(* _Nonnull g_app_info_get_commandline)(GAppInfo *appinfo);
    void (* _Nonnull g_app_info_launch_uris_async)(GAppInfo *appinfo, GList *uris, GAppLaunchContext *context,
                                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                                   gpointer user_data);
    gboolean (* _Nonnull g_app_info_launch_uris_finish)(GAppInfo *appinfo, GAsyncResult *result, GError **error);
    gboolean (* _Nonnull g_app_info_set_as_default_for_type)(GAppInfo *appinfo, const char *content_type,
                                                             GError **error);
    GType (* _Nonnull g_desktop_app_info_get_type)(void);
    GDesktopAppInfo *(* _Nonnull g_desktop_app_info_new)(const char *desktop_id);
    const char *(* _Nonnull g_desktop_app_info_get_filename)(GDesktopAppInfo *info);
    char *(* _Nonnull g_desktop_app_info_get_string)(GDesktopAppInfo *info, const char *key);
    gboolean (* _Nonnull g_desktop_app_info_get_boolean)(GDesktopAppInfo *info, const char *key);
    gboolean (* _Nonnull g_dbus_is_name)(const gchar *string);
    gboolean (* _Nonnull g_desktop_app_info_launch_uris_as_manager)(GDesktopAppInfo *appinfo, GList *uris,
                                                                    GAppLaunchContext *launch_context,
                                                                    GSpawnFlags spawn_flags,
                                                                    GSpawnChildSetupFunc user_setup,
                                                                    gpointer user_setup_data,
                                                                    GDesktopAppLaunchCallback pid_callback,
                                                                    gpointer pid_callback_data, GError **error);
    GAppLaunchContext *(* _Nonnull g_app_launch_context_new)(void);
    void (* _Nonnull g_app_launch_context_setenv)(GAppLaunchContext *context, const char *variable, const char *value);
    char **(* _Nonnull g_app_launch_context_get_environment)(GAppLaunchContext *context);
    /* GCancellable: how a wait for an asynchronous call is given a deadline */
    GCancellable *(* _Nonnull g_cancellable_new)(void);
    void (* _Nonnull g_cancellable_cancel)(GCancellable *cancellable);
    /* GDBus */
    GDBusConnection *(* _Nonnull g_bus_get_sync)(GBusType bus_type, GCancellable *cancellable, GError **error);
    gchar *(* _Nonnull g_dbus_address_get_for_bus_sync)(GBusType bus_type, GCancellable *cancellable, GError **error);
    gboolean (* _Nonnull g_dbus_is_supported_address)(const gchar *string, GError **error);
    void (* _Nonnull g_dbus_connection_new_for_address)(const gchar *address, GDBusConnectionFlags flags,
                                                        GDBusAuthObserver *observer, GCancellable *cancellable,
                                                        GAsyncReadyCallback callback, gpointer user_data);
    GDBusConnection *(* _Nonnull g_dbus_connection_new_for_address_finish)(GAsyncResult *res, GError **error);
    GVariant *(* _Nonnull g_dbus_connection_call_sync)(GDBusConnection *connection, const gchar *bus_name,
                                                       const gchar *object_path, const gchar *interface_name,
                                                       const gchar *method_name, GVariant *parameters,
                                                       const GVariantType *reply_type, GDBusCallFlags flags,
                                                       gint timeout_msec, GCancellable *cancellable, GError **error);
    gboolean (* _Nonnull g_dbus_connection_is_closed)(GDBusConnection *connection);
    void (* _Nonnull g_dbus_connection_close)(GDBusConnection *connection, GCancellable *cancellable,
                                              GAsyncReadyCallback callback, gpointer user_data);
    guint (* _Nonnull g_dbus_connection_signal_subscribe)(GDBusConnection *connection, const gchar *sender,
                                                          const gchar *interface_name, const gchar *member,
                                                          const gchar *object_path, const gchar *arg0,
                                                          GDBusSignalFlags flags, GDBusSignalCallback callback,
                                                          gpointer user_data, GDestroyNotify user_data_free_func);
    void (* _Nonnull g_dbus_connection_signal_unsubscribe)(GDBusConnection *connection, guint subscription_id);
    /* The server half: the desktop service's objects on the bus */
    GDBusNodeInfo *(* _Nonnull g_dbus_node_info_new_for_xml)(const gchar *xml_data, GError **error);
    GDBusInterfaceInfo *(* _Nonnull g_dbus_node_info_lookup_interface)(GDBusNodeInfo *info, const gchar *name);
    void (* _Nonnull g_dbus_node_info_unref)(GDBusNodeInfo *info);
    guint (* _Nonnull g_dbus_connection_register_object)(GDBusConnection *connection, const gchar *object_path,
                                                         GDBusInterfaceInfo *interface_info,
                                                         const GDBusInterfaceVTable *vtable, gpointer user_data,
                                                         GDestroyNotify user_data_free_func, GError **error);
    gboolean (* _Nonnull g_dbus_connection_unregister_object)(GDBusConnection *connection, guint registration_id);
    guint (* _Nonnull g_bus_own_name_on_connection)(GDBusConnection *connection, const gchar *name,
                                                    GBusNameOwnerFlags flags, GBusNameAcquiredCallback name_acquired_handler,
                                                    GBusNameLostCallback name_lost_handler, gpointer user_data,
                                                    GDestroyNotify user_data_free_func);
    void (* _Nonnull g_bus_unown_name)(guint owner_id);
    gboolean (* _Nonnull g_dbus_connection_emit_signal)(GDBusConnection *connection, const gchar *destination_bus_name,
                                                        const gchar *object_path, const gchar *interface_name,
                                                        const gchar *signal_name, GVariant *parameters, GError **error);
    gboolean (* _Nonnull g_dbus_connection_flush_sync)(GDBusConnection *connection, GCancellable *cancellable, GError **error);
    void (* _Nonnull g_dbus_method_invocation_return_value)(GDBusMethodInvocation *invocation, GVariant *parameters);
    void (* _Nonnull g_dbus_method_invocation_return_dbus_error)(GDBusMethodInvocation *invocation,
                                                                const gchar *error_name, const gchar *error_message);
    /* File descriptors over D-Bus: the Documents portal's AddFull (gunixfdlist.h, gio-unix) */
    GVariant *(* _Nonnull g_dbus_connection_call_with_unix_fd_list_sync)(
        GDBusConnection *connection, const gchar *bus_name, const gchar *object_path, const gchar *interface_name,
        const gchar *method_name, GVariant *parameters, const GVariantType *reply_type, GDBusCallFlags flags,
        gint timeout_msec, GUnixFDList *fd_list, GUnixFDList **out_fd_list, GCancellable *cancellable, GError **error);
    GUnixFDList *(* _Nonnull g_unix_fd_list_new)(void);
    gint (* _Nonnull g_unix_fd_list_append)(GUnixFDList *list, gint fd, GError **error);
    /* GNetworkMonitor */
    GNetworkMonitor *(* _Nonnull g_network_monitor_get_default)(void);
    gboolean (* _Nonnull g_network_monitor_get_network_available)(GNetworkMonitor *monitor);
    /* GResolver: RFC 6186 SRV records, for mail server discovery */
    GResolver *(* _Nonnull g_resolver_get_default)(void);
    void (* _Nonnull g_resolver_lookup_service_async)(GResolver *resolver, const gchar *service,
                                                      const gchar *protocol, const gchar *domain,
                                                      GCancellable *cancellable, GAsyncReadyCallback callback,
                                                      gpointer user_data);
    GList *(* _Nonnull g_resolver_lookup_service_finish)(GResolver *resolver, GAsyncResult *result, GError **error);
    const gchar *(* _Nonnull g_srv_target_get_hostname)(GSrvTarget *target);
    guint16 (* _Nonnull g_srv_target_get_port)(GSrvTarget *target);
    guint16 (* _Nonnull g_srv_target_get_priority)(GSrvTarget *target);
    guint16 (* _Nonnull g_srv_target_get_weight)(GSrvTarget *target);
    void (* _Nonnull g_srv_target_free)(GSrvTarget *target);
} mr_gio_api;
#pragma clang diagnostic pop

/* How every loader (mr_gio_load, mr_secret_load in secret.h) fills its table, all fields
 * or none: MR_SYM(name) looks `name` up in the handle `lib` into the field of that name of
 * the loader's local table `loaded`, and makes the loader return dlerror()'s text (owned by
 * the C library, valid until the next dl* call) when it is missing; the loader copies
 * `loaded` out only once every field was found, and returns NULL. */
#define MR_SYM(name) \
    do { *(void **)(&loaded.name) = dlsym(lib, #name); if (*(void **)(&loaded.name) == NULL) return dlerror(); } while (0)

/* Fills `api` from the system's GIO (see MR_SYM). RTLD_GLOBAL, as when GIO was linked: GIO
 * modules and GModule look GIO's symbols up in the global scope. */
static inline const char *mr_gio_load(mr_gio_api *api) {
    void *lib = dlopen("libgio-2.0.so.0", RTLD_LAZY | RTLD_GLOBAL);
    if (lib == NULL) return dlerror();
    mr_gio_api loaded;
    /* libgio depends on libgobject: its symbols are found through the same handle. */
    MR_SYM(g_object_ref);
    MR_SYM(g_object_unref);
    MR_SYM(g_signal_connect_data);
    MR_SYM(g_signal_handler_disconnect);
    MR_SYM(g_type_check_instance_is_a);
    MR_SYM(g_app_info_get_default_for_uri_scheme);
    MR_SYM(g_app_info_get_default_for_type);
    MR_SYM(g_app_info_get_recommended_for_type);
    MR_SYM(g_app_info_get_all_for_type);
    MR_SYM(g_app_info_get_id);
    MR_SYM(g_app_info_get_name);
    MR_SYM(g_app_info_get_executable);
    MR_SYM(g_app_info_get_commandline);
    MR_SYM(g_app_info_launch_uris_async);
    MR_SYM(g_app_info_launch_uris_finish);
    MR_SYM(g_app_info_set_as_default_for_type);
    MR_SYM(g_desktop_app_info_get_type);
    MR_SYM(g_desktop_app_info_new);
    MR_SYM(g_desktop_app_info_get_filename);
    MR_SYM(g_desktop_app_info_get_string);
    MR_SYM(g_desktop_app_info_get_boolean);
    MR_SYM(g_dbus_is_name);
    MR_SYM(g_desktop_app_info_launch_uris_as_manager);
    MR_SYM(g_app_launch_context_new);
    MR_SYM(g_app_launch_context_setenv);
    MR_SYM(g_app_launch_context_get_environment);
    MR_SYM(g_cancellable_new);
    MR_SYM(g_cancellable_cancel);
    MR_SYM(g_bus_get_sync);
    MR_SYM(g_dbus_address_get_for_bus_sync);
    MR_SYM(g_dbus_is_supported_address);
    MR_SYM(g_dbus_connection_new_for_address);
    MR_SYM(g_dbus_connection_new_for_address_finish);
    MR_SYM(g_dbus_connection_call_sync);
    MR_SYM(g_dbus_connection_is_closed);
    MR_SYM(g_dbus_connection_close);
    MR_SYM(g_dbus_connection_signal_subscribe);
    MR_SYM(g_dbus_connection_signal_unsubscribe);
    MR_SYM(g_dbus_node_info_new_for_xml);
    MR_SYM(g_dbus_node_info_lookup_interface);
    MR_SYM(g_dbus_node_info_unref);
    MR_SYM(g_dbus_connection_register_object);
    MR_SYM(g_dbus_connection_unregister_object);
    MR_SYM(g_bus_own_name_on_connection);
    MR_SYM(g_bus_unown_name);
    MR_SYM(g_dbus_connection_emit_signal);
    MR_SYM(g_dbus_connection_flush_sync);
    MR_SYM(g_dbus_method_invocation_return_value);
    MR_SYM(g_dbus_method_invocation_return_dbus_error);
    MR_SYM(g_dbus_connection_call_with_unix_fd_list_sync);
    MR_SYM(g_unix_fd_list_new);
    MR_SYM(g_unix_fd_list_append);
    MR_SYM(g_network_monitor_get_default);
    MR_SYM(g_network_monitor_get_network_available);
    MR_SYM(g_resolver_get_default);
    MR_SYM(g_resolver_lookup_service_async);
    MR_SYM(g_resolver_lookup_service_finish);
    MR_SYM(g_srv_target_get_hostname);
    MR_SYM(g_srv_target_get_port);
    MR_SYM(g_srv_target_get_priority);
    MR_SYM(g_srv_target_get_weight);
    MR_SYM(g_srv_target_free);
    *api = loaded;
    return NULL;
}

/* GLib's version macros and type-check macros do not import into Swift; these
 * static inline helpers give them a typed, non-macro form. */

/* A descriptor that polls readable when `pid` (a child of ours) has ended: Linux 5.3's
 * pidfd_open, which glibc 2.36 does not wrap. -1 with errno where the kernel lacks it. */
static inline int mr_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* open(2) with O_PATH: a descriptor that names a file without opening it for reading, as
 * GLib passes files to the Documents portal. glibc declares O_PATH only under _GNU_SOURCE,
 * hence Linux's own value (asm-generic/fcntl.h) where it is not declared. */
#ifdef O_PATH
#define MR_O_PATH O_PATH
#else
#define MR_O_PATH 010000000
#endif
static inline int mr_open_path(const char *path) {
    return open(path, MR_O_PATH | O_CLOEXEC);
}

static inline unsigned mr_glib_major_version(void) { return glib_major_version; }
static inline unsigned mr_glib_minor_version(void) { return glib_minor_version; }
static inline unsigned mr_glib_micro_version(void) { return glib_micro_version; }

/* G_IS_DESKTOP_APP_INFO, through the table. */
static inline GDesktopAppInfo *mr_as_desktop_app_info(const mr_gio_api *api, GAppInfo *info) {
    return api->g_type_check_instance_is_a((GTypeInstance *)info, api->g_desktop_app_info_get_type())
        ? (GDesktopAppInfo *)info : NULL;
}

/* G_APP_INFO: a GDesktopAppInfo is a GAppInfo (it implements the interface), so the
 * checked cast of the macro always returns its argument. */
static inline GAppInfo *mr_desktop_as_app_info(GDesktopAppInfo *info) {
    return (GAppInfo *)info;
}

#endif
