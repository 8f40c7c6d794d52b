/*
 * Links: the named internal interface for the builders that wire a link
 * below a unit whose requests in flight are bounded (the system's GPUs,
 * F-Barre's mesh).
 */
#ifndef XLAT_LINK_RESERVE_H
#define XLAT_LINK_RESERVE_H

#include <stddef.h>

#include "xlat/link.h"

/* Holds records for `n` requests in flight at once from now on. A link's
 * pool grows in xlat_link_translate() when it runs dry, and a unit above
 * it sends from inside tick, where a failed growth answers a request it
 * had accepted with XLAT_ERR_NOMEM; reserved at create, it never grows
 * there. XLAT_ERR_NOMEM with a message (the pool keeps what it had). */
int xlat__link_reserve(xlat_link *link, size_t n);

#endif /* XLAT_LINK_RESERVE_H */
