/* make check-long: the randomized comparisons of make check, run for much
 * longer and over many seeds. */
#include <stdlib.h>

#include "testutil.h"
#include "tlb_model.h"

START_TEST(tlb_long_against_model)
{
    static const uint32_t ways[] = {1, 2, 4, 8, 16, 64};
    for (int r = 0; r < 2; r++) {
        xlat_repl repl = r ? XLAT_REPL_FIFO : XLAT_REPL_LRU;
        for (unsigned w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
            uint64_t bad = tlb_model_run(77 + w + 100u * (unsigned)r, ways[w] * 32, ways[w], repl,
                                         3000000);
            ck_assert_msg(bad == 0, "%llu disagreements at %u ways, policy %d",
                          (unsigned long long)bad, ways[w], repl);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("long");
    TCase *tc = test_case(s, "randomized");
    tcase_add_test(tc, tlb_long_against_model);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
