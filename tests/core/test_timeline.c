/* test_timeline.c: placing each instance's terms in the moments of a training step
 * (core/src/timeline_train.c). The peak of a device is the largest moment over every instance on it,
 * so it cannot depend on the order in which the plan lists its instances. */
#include <string.h>

#include "vp_test.h"

#define WL "{\"batch\":8,\"seq\":1024}"
#define TINY                                                                                             \
    "{\"custom\":{\"hidden_size\":64,\"num_layers\":1,\"num_heads\":4,\"intermediate_size\":128,"       \
    "\"vocab_size\":100}}"

static const char *tiny(int i, const char *role) {
    return t_fmt("{\"name\":\"tiny%d\",\"role\":\"%s\",\"model\":" TINY "}", i, role);
}

static const char *big(const char *role) {
    return t_fmt("{\"name\":\"big\",\"role\":\"%s\",\"model\":{\"hf_config\":" CFG_GPT2 "}}", role);
}

static uint64_t peak(const char *instances) { return t_estimate(t_plan(WL, instances, NULL))->devices[0].peak_alloc_bytes; }

/* two trained instances: either order, same peak */
static void order_two_trained(void **s) {
    (void)s;
    assert_u64_equal(peak(t_fmt("%s,%s", big("trained"), tiny(0, "trained"))),
                     peak(t_fmt("%s,%s", tiny(0, "trained"), big("trained"))));
}

/* a frozen reference and a trained policy: either order, same peak */
static void order_reference(void **s) {
    (void)s;
    assert_u64_equal(peak(t_fmt("%s,%s", big("reference"), tiny(0, "trained"))),
                     peak(t_fmt("%s,%s", tiny(0, "trained"), big("reference"))));
}

/* A GPT-2 trained beside a tiny model holds at least GPT-2's own peak. */
static void never_below_an_instance_alone(void **s) {
    (void)s;
    uint64_t alone = peak(big("trained"));
    assert_true(peak(t_fmt("%s,%s", tiny(0, "trained"), big("trained"))) >= alone);
}

/* ---- known bugs ------------------------------------------------------------------------------- */

/* The train timeline stores at most VP_MAX_MOMENTS = 24 moments and each trained instance needs 5
 * (forward, two backward, end of backward, optimizer step) after the resident one; the loop stops at
 * out->n < VP_MAX_MOMENTS - 6, so from the 5th trained instance on nothing of an instance's forward or
 * backward is placed. With GPT-2 listed 5th its activations are silently left out of the peak. */
static void bug_fifth_trained_instance_dropped(void **s) {
    (void)s;
    const char *t4 = t_fmt("%s,%s,%s,%s", tiny(0, "trained"), tiny(1, "trained"), tiny(2, "trained"), tiny(3, "trained"));
    uint64_t big_first = peak(t_fmt("%s,%s", big("trained"), t4));
    uint64_t big_last = peak(t_fmt("%s,%s", t4, big("trained")));
    assert_u64_equal(big_last, big_first);
    assert_true(big_last >= peak(big("trained")));
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_two_trained),
        cmocka_unit_test(order_reference),
        cmocka_unit_test(never_below_an_instance_alone),
    };
    const struct CMUnitTest bugs[] = {
        cmocka_unit_test(bug_fifth_trained_instance_dropped),
    };
    int rc = T_RUN("timeline", tests, argc, argv);
    rc += T_RUN("timeline_bugs", bugs, argc, argv);
    return rc;
}
