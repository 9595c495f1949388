/* test_strings.c: the lock-free intern set (intern.h) and the string table over it (strings.h).
 * Invariants: concurrency tests start their threads together on a barrier and check the
 * outcome after joining; nothing waits on time. */
#include "go_wire.h"
#include "intern.h"
#include "strtab.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct seen {
    uint64_t ids[64];
    int n;
};

static void collect(void *ctx, uint64_t id, const void *key, size_t len)
{
    struct seen *s = ctx;
    cr_assert_eq(((const char *)key)[len], '\0');
    s->ids[s->n++] = id;
}

static uint64_t put(struct intern_set *s, const char *k)
{
    return intern_insert(s, k, strlen(k));
}

Test(intern, dense_stable_dedup)
{
    struct intern_set s;
    cr_assert_eq(intern_init(&s, "test", 10, 1), 0);
    cr_assert_eq(put(&s, "alpha"), 1);
    cr_assert_eq(put(&s, "beta"), 2);
    cr_assert_eq(put(&s, "alpha"), 1);
    cr_assert_eq(intern_insert(&s, "", 0), 3);
    cr_assert_eq(intern_insert(&s, "beta", 3), 4, "a prefix is another key");
    cr_assert_eq(put(&s, "beta"), 2);
    size_t len;
    const char *b = intern_get(&s, 2, &len);
    cr_assert_eq(len, 4);
    cr_assert_str_eq(b, "beta");
    cr_assert_eq((uintptr_t)b % 8, 0);
    cr_assert_null(intern_get(&s, 5, &len));
    cr_assert_null(intern_get(&s, 0, &len));
    static char big[INTERN_MAX_KEY + 1];
    cr_assert_eq(intern_insert(&s, big, sizeof big), 0);
}

Test(intern, full_returns_zero)
{
    struct intern_set s;
    cr_assert_eq(intern_init(&s, "test", 4, 1), 0); /* 16 slots, 12 ids */
    char k[16];
    for (int i = 0; i < 12; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(put(&s, k), (uint64_t)i + 1);
    }
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "more%d", i);
        cr_assert_eq(put(&s, k), 0);
    }
    int used = 0;
    for (int i = 0; i < 16; i++)
        used += s.slots[i] != 0;
    cr_assert_eq(used, 12, "failed inserts claim no slot");
    for (int i = 0; i < 12; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(put(&s, k), (uint64_t)i + 1, "existing keys are still found when full");
    }
}

Test(intern, marks_per_parity_in_id_order)
{
    struct intern_set s;
    cr_assert_eq(intern_init(&s, "test", 10, 1), 0);
    for (int i = 0; i < 5; i++) {
        char k[2] = {(char)('a' + i), 0};
        put(&s, k);
    }
    struct seen v = {0};
    intern_foreach_marked(&s, 0, collect, &v);
    cr_assert_eq(v.n, 0, "fresh entries are unmarked, even for generation 0");
    intern_mark(&s, 4, 6);
    intern_mark(&s, 1, 6);
    intern_mark(&s, 1, 6);
    intern_mark(&s, 2, 7);
    intern_mark(&s, 0, 6);
    intern_foreach_marked(&s, 6, collect, &v);
    cr_assert_eq(v.n, 2);
    cr_assert_eq(v.ids[0], 1);
    cr_assert_eq(v.ids[1], 4);
    v.n = 0;
    intern_foreach_marked(&s, 7, collect, &v);
    cr_assert_eq(v.n, 1);
    cr_assert_eq(v.ids[0], 2);
    intern_mark(&s, 4, 8); /* generation 8 reuses 6's parity */
    v.n = 0;
    intern_foreach_marked(&s, 6, collect, &v);
    cr_assert_eq(v.n, 1);
    cr_assert_eq(v.ids[0], 1);
    v.n = 0;
    intern_foreach_marked(&s, 8, collect, &v);
    cr_assert_eq(v.n, 1);
    cr_assert_eq(v.ids[0], 4);
}

