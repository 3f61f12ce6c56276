/* Concurrent first jwtk_keystore_start calls in a forked child (a HAProxy worker's threads, each starting its
 * keystore; any host that forks and then starts from several threads). The Swift runtime's lock behind lazy
 * globals keeps the parent's thread id in the child's main thread, and two threads contending for one of the
 * first start's initializers spun forever: 12 of 100 children hung before libjwtk serialized its starts. Its own
 * program, so no start ran in this process before the forks (which would have run those initializers already).
 * Usage: test_start_race (no argument). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "jwtk.h"

#define CHILDREN 100

int check_passed, check_failed;

static jwtk_keystore *stores[2];
static pthread_barrier_t barrier;

static void *start(void *arg) {
    pthread_barrier_wait(&barrier);
    return (void *)(long)jwtk_keystore_start(stores[(long)arg]);
}

int main(void) {
    /* Two keystores with a key URL each (port 9, nothing listening: the refresher's fetches fail at once). */
    const char *configs[2] = {"{\"issuers\":[\"https://a.test\"],\"jwks_url\":\"http://127.0.0.1:9/a\"}",
                              "{\"issuers\":[\"https://b.test\"],\"jwks_url\":\"http://127.0.0.1:9/b\"}"};
    jwtk_verifier *v[2];
    int i, hung = 0, failed = 0;
    for (i = 0; i < 2; i++) {
        CHECK_STATUS(jwtk_keystore_new(&stores[i]), JWTK_OK, "keystore");
        CHECK_STATUS(jwtk_verifier_new(configs[i], strlen(configs[i]), stores[i], &v[i]), JWTK_OK, "verifier");
    }
    for (i = 0; i < CHILDREN; i++) {
        pid_t child = fork();
        if (child == 0) {
            pthread_t other;
            void *rc;
            alarm(5); /* a hang ends as SIGALRM, counted below */
            pthread_barrier_init(&barrier, NULL, 2);
            pthread_create(&other, NULL, start, (void *)1L);
            rc = start((void *)0L);
            pthread_join(other, NULL);
            _exit(rc == (void *)(long)JWTK_OK ? 0 : 3);
        }
        int status = 0;
        waitpid(child, &status, 0);
        if (WIFSIGNALED(status)) hung++;
        else if (WEXITSTATUS(status) != 0) failed++;
    }
    CHECK(hung == 0, "%d of %d forked children hung in concurrent jwtk_keystore_start calls", hung, CHILDREN);
    CHECK(failed == 0, "%d of %d children's starts did not return JWTK_OK", failed, CHILDREN);
    for (i = 0; i < 2; i++) {
        jwtk_verifier_free(v[i]);
        jwtk_keystore_free(stores[i]);
    }
    printf("start-race-tests: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
