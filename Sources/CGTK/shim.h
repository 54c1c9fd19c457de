#ifndef MAILTO_ROUTE_CGTK_SHIM_H
#define MAILTO_ROUTE_CGTK_SHIM_H

/* GTK 4 for the compose sheet (Sources/ComposeSheet), and only there: it is linked into
 * mailto-route-desktop, never into the mailto-route command line, so that the handoff and
 * send paths never load it (docs/design.md, Performance). What Swift cannot call directly is
 * here: GObject's macros (g_signal_connect, the type-checked casts) and GTK's variadic
 * accessibility setters, each as a typed static inline function. */

#include <gtk/gtk.h>
#include <adwaita.h>
#include <gdk/wayland/gdkwayland.h>
#include <gdk/x11/gdkx.h>
#include <dlfcn.h>

/* g_signal_connect is a macro. */
static inline gulong mr_signal_connect(gpointer instance, const char *signal, GCallback handler, gpointer data) {
    return g_signal_connect_data(instance, signal, handler, data, NULL, (GConnectFlags)0);
}

/* The type-checked casts (GTK_WINDOW() and friends), from the GtkWidget * that every
 * gtk_*_new returns. */
static inline GtkWindow *mr_window(GtkWidget *widget) { return GTK_WINDOW(widget); }
static inline GtkBox *mr_box(GtkWidget *widget) { return GTK_BOX(widget); }
static inline GtkGrid *mr_grid(GtkWidget *widget) { return GTK_GRID(widget); }
static inline GtkLabel *mr_label(GtkWidget *widget) { return GTK_LABEL(widget); }
static inline GtkEditable *mr_editable(GtkWidget *widget) { return GTK_EDITABLE(widget); }
static inline GtkEntry *mr_entry(GtkWidget *widget) { return GTK_ENTRY(widget); }
static inline GtkTextView *mr_text_view(GtkWidget *widget) { return GTK_TEXT_VIEW(widget); }
static inline GtkButton *mr_button(GtkWidget *widget) { return GTK_BUTTON(widget); }
static inline GtkCheckButton *mr_check_button(GtkWidget *widget) { return GTK_CHECK_BUTTON(widget); }
static inline GtkListBox *mr_list_box(GtkWidget *widget) { return GTK_LIST_BOX(widget); }
static inline GtkListBoxRow *mr_list_box_row(GtkWidget *widget) { return GTK_LIST_BOX_ROW(widget); }
static inline GtkScrolledWindow *mr_scrolled_window(GtkWidget *widget) { return GTK_SCROLLED_WINDOW(widget); }
static inline GtkAccessible *mr_accessible(GtkWidget *widget) { return GTK_ACCESSIBLE(widget); }
static inline GtkWidget *mr_widget(gpointer object) { return GTK_WIDGET(object); }
static inline GtkNativeDialog *mr_native_dialog(GtkFileChooserNative *chooser) { return GTK_NATIVE_DIALOG(chooser); }
static inline GtkFileChooser *mr_file_chooser(GtkFileChooserNative *chooser) { return GTK_FILE_CHOOSER(chooser); }
static inline GApplication *mr_application(GtkApplication *application) { return G_APPLICATION(application); }
static inline GtkEventController *mr_event_controller(gpointer controller) { return GTK_EVENT_CONTROLLER(controller); }
static inline GtkMenuButton *mr_menu_button(GtkWidget *widget) { return GTK_MENU_BUTTON(widget); }
static inline GtkNative *mr_native(GtkWidget *widget) { return GTK_NATIVE(widget); }

/* Whether GDK runs on Wayland here: gdk_wayland_* calls are for a GdkWaylandDisplay only. */
static inline gboolean mr_is_wayland_display(GdkDisplay *display) { return GDK_IS_WAYLAND_DISPLAY(display); }
static inline gboolean mr_is_x11_display(GdkDisplay *display) { return GDK_IS_X11_DISPLAY(display); }