Test(intern, arena_spans_chunks)
{
    struct intern_set s;
    cr_assert_eq(intern_init(&s, "test", 12, 1), 0);
    static char k[3000][1000]; /* 3 MB of keys: several arena chunks */
    for (int i = 0; i < 3000; i++) {
        memset(k[i], 'x', sizeof k[i]);
        snprintf(k[i], 16, "%d", i);
        cr_assert_eq(intern_insert(&s, k[i], sizeof k[i]), (uint64_t)i + 1);
    }
    for (int i = 0; i < 3000; i++) {
        size_t len;
        const char *b = intern_get(&s, (uint64_t)i + 1, &len);
        cr_assert_eq(len, sizeof k[i]);
        cr_assert_eq(memcmp(b, k[i], len), 0);
    }
}

/* Keys go to the first level (2^9 slots) until half of it is taken, then to the next ones:
 * every key keeps its id, and a set that stores little touches its first level only. */
Test(intern, levels_grow_without_moving_keys)
{
    struct intern_set s;
    cr_assert_eq(intern_init(&s, "test", 13, 1), 0);
    cr_assert_eq(s.nlevels, 5);
    cr_assert_eq(s.nslots, 512 + 1024 + 2048 + 4096 + 8192);
    char k[32];
    for (int i = 0; i < 256; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(put(&s, k), (uint64_t)i + 1);
    }
    for (uint64_t i = 512; i < s.nslots; i++)
        cr_assert_eq(atomic_load(&s.slots[i]), 0, "slot %lu of a later level", (unsigned long)i);
    for (int i = 256; i < 6144; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(put(&s, k), (uint64_t)i + 1);
    }
    cr_assert_eq(atomic_load(&s.top), 4);
    for (int i = 0; i < 6144; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(put(&s, k), (uint64_t)i + 1, "key%d keeps its id", i);
    }
    cr_assert_eq(put(&s, "one more"), 0, "3/4 of the last level's slots are ids");
}

#define THREADS 4
#define KEYS 3000
#define KEY_LEN 500 /* KEYS * KEY_LEN > one arena chunk: chunk switches race too */

static struct intern_set shared;
static pthread_barrier_t start;
static char keys[KEYS][KEY_LEN];
static uint64_t got[THREADS][KEYS];

static void *inserter(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&start);
    for (int j = 0; j < KEYS; j++) {
        int i = (j + t * KEYS / THREADS) % KEYS; /* each thread starts elsewhere */
        got[t][i] = intern_insert(&shared, keys[i], KEY_LEN);
    }
    return NULL;
}

Test(intern, concurrent_inserts_one_id_per_key)
{
    cr_assert_eq(intern_init(&shared, "test", 13, 1), 0);
    for (int i = 0; i < KEYS; i++) {
        memset(keys[i], 'k', KEY_LEN);
        snprintf(keys[i], 16, "%d", i);
    }
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, inserter, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    static char used[KEYS + 1];
    for (int i = 0; i < KEYS; i++) {
        uint64_t id = got[0][i];
        cr_assert(id >= 1 && id <= KEYS, "id %lu", (unsigned long)id);
        for (int t = 1; t < THREADS; t++)
            cr_assert_eq(got[t][i], id);
        cr_assert_not(used[id], "id %lu given to two keys", (unsigned long)id);
        used[id] = 1;
        size_t len;
        cr_assert_eq(memcmp(intern_get(&shared, id, &len), keys[i], KEY_LEN), 0);
    }
}

/* Runs child() in a forked child after intern_fork_child (as the tracer's atfork handler does);
 * its exit status, or -1 if it did not exit (killed: an alarm ends a child that hangs). */
static int in_forked_child(int (*child)(void))
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        alarm(20);
        intern_fork_child();
        _exit(child());
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static struct intern_set forked;

/* Enough distinct keys of INTERN_MAX_KEY bytes to need new arena chunks. */
static int refill_in_child(void)
{
    static char k[INTERN_MAX_KEY];
    for (int i = 0; i < 600; i++) {
        memset(k, 'r', sizeof k);
        snprintf(k, 16, "%d", i);
        if (intern_insert(&forked, k, sizeof k) == 0) return 1;
    }
    return 0;
}

Test(intern, fork_during_chunk_refill)
{
    cr_assert_eq(intern_init(&forked, "test", 12, 1), 0);
    /* A parent thread is mapping a new chunk at the fork: it holds the chunk lock. */
    cr_assert_not(atomic_flag_test_and_set(&forked.chunk_lock));
    cr_assert_eq(in_forked_child(refill_in_child), 0, "the child maps chunks of its own");
}

