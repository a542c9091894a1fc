/* t_seq.h: an allocation sequence as the caching allocator's large pool sees it, for tests that hold the replay's
 * events against an H100 allocator trace (test_events_cogvideox.c, test_events_vae_cogvideox.c): the allocations of
 * at least 1 MiB (smaller ones go to the small pool), numbered from 0 in their order; a free names its allocation's
 * number, or -1 for one made before the sequence began. Zero-initialize, fill, reuse (filling resets it), dispose. */
#ifndef T_SEQ_H
#define T_SEQ_H
#include <stdint.h>

#include "alloc_events.h"

#define T_SEQ_MIB 1048576.0

typedef struct {
    double *size;     /* an allocation: its bytes; a free: 0 */
    int32_t *free_of; /* -2: an allocation; else the freed allocation's number, or -1 */
    int n, cap;
} t_seq;

void t_seq_push(t_seq *s, double size, int32_t free_of);
void t_seq_dispose(t_seq *s);
/* vramplan's events from event `from` on */
void t_seq_of_events(const vp_events *e, int32_t from, t_seq *s);

#endif
