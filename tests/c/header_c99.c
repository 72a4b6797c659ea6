/* Compiled by tests/c99_header.rs with -std=c99 -Wall -Wextra -Werror -pedantic and linked against
 * the static library: the header must stay valid C99, and one compress/decompress must work from C.
 * Exit status: 0 = pass, 1 = fail. */
#include "animcomp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* C99 has no static_assert: a negative array size fails the compilation instead. */
#define CHECK_STATIC(name, cond) typedef char check_##name[(cond) ? 1 : -1]
CHECK_STATIC(settings_size, sizeof(AnimcompCompressSettings) == 64);
CHECK_STATIC(info_size, sizeof(AnimcompBlobInfo) == 64);
CHECK_STATIC(decompressor_size, sizeof(AnimcompDecompressor) == 128);
CHECK_STATIC(clip_size, sizeof(void *) != 8 || sizeof(AnimcompRawClip) == 128);
CHECK_STATIC(options_size, sizeof(void *) != 8 || sizeof(AnimcompDecompressOptions) == 32);
CHECK_STATIC(status_size, sizeof(AnimcompStatus) == 4);

#define JOINTS 6
#define SAMPLES 31

static int fail(const char *what, AnimcompStatus s) {
    fprintf(stderr, "FAIL %s: %d (%s)\n", what, (int)s, animcomp_status_message(s));
    return 1;
}

int main(void) {
    static float xforms[SAMPLES][JOINTS][10]; /* interleaved qx qy qz qw tx ty tz sx sy sz */
    int32_t parents[JOINTS];
    AnimcompRawClip clip;
    AnimcompCompressSettings settings;
    AnimcompDecompressor ctx;
    AnimcompBlobInfo info;
    void *blob;
    size_t size = 0, written = 0;
    uint32_t major, minor, patch;
    float pose[JOINTS * 10];
    float max_err = 0.0f;
    AnimcompStatus s;
    int i, j, k;

    if (animcomp_version(&major, &minor, &patch) != ANIMCOMP_STATUS_OK || major != ANIMCOMP_VERSION_MAJOR ||
        minor != ANIMCOMP_VERSION_MINOR || patch != ANIMCOMP_VERSION_PATCH ||
        strcmp(animcomp_version_string(), ANIMCOMP_VERSION_STRING) != 0 ||
        animcomp_blob_format_version() != ANIMCOMP_BLOB_FORMAT_VERSION) {
        fprintf(stderr, "FAIL header and library versions differ\n");
        return 1;
    }
    for (j = 0; j < JOINTS; ++j) parents[j] = j - 1;
    for (i = 0; i < SAMPLES; ++i) {
        for (j = 0; j < JOINTS; ++j) {
            float a = 0.5f * sinf(0.2f * (float)i + (float)j), *x = xforms[i][j];
            x[0] = sinf(a / 2); x[1] = 0; x[2] = 0; x[3] = cosf(a / 2);
            x[4] = 10.0f; x[5] = 0.5f * (float)j; x[6] = 0;
            x[7] = 1; x[8] = 1; x[9] = 1;
        }
    }
    memset(&clip, 0, sizeof clip);
    clip.num_joints = JOINTS;
    clip.num_samples = SAMPLES;
    clip.sample_rate = 30.0f;
    clip.layout = ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
    clip.parents = parents;
    clip.rotations = &xforms[0][0][0];
    clip.translations = &xforms[0][0][4];
    clip.scales = &xforms[0][0][7];
    clip.rotation_stride = clip.translation_stride = clip.scale_stride = 10;

    if ((s = animcomp_compress_settings_default(&settings)) != ANIMCOMP_STATUS_OK) return fail("defaults", s);
    settings.codec = ANIMCOMP_CODEC_FIXED;
    s = animcomp_compress(&clip, &settings, NULL, 0, &size);
    if (s != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) return fail("size query", s);
    blob = aligned_alloc(ANIMCOMP_ALIGNMENT, size);
    if ((s = animcomp_compress(&clip, &settings, blob, size, &written)) != ANIMCOMP_STATUS_OK) return fail("compress", s);
    if (written != size) return fail("written size", ANIMCOMP_STATUS_OK);
    if ((s = animcomp_blob_info(blob, size, &info)) != ANIMCOMP_STATUS_OK) return fail("info", s);
    if (info.num_joints != JOINTS || info.num_samples != SAMPLES || info.codec != ANIMCOMP_CODEC_FIXED)
        return fail("info fields", ANIMCOMP_STATUS_OK);
    if ((s = animcomp_decompressor_init(&ctx, blob, size, NULL)) != ANIMCOMP_STATUS_OK) return fail("init", s);
    for (i = 0; i < SAMPLES; ++i) {
        if ((s = animcomp_seek(&ctx, (float)i / 30.0f, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NEAREST)))
            return fail("seek", s);
        if ((s = animcomp_sample_pose(&ctx, pose, JOINTS * 10, 10))) return fail("sample", s);
        for (j = 0; j < JOINTS; ++j)
            for (k = 0; k < 10; ++k) {
                float e = fabsf(pose[j * 10 + k] - xforms[i][j][k]);
                if (k < 4) e *= 10.0f; /* rotation error scaled by the bone length */
                if (e > max_err) max_err = e;
            }
    }
    free(blob);
    printf("max abs error %g over %d samples\n", max_err, SAMPLES);
    return max_err < 0.05f ? 0 : fail("error too large", ANIMCOMP_STATUS_OK);
}
