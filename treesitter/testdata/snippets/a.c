#include <stdio.h>
#include "config.h"

#define MAX 10

typedef struct config {
    int size;
} config_t;

static int parse_config(const char *s) {
    printf("%s", s);
    return 0;
}

char *name(config_t *c) {
    return helper(c);
}
