/* The runner of every unit suite; prints Check's summary line. */
#include <stdlib.h>

#include "testutil.h"

int main(void)
{
    SRunner *sr = srunner_create(NULL);
#define XLAT_SUITE(name) srunner_add_suite(sr, name##_suite());
#include "suites.h"
#undef XLAT_SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
