/* Describes interleaved sample-major transforms (10 floats per joint: qx qy qz qw tx ty tz sx sy
 * sz) as an AnimcompRawClip: the consumer projects' and the C# reference program's clips. C99. */
#ifndef ANIMCOMP_INTERLEAVED_CLIP_H
#define ANIMCOMP_INTERLEAVED_CLIP_H

#include <string.h>

#include "animcomp.h"

static AnimcompRawClip interleaved_clip(uint32_t joints, uint32_t samples, float rate, const int32_t *parents,
                                        const float *xf) {
    AnimcompRawClip clip;
    memset(&clip, 0, sizeof clip);
    clip.num_joints = joints;
    clip.num_samples = samples;
    clip.sample_rate = rate;
    clip.layout = ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
    clip.parents = parents;
    clip.rotations = xf;
    clip.translations = xf + 4;
    clip.scales = xf + 7;
    clip.rotation_stride = clip.translation_stride = clip.scale_stride = 10;
    return clip;
}

#endif
