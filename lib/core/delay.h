/*
 * A delay line: records that all wait the same number of cycles leave in
 * the order they entered, so one armed event per line serves them all
 * instead of one timing-wheel event per record. Its budget is one event.
 */
#ifndef XLAT_CORE_DELAY_H
#define XLAT_CORE_DELAY_H

#include "unit.h"

/* Embedded in the record that waits. */
struct xlat_delay_item {
    struct xlat_delay_item *next;
    uint64_t due; /* context cycle */
};

struct xlat_delay {
    struct xlat__unit *unit;
    uint64_t latency; /* the unit's cycles */
    /* Called at the record's cycle, after it left the line. */
    void (*expire)(struct xlat_delay *line, struct xlat_delay_item *item);
    struct xlat_delay_item *head, *tail;
    int armed; /* an event of the line is pending */
};

void xlat__delay_init(struct xlat_delay *line, struct xlat__unit *unit, uint64_t latency,
                      void (*expire)(struct xlat_delay *, struct xlat_delay_item *));
/* `item` leaves `latency` of the unit's cycles from now. */
void xlat__delay_push(struct xlat_delay *line, struct xlat_delay_item *item);

#endif
