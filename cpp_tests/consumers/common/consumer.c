/* What every consumer project builds (find_package, add_subdirectory, FetchContent, pkg-config):
 * compress a small clip, sample it, check the pose. Plain C99 through animcomp.h; exits non-zero
 * with a message on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animcomp.h"
#include "interleaved_clip.h"

#define JOINTS 3
#define SAMPLES 11

int main(void) {
    float xf[SAMPLES * JOINTS * 10];
    int32_t parents[JOINTS] = {-1, 0, 1};
    uint32_t major = 0, minor = 0, patch = 0;
    for (int i = 0; i < SAMPLES; ++i) {
        for (int j = 0; j < JOINTS; ++j) {
            float *x = &xf[(i * JOINTS + j) * 10];
            float angle = 0.1f * (float)i * (float)(j + 1);
            memset(x, 0, 10 * sizeof(float));
            x[2] = sinf(angle / 2); /* rotation about z */
            x[3] = cosf(angle / 2);
            x[4] = j == 0 ? 2.0f * (float)i : 10.0f; /* root moves along x */
            x[7] = x[8] = x[9] = 1.0f;
        }
    }
    AnimcompRawClip clip = interleaved_clip(JOINTS, SAMPLES, 30.0f, parents, xf);

    if (animcomp_version(&major, &minor, &patch) != ANIMCOMP_STATUS_OK || major != ANIMCOMP_VERSION_MAJOR ||
        minor != ANIMCOMP_VERSION_MINOR) {
        fprintf(stderr, "library %u.%u does not match the header %s\n", major, minor, ANIMCOMP_VERSION_STRING);
        return 1;
    }
    AnimcompCompressSettings settings;
    animcomp_compress_settings_default(&settings);
    size_t bound = 0, size = 0;
    AnimcompStatus s = animcomp_compress_bound(&clip, &settings, &bound);
    /* 16-byte aligned storage from malloc'd memory, without C11's aligned_alloc. */
    unsigned char *raw = malloc(bound + 15);
    void *blob = raw + ((16 - ((uintptr_t)raw & 15)) & 15);
    if (s == ANIMCOMP_STATUS_OK) s = animcomp_compress(&clip, &settings, blob, bound, &size);
    AnimcompDecompressor ctx;
    float pose[JOINTS * 10];
    if (s == ANIMCOMP_STATUS_OK) s = animcomp_decompressor_init(&ctx, blob, size, NULL);
    if (s == ANIMCOMP_STATUS_OK) s = animcomp_seek_sample(&ctx, 5);
    if (s == ANIMCOMP_STATUS_OK) s = animcomp_sample_pose(&ctx, pose, JOINTS * 10, 0);
    if (s != ANIMCOMP_STATUS_OK) {
        fprintf(stderr, "animcomp: %s\n", animcomp_status_message(s));
        free(raw);
        return 1;
    }
    free(raw);
    /* Sample 5: root at x = 10 (precision 0.01 of the default settings), joint 2 rotated by 1.5 rad. */
    if (fabsf(pose[4] - 10.0f) > 0.02f || fabsf(2.0f * atan2f(pose[22], pose[23]) - 1.5f) > 0.01f) {
        fprintf(stderr, "wrong pose: root x %f, joint 2 angle %f\n", (double)pose[4],
                (double)(2.0f * atan2f(pose[22], pose[23])));
        return 1;
    }
    printf("animcomp %s: compressed %d joints x %d samples into %zu bytes, pose checked\n",
           animcomp_version_string(), JOINTS, SAMPLES, size);
    return 0;
}
