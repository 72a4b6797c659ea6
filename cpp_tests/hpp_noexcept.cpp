// animcomp.hpp built with -fno-exceptions (and -Wall -Wextra -Werror -pedantic): the wrapper
// compiles without exceptions and reports errors as statuses. Exits non-zero on a failed check.
#include <cstdio>
#include <vector>

#include "animcomp.hpp"

#if ANIMCOMP_HPP_EXCEPTIONS
#error "exceptions are off in this translation unit: ANIMCOMP_HPP_EXCEPTIONS must be 0"
#endif

int main() {
    const unsigned joints = 2, samples = 4;
    std::vector<float> xf(samples * joints * 10, 0.0f);
    for (unsigned i = 0; i < samples * joints; ++i) {
        xf[i * 10 + 3] = 1.0f;  // identity rotation
        xf[i * 10 + 4] = float(i);
        xf[i * 10 + 7] = xf[i * 10 + 8] = xf[i * 10 + 9] = 1.0f;
    }
    int32_t parents[2] = {-1, 0};
    AnimcompRawClip clip{};
    clip.num_joints = joints;
    clip.num_samples = samples;
    clip.sample_rate = 30.0f;
    clip.layout = ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
    clip.parents = parents;
    clip.rotations = xf.data();
    clip.translations = xf.data() + 4;
    clip.scales = xf.data() + 7;
    clip.rotation_stride = clip.translation_stride = clip.scale_stride = 10;

    animcomp::Result<animcomp::Blob> blob = animcomp::compress(clip);
    if (!blob.ok()) return std::printf("compress: %s\n", blob.status().message()), 1;
    animcomp::Result<animcomp::Decompressor> d = animcomp::Decompressor::create(*blob);
    if (!d.ok()) return std::printf("init: %s\n", d.status().message()), 1;
    std::vector<float> pose(joints * 10);
    if (!d->seek_sample(2).ok() || !d->sample_pose(pose).ok()) return 1;
    // Root translation x at sample 2 is 2 * joints = 4 (within the default precision).
    if (pose[4] < 3.9f || pose[4] > 4.1f) return std::printf("pose[4] = %f\n", double(pose[4])), 1;
    clip.num_samples = 0;
    if (animcomp::compress(clip).status().code() != ANIMCOMP_STATUS_NO_SAMPLES) return 1;
    std::printf("animcomp.hpp without exceptions: ok\n");
    return 0;
}
