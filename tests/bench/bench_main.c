/* make bench: prints one table of throughput and memory figures. */
#include "bench.h"

volatile uint64_t bench_sink;

int main(void)
{
    printf("libxlat %s benchmarks (single thread; ops/s are host operations per second)\n",
           xlat_version_string());
    bench_tlb();
    bench_timed();
    printf("\n-- cuckoo filter --\n");
    bench_cuckoo();
    bench_pagetable();
    bench_pwc();
    bench_walker();
    bench_reference();
    bench_gmmu();
    bench_system();
    return 0;
}
