/* The sheet benchmark's reference: the smallest libadwaita window that holds what a
 * compose window is made of (a header bar with a button, an entry, a text view), started
 * as the sheet is (an AdwApplication, non-unique). `scripts/bench sheet` builds it with cc
 * and pkg-config. */
#include <adwaita.h>

static void activate(GtkApplication *application, gpointer data) {
    (void)data;
    GtkWidget *window = adw_application_window_new(application);
    gtk_window_set_title(GTK_WINDOW(window), "Minimal");
    gtk_window_set_default_size(GTK_WINDOW(window), 680, 640);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    GtkWidget *header = adw_header_bar_new();
    adw_header_bar_pack_end(ADW_HEADER_BAR(header), gtk_button_new_with_label("Send"));
    gtk_box_append(GTK_BOX(box), header);
    gtk_box_append(GTK_BOX(box), gtk_entry_new());
    GtkWidget *text = gtk_text_view_new();
    gtk_widget_set_vexpand(text, TRUE);
    gtk_box_append(GTK_BOX(box), text);
    adw_application_window_set_content(ADW_APPLICATION_WINDOW(window), box);
    gtk_window_present(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
    AdwApplication *application = adw_application_new(NULL, G_APPLICATION_NON_UNIQUE);
    g_signal_connect(application, "activate", G_CALLBACK(activate), NULL);
    int status = g_application_run(G_APPLICATION(application), argc, argv);
    g_object_unref(application);
    return status;
}
