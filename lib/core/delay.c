/* The delay line (see delay.h). */
#include "delay.h"

static void drain(void *arg);

void xlat__delay_init(struct xlat_delay *line, struct xlat__unit *unit, uint64_t latency,
                      void (*expire)(struct xlat_delay *, struct xlat_delay_item *))
{
    memset(line, 0, sizeof(*line));
    line->unit = unit;
    line->latency = latency;
    line->expire = expire;
}

void xlat__delay_push(struct xlat_delay *line, struct xlat_delay_item *item)
{
    item->next = NULL;
    item->due = xlat__unit_due(line->unit, line->latency); /* monotonic: FIFO holds */
    if (line->tail)
        line->tail->next = item;
    else
        line->head = item;
    line->tail = item;
    if (!line->armed) {
        line->armed = 1;
        xlat__unit_post_at(line->unit, item->due, drain, line);
    }
}

/* Lets out every record due now, then waits for the next one. The line is
 * unlinked from each record before `expire` runs, which may push again. */
static void drain(void *arg)
{
    struct xlat_delay *line = arg;
    uint64_t now = line->unit->ctx->now;
    line->armed = 0;
    while (line->head && line->head->due <= now) {
        struct xlat_delay_item *item = line->head;
        line->head = item->next;
        if (!line->head)
            line->tail = NULL;
        line->expire(line, item);
    }
    if (line->head && !line->armed) {
        line->armed = 1;
        xlat__unit_post_at(line->unit, line->head->due, drain, line);
    }
}
