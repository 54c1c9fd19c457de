#ifndef MAILTO_ROUTE_CEBOOK_SHIM_H
#define MAILTO_ROUTE_CEBOOK_SHIM_H

/* libebook, Evolution Data Server's client library: the address books of the user's
 * desktop (Evolution's, GNOME Contacts', the online accounts' CardDAV and Google books), for
 * the sheet's address completion only (Sources/AddressLookup). Linked into
 * mailto-route-desktop, never into the command line, whose start-up is a click's cost.
 * What Swift cannot call as it is, each as a typed static inline function: GObject's
 * type-checked casts, and EContact's getter, which returns a differently typed value for
 * each field behind one gpointer. */
#include <libebook/libebook.h>

/* e_book_client_connect_sync's "do not wait for the backend to be connected": a remote
 * book is opened at once on what it has cached (0 would wait without end). */
static const guint32 mr_book_no_wait = (guint32) -1;

/* The book's ESourceAutocomplete (owned by the source; the source makes it, with its
 * defaults, when the key file has no [Autocomplete] group). */
static inline ESourceAutocomplete *mr_source_autocomplete(ESource *source) {
    return E_SOURCE_AUTOCOMPLETE(e_source_get_extension(source, E_SOURCE_EXTENSION_AUTOCOMPLETE));
}

/* e_source_registry_list_enabled with the address book extension's name (a macro). */
static inline GList *mr_registry_list_enabled_address_books(ESourceRegistry *registry) {
    return e_source_registry_list_enabled(registry, E_SOURCE_EXTENSION_ADDRESS_BOOK);
}

/* e_book_client_connect_sync returns the EClient base type of an EBookClient. */
static inline EBookClient *mr_book_client(EClient *client) { return E_BOOK_CLIENT(client); }

/* e_contact_get(contact, E_CONTACT_EMAIL): every EMAIL of the card, a GList of strings
 * (transfer full: g_list_free_full with g_free). */
static inline GList *mr_contact_emails(EContact *contact) {
    return (GList *) e_contact_get(contact, E_CONTACT_EMAIL);
}

/* e_contact_get_const(contact, E_CONTACT_FULL_NAME): the string, owned by the contact. */
static inline const char *mr_contact_full_name(EContact *contact) {
    return (const char *) e_contact_get_const(contact, E_CONTACT_FULL_NAME);
}

/* e_contact_get(contact, E_CONTACT_IS_LIST): a boolean in the pointer. */
static inline gboolean mr_contact_is_list(EContact *contact) {
    return GPOINTER_TO_INT(e_contact_get(contact, E_CONTACT_IS_LIST)) != 0;
}

/* The EContact of a GSList element (e_book_client_get_contacts_sync's list). */
static inline EContact *mr_contact(gpointer object) { return E_CONTACT(object); }
static inline ESource *mr_source(gpointer object) { return E_SOURCE(object); }

#endif