static uint64_t parent_id;

static int insert_again_in_child(void)
{
    uint64_t id = put(&forked, "claimed");
    size_t len;
    const char *k = id ? intern_get(&forked, id, &len) : NULL;
    return id && id != parent_id && k && strcmp(k, "claimed") == 0 ? 0 : 1;
}

/* Puts the slot of "claimed" back into the claimed, unpublished state of an insert in
 * progress (a parent thread inserting "claimed" at the fork); returns the slot's index. */
static uint64_t unpublish_claimed(void)
{
    parent_id = put(&forked, "claimed");
    uint64_t i = 0;
    while (i < forked.nslots && (uint32_t)atomic_load(&forked.slots[i]) != parent_id)
        i++;
    cr_assert_lt(i, forked.nslots);
    atomic_store(&forked.slots[i], atomic_load(&forked.slots[i]) & ~(uint64_t)0xffffffffu);
    return i;
}

Test(intern, fork_during_insert)
{
    cr_assert_eq(intern_init(&forked, "test", 10, 1), 0);
    uint64_t i = unpublish_claimed();
    atomic_store(&forked.inflight[5], i + 1); /* the inserter's record, made before its claim */
    cr_assert_eq(in_forked_child(insert_again_in_child), 0,
                 "the child inserts the key anew, without waiting for the parent's insert");
}

Test(intern, fork_during_untracked_insert)
{
    cr_assert_eq(intern_init(&forked, "test", 10, 1), 0);
    unpublish_claimed();
    atomic_store(&forked.untracked, 1); /* every record was taken: the inserter counted itself */
    cr_assert_eq(in_forked_child(insert_again_in_child), 0,
                 "the child finds the claimed slot without a record");
}

static void *insert_many(void *arg)
{
    char k[64];
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        snprintf(k, sizeof k, "many%d", i);
        cr_assert_neq(put(&forked, k), 0);
    }
    return NULL;
}

Test(intern, inserts_leave_no_record)
{
    cr_assert_eq(intern_init(&forked, "test", 13, 1), 0);
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, insert_many, NULL), 0);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int j = 0; j < INTERN_INFLIGHT; j++)
        cr_assert_eq(atomic_load(&forked.inflight[j]), 0);
    cr_assert_eq(atomic_load(&forked.untracked), 0);
}

static uint64_t last_len;
static void string_visit(void *ctx, uint64_t id, const char *s, size_t len)
{
    struct seen *v = ctx;
    cr_assert_eq(strlen(s), len);
    last_len = len;
    v->ids[v->n++] = id;
}

Test(strings, before_init_is_zero)
{
    cr_assert_eq(str_intern_cstr("x"), 0);
}

Test(strings, intern_and_truncate)
{
    cr_assert_eq(str_init(), 0);
    cr_assert_eq(str_init(), 0);
    uint64_t a = str_intern_cstr("sync");
    cr_assert_neq(a, 0);
    cr_assert_eq(str_intern("sync", 4), a);
    cr_assert_neq(str_intern("sync", 3), a);
    static char longer[2000], other[2000];
    memset(longer, 'a', sizeof longer - 1);
    memcpy(other, longer, sizeof other);
    other[1500] = 'b';
    uint64_t l = str_intern_cstr(longer);
    cr_assert_eq(str_intern(other, sizeof other - 1), l, "equal after truncation to 1024");
    size_t len;
    cr_assert_eq(strlen(str_get(l, &len)), GO_MAX_STRING_LEN);
    cr_assert_eq(len, GO_MAX_STRING_LEN);
    cr_assert_eq(str_intern(longer, GO_MAX_STRING_LEN), l);
    cr_assert_neq(str_intern(longer, GO_MAX_STRING_LEN - 1), l);
}

Test(strings, marks)
{
    cr_assert_eq(str_init(), 0);
    uint64_t a = str_intern_cstr("a"), b = str_intern_cstr("bb"), c = str_intern_cstr("ccc");
    str_mark(c, 1);
    str_mark(a, 1);
    str_mark(b, 2);
    struct seen v = {0};
    str_foreach_marked(1, string_visit, &v);
    cr_assert_eq(v.n, 2);
    cr_assert_eq(v.ids[0], a);
    cr_assert_eq(v.ids[1], c);
    cr_assert_eq(last_len, 3);
}
