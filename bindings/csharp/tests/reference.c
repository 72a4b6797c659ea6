/* The C side of the C# bit-for-bit test: writes a clip's inputs, the blob the C API makes of it
 * with default settings, and the poses it samples, so that the mono test can do the same through
 * the bindings and compare bytes. Usage: csharp_reference <dir> -> clip.f32 (samples x joints x 10
 * floats), parents.i32, blob.bin, poses.f32 (one pose per time in kTimes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animcomp.h"
#include "interleaved_clip.h"

#define JOINTS 7
#define SAMPLES 40
static const float kTimes[] = {0.0f, 0.1f, 0.333f, 0.5f, 1.0f, 1.25f};

static int write_file(const char *dir, const char *name, const void *data, size_t size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) return 0;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

int main(int argc, char **argv) {
    static float xf[SAMPLES * JOINTS * 10];
    int32_t parents[JOINTS];
    if (argc != 2) return 2;
    for (int j = 0; j < JOINTS; ++j) parents[j] = j - 1;
    for (int i = 0; i < SAMPLES; ++i) {
        for (int j = 0; j < JOINTS; ++j) {
            float *x = &xf[(i * JOINTS + j) * 10];
            float a = 0.05f * (float)i * (float)(j + 1) + 0.3f * (float)j;
            memset(x, 0, 10 * sizeof(float));
            x[0] = sinf(a / 2) * 0.6f;
            x[1] = sinf(a / 2) * 0.8f;
            x[3] = cosf(a / 2);
            x[4] = j == 0 ? 0.5f * (float)i : 0.0f;
            x[5] = 4.0f + (j == 0 ? sinf(0.2f * (float)i) : 0.0f);
            x[7] = x[8] = x[9] = 1.0f;
            if (j == 3) x[8] = 1.0f + 0.1f * sinf(0.3f * (float)i);
        }
    }
    AnimcompRawClip clip = interleaved_clip(JOINTS, SAMPLES, 30.0f, parents, xf);
    AnimcompCompressSettings settings;
    animcomp_compress_settings_default(&settings);
    size_t size = 0;
    if (animcomp_compress(&clip, &settings, NULL, 0, &size) != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) return 1;
    void *blob = aligned_alloc(16, (size + 15) / 16 * 16);
    AnimcompStatus s = animcomp_compress(&clip, &settings, blob, size, &size);
    AnimcompDecompressor ctx;
    float poses[sizeof kTimes / sizeof kTimes[0]][JOINTS * 10];
    if (s == ANIMCOMP_STATUS_OK) s = animcomp_decompressor_init(&ctx, blob, size, NULL);
    for (size_t t = 0; s == ANIMCOMP_STATUS_OK && t < sizeof kTimes / sizeof kTimes[0]; ++t) {
        s = animcomp_seek(&ctx, kTimes[t], ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE);
        if (s == ANIMCOMP_STATUS_OK) s = animcomp_sample_pose(&ctx, poses[t], JOINTS * 10, 0);
    }
    if (s != ANIMCOMP_STATUS_OK) return fprintf(stderr, "%s\n", animcomp_status_message(s)), 1;
    int ok = write_file(argv[1], "clip.f32", xf, sizeof xf) && write_file(argv[1], "parents.i32", parents, sizeof parents) &&
             write_file(argv[1], "blob.bin", blob, size) && write_file(argv[1], "poses.f32", poses, sizeof poses);
    free(blob);
    return ok ? 0 : 1;
}
