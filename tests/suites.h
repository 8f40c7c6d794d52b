/* Every Check suite of the main runner: XLAT_SUITE(name) declares
 * `Suite *name_suite(void)`, defined in tests/check_<name>.c. */
XLAT_SUITE(core)
XLAT_SUITE(event)
XLAT_SUITE(tlb)
XLAT_SUITE(tlb_timed)
XLAT_SUITE(tlb_model)
XLAT_SUITE(fixed)
XLAT_SUITE(cuckoo)
XLAT_SUITE(build)