/* gtk_accessible_update_property and _relation are variadic. The name a screen reader
 * speaks, and the tests find the control by. */
static inline void mr_set_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
static inline void mr_set_accessible_description(GtkWidget *widget, const char *description) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}
/* The field's error text: ERRORMESSAGE points at the label that says what is wrong. */
static inline void mr_set_accessible_invalid(GtkWidget *widget, gboolean invalid) {
    gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID,
                                invalid ? GTK_ACCESSIBLE_INVALID_TRUE : GTK_ACCESSIBLE_INVALID_FALSE, -1);
}

/* G_TYPE_FILE and GDK_TYPE_FILE_LIST are macros over functions. */
static inline GType mr_file_list_type(void) { return GDK_TYPE_FILE_LIST; }
static inline gboolean mr_value_holds_file_list(const GValue *value) { return G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST); }

/* g_idle_add: work put off to a later turn of the main loop, on the main loop (filling a
 * long message in; a window destroyed once its signal has returned). A worker's result
 * comes back through Background's GTask, and any other job through GLibMainActor. */
static inline guint mr_idle_add(GSourceFunc function, gpointer data) { return g_idle_add(function, data); }
static inline guint mr_timeout_add(guint milliseconds, GSourceFunc function, gpointer data) {
    return g_timeout_add(milliseconds, function, data);
}

/* The desktop service (SheetApplication+Service.swift): GApplication's casts and the
 * GVariant values of its D-Bus methods, built and read with g_variant_new/g_variant_lookup,
 * which are variadic. Every string returned is transfer full (g_free / g_strfreev). */
static inline GActionMap *mr_action_map(GApplication *application) { return G_ACTION_MAP(application); }
static inline GAction *mr_action(GSimpleAction *action) { return G_ACTION(action); }
/* An action that takes one string (an outbox or draft id). */
static inline GSimpleAction *mr_string_action_new(const char *name) {
    return g_simple_action_new(name, G_VARIANT_TYPE_STRING);
}
static inline GVariant *mr_variant_string(const char *value) { return g_variant_new_string(value); }
static inline gchar *mr_variant_dup_string(GVariant *value) {
    return value && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING) ? g_variant_dup_string(value, NULL) : NULL;
}

