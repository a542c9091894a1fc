/* fuzz_probe_validate.c - libFuzzer target for the gpu-probe@1 validator (built with -DVP_FUZZ=ON, clang).
 * Seed corpus: tests/probe/fixtures/ and tests/probe/fixtures/bad/. */
#include <stddef.h>
#include <stdint.h>

#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char report[2048];
    int is_err = 0;
    (void)vp_validate_text((const char *)data, size, report, sizeof report, &is_err);
    return 0;
}
