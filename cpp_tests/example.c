/* The README example: compress a two-joint clip, then sample it. */
#include "animcomp.h"
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int32_t parents[2] = {-1, 0};
    float xf[3][2][10] = {0}; /* 3 samples x 2 joints x (qx qy qz qw tx ty tz sx sy sz) */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) {
            float *x = xf[i][j];
            x[3] = 1.0f; x[4] = (float)i; x[5] = 10.0f * (float)j; x[7] = x[8] = x[9] = 1.0f;
        }
    AnimcompRawClip clip = {0};
    clip.num_joints = 2; clip.num_samples = 3; clip.sample_rate = 30.0f;
    clip.parents = parents;
    clip.rotations = &xf[0][0][0]; clip.translations = &xf[0][0][4]; clip.scales = &xf[0][0][7];
    clip.rotation_stride = clip.translation_stride = clip.scale_stride = 10;

    AnimcompCompressSettings settings;
    animcomp_compress_settings_default(&settings);
    settings.codec = ANIMCOMP_CODEC_FIXED;
    size_t size = 0;
    AnimcompStatus s = animcomp_compress(&clip, &settings, NULL, 0, &size); /* query the size */
    if (s != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) return 1;
    void *blob = aligned_alloc(ANIMCOMP_ALIGNMENT, size);
    if ((s = animcomp_compress(&clip, &settings, blob, size, &size)) != ANIMCOMP_STATUS_OK) {
        fprintf(stderr, "compress: %s\n", animcomp_status_message(s));
        return 1;
    }

    AnimcompDecompressor ctx; /* caller-owned, no allocation; blob must outlive it */
    float pose[2 * ANIMCOMP_FLOATS_PER_JOINT];
    if (animcomp_decompressor_init(&ctx, blob, size, NULL) != ANIMCOMP_STATUS_OK ||
        animcomp_seek(&ctx, 0.05f, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE) != ANIMCOMP_STATUS_OK ||
        animcomp_sample_pose(&ctx, pose, 2 * ANIMCOMP_FLOATS_PER_JOINT, ANIMCOMP_FLOATS_PER_JOINT) != ANIMCOMP_STATUS_OK)
        return 1;
    printf("%zu bytes; root x at t=0.05 s: %.3f\n", size, pose[4]);
    free(blob);
    return pose[4] > 1.4f && pose[4] < 1.6f ? 0 : 1;
}
