#ifndef MAILTO_ROUTE_CINTL_SHIM_H
#define MAILTO_ROUTE_CINTL_SHIM_H

/* gettext, part of glibc (libintl.h): the messages a person reads, in their language
 * (MailtoCore's Localization). */
#include <libintl.h>

#endif