/* libadwaita (1.2) and GtkBuilder: the casts the sheet and its dialogs need. */
static inline GActionMap *mr_action_map_of(gpointer object) { return G_ACTION_MAP(object); }
static inline GActionGroup *mr_action_group(gpointer object) { return G_ACTION_GROUP(object); }
static inline AdwWindowTitle *mr_window_title(gpointer object) { return ADW_WINDOW_TITLE(object); }
static inline AdwToastOverlay *mr_toast_overlay(gpointer object) { return ADW_TOAST_OVERLAY(object); }
static inline AdwMessageDialog *mr_message_dialog(gpointer object) { return ADW_MESSAGE_DIALOG(object); }
static inline GtkShortcutsWindow *mr_shortcuts_window(gpointer object) { return GTK_SHORTCUTS_WINDOW(object); }
static inline GMenu *mr_menu(gpointer object) { return G_MENU(object); }
static inline GMenuModel *mr_menu_model(gpointer object) { return G_MENU_MODEL(object); }
static inline GSimpleAction *mr_simple_action(gpointer object) { return G_SIMPLE_ACTION(object); }
static inline gboolean mr_is_button(GtkWidget *widget) { return GTK_IS_BUTTON(widget); }
/* A name of its own, in place of the one made from the labels it is labelled by. */
static inline void mr_set_own_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_reset_relation(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
/* The spelling: the tag that underlines a misspelt word (gtk_text_buffer_create_tag is
 * variadic), and the actions of its menu (G_VARIANT_TYPE_STRING is a macro). */
static inline GtkTextTag *mr_create_misspelled_tag(GtkTextBuffer *buffer) {
    return gtk_text_buffer_create_tag(buffer, "misspelled", "underline", PANGO_UNDERLINE_ERROR, NULL);
}
static inline GSimpleAction *mr_stateful_string_action_new(const char *name, const char *state) {
    return g_simple_action_new_stateful(name, G_VARIANT_TYPE_STRING, g_variant_new_string(state));
}
static inline GtkGesture *mr_gesture(gpointer object) { return GTK_GESTURE(object); }
static inline GtkPopover *mr_popover(gpointer object) { return GTK_POPOVER(object); }
static inline GtkGestureSingle *mr_gesture_single(gpointer object) { return GTK_GESTURE_SINGLE(object); }
/* gtk_application_set_accels_for_action takes a NULL-terminated array. */
static inline void mr_set_accels(GtkApplication *application, const char *action, const char *first, const char *second) {
    const char *accels[] = { first, second, NULL };
    gtk_application_set_accels_for_action(application, action, accels);
}

/* The URI of the file at `index` of the GFile array of GApplication's "open" signal. */
static inline gchar *mr_file_uri(GFile **files, gint index) { return g_file_get_uri(files[index]); }

/* The platform data of org.freedesktop.Application's calls (Open, Activate, ActivateAction),
 * read after GtkApplication's own reading (its class's before_emit, which puts the
 * desktop-startup-id on the display) and before the call's signal is emitted. The class's
 * before_emit is wrapped once per process; the reader and GTK's own function are kept here,
 * in the one copy of this code that the installing call reaches. */
typedef void (*MrPlatformDataReader)(GVariant *platform_data);
static inline void (**mr_gtk_before_emit(void))(GApplication *, GVariant *) {
    static void (*before_emit)(GApplication *, GVariant *);
    return &before_emit;
}
static inline MrPlatformDataReader *mr_platform_data_reader(void) {
    static MrPlatformDataReader reader;
    return &reader;
}
static inline void mr_before_emit(GApplication *application, GVariant *platform_data) {
    if (*mr_gtk_before_emit()) (*mr_gtk_before_emit())(application, platform_data);
    if (*mr_platform_data_reader()) (*mr_platform_data_reader())(platform_data);
}
static inline void mr_read_platform_data(GApplication *application, MrPlatformDataReader reader) {
    GApplicationClass *class = G_APPLICATION_GET_CLASS(application);
    if (class->before_emit == mr_before_emit) return;
    *mr_gtk_before_emit() = class->before_emit;
    *mr_platform_data_reader() = reader;
    class->before_emit = mr_before_emit;
}

/* A window made transient for another program's (the application a portal request came
 * from), after it is realized and before it maps. On X11, WM_TRANSIENT_FOR through
 * XSetTransientForHint of the libX11 that GDK's X11 backend loaded (dlsym: mailto-route-desktop
 * links no X library itself), on GDK's own connection, errors trapped (a parent that is gone
 * by now is a BadWindow). On Wayland, xdg-foreign's import of the handle the application
 * exported (GTK 4.8's gdk_wayland_toplevel_set_transient_for_exported). Whether it was set. */
static inline gboolean mr_set_x11_transient_for(GtkWidget *window, unsigned long parent) {
    typedef int (*SetTransientForHint)(Display *, Window, Window);
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (!surface || !GDK_IS_X11_SURFACE(surface)) return FALSE;
    SetTransientForHint set = (SetTransientForHint)dlsym(RTLD_DEFAULT, "XSetTransientForHint");
    if (!set) return FALSE;
    GdkDisplay *display = gdk_surface_get_display(surface);
    gdk_x11_display_error_trap_push(display);
    set(GDK_SURFACE_XDISPLAY(surface), GDK_SURFACE_XID(surface), (Window)parent);
    return gdk_x11_display_error_trap_pop(display) == 0;
}
static inline gboolean mr_set_wayland_transient_for(GtkWidget *window, const char *handle) {
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (!surface || !GDK_IS_WAYLAND_TOPLEVEL(surface)) return FALSE;
    return gdk_wayland_toplevel_set_transient_for_exported(GDK_TOPLEVEL(surface), handle);
}

#endif
