/* The TLB against its reference model: short runs here, long ones in
 * make check-long. */
#include "testutil.h"
#include "tlb_model.h"

static const struct {
    uint32_t entries, ways;
    xlat_repl repl;
} shapes[] = {
    {16, 16, XLAT_REPL_LRU}, {64, 4, XLAT_REPL_LRU}, {96, 8, XLAT_REPL_LRU},
    {16, 16, XLAT_REPL_FIFO}, {64, 4, XLAT_REPL_FIFO}, {12, 3, XLAT_REPL_FIFO},
    /* Every width of a set without tags (1 to 7 ways, each compared). */
    {16, 1, XLAT_REPL_LRU}, {16, 2, XLAT_REPL_FIFO}, {30, 5, XLAT_REPL_LRU},
    {36, 6, XLAT_REPL_FIFO}, {42, 7, XLAT_REPL_LRU},
    /* Wide sets, which find their ways through tags (lib/tlb/tlb_tag.h):
     * rows of 32 bytes with and without padding, of 64, and of more than
     * 64 tags (compared 64 at a time). */
    {32, 32, XLAT_REPL_LRU}, {68, 17, XLAT_REPL_FIFO}, {96, 24, XLAT_REPL_LRU},
    {256, 64, XLAT_REPL_FIFO}, {200, 100, XLAT_REPL_LRU}, {256, 128, XLAT_REPL_LRU},
};

START_TEST(agrees_with_model)
{
    uint64_t bad = tlb_model_run(1000 + (uint64_t)_i, shapes[_i].entries, shapes[_i].ways,
                                 shapes[_i].repl, 200000);
    ck_assert_msg(bad == 0, "%llu disagreements (%u entries, %u ways, policy %d)",
                  (unsigned long long)bad, shapes[_i].entries, shapes[_i].ways, shapes[_i].repl);
}
END_TEST

Suite *tlb_model_suite(void)
{
    Suite *s = suite_create("tlb_model");
    TCase *tc = test_case(s, "model");
    tcase_add_loop_test(tc, agrees_with_model, 0, (int)(sizeof(shapes) / sizeof(shapes[0])));
    return s;
}
