#ifndef MAILTO_ROUTE_CENCHANT_SHIM_H
#define MAILTO_ROUTE_CENCHANT_SHIM_H

/* enchant-2, the spell checker GNOME's text editors use (hunspell, aspell and others behind
 * one API), for the compose sheet only: linked into mailto-route-desktop, never into the
 * command line. */
#include <enchant.h>

#endif
