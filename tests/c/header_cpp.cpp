// Compiled (syntax only) by tests/c99_header.rs as C++11 with -Wall -Wextra -Werror -pedantic:
// the header must also be valid, warning-free C++.
#include "animcomp.h"

static_assert(sizeof(AnimcompDecompressor) == 128, "decompressor size");
static_assert(alignof(AnimcompDecompressor) == 16, "decompressor alignment");
static_assert(sizeof(AnimcompStatus) == 4, "status is 32-bit");

int check_header_cpp() {
    AnimcompCompressSettings s{};
    AnimcompStatus st = animcomp_compress_settings_default(&s);
    s.codec = ANIMCOMP_CODEC_FIXED;
    s.rotation_format = ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48;
    AnimcompRawClip clip{};
    clip.layout = ANIMCOMP_LAYOUT_JOINT_MAJOR;
    return st == ANIMCOMP_STATUS_OK && clip.layout == 1u ? 0 : int(st);
}
