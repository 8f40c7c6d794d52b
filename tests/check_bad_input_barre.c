#include "bad_input_world.h"

#define BI_CASES(X) X(barre_placeholder, BI_DOC, NULL, BI_IS(1))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_barre_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
