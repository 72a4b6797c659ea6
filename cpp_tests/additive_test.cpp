// Additive clips through the C header: animcomp_compress_additive with a pose or a clip as base,
// AnimcompBlobInfo::additive_format, and animcomp_apply_additive for every format.
#include <cmath>
#include <vector>

#include "test_clip.hpp"

using animcomp_test::AlignedBuffer;
using animcomp_test::Clip;
using animcomp_test::quat_angle;

namespace {

const uint32_t kFormats[] = {ANIMCOMP_ADDITIVE_RELATIVE, ANIMCOMP_ADDITIVE_ADDITIVE0,
                             ANIMCOMP_ADDITIVE_ADDITIVE1};

AnimcompStatus compress_additive(const AnimcompRawClip& clip, uint32_t format, const AnimcompRawClip* base_clip,
                                 const std::vector<float>* base_pose, AlignedBuffer& out) {
    const float* pose = base_pose ? base_pose->data() : nullptr;
    size_t pose_len = base_pose ? base_pose->size() : 0;
    size_t size = 0;
    AnimcompStatus st =
        animcomp_compress_additive(&clip, format, base_clip, pose, pose_len, nullptr, nullptr, 0, &size);
    if (st != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) return st;
    out = AlignedBuffer(size);
    size_t written = 0;
    st = animcomp_compress_additive(&clip, format, base_clip, pose, pose_len, nullptr, out.get(), size, &written);
    EXPECT_EQ(written, size);
    return st;
}

// An additive clip: small motions around the identity (scale 0 for additive1).
Clip additive_clip(uint32_t format) {
    Clip c(12, 40, false);
    for (uint32_t i = 0; i < c.samples; ++i) {
        for (uint32_t j = 0; j < c.joints; ++j) {
            float* x = c.at(i, j);
            float a = 0.1f * std::sin(0.2f * i + j);
            x[0] = std::sin(a / 2); x[1] = 0; x[2] = 0; x[3] = std::cos(a / 2);
            x[4] = 0.5f * std::sin(0.1f * i); x[5] = 0; x[6] = 0;
            float id = format == ANIMCOMP_ADDITIVE_ADDITIVE1 ? 0.0f : 1.0f;
            x[7] = x[8] = x[9] = id;
        }
    }
    return c;
}

}  // namespace

TEST(Additive, CompressWithPoseOrClipBaseAndApplyDecodedPoses) {
    Clip base(12, 40, true);
    std::vector<float> base_pose(base.at(0, 0), base.at(0, 0) + 12 * 10);
    AnimcompRawClip base_c = base.c();
    for (uint32_t format : kFormats) {
        Clip add = additive_clip(format);
        AnimcompRawClip add_c = add.c();
        for (int use_clip = 0; use_clip < 2; ++use_clip) {
            AlignedBuffer blob;
            AnimcompStatus st = compress_additive(add_c, format, use_clip ? &base_c : nullptr,
                                                  use_clip ? nullptr : &base_pose, blob);
            ASSERT_EQ(st, ANIMCOMP_STATUS_OK) << animcomp_status_message(st);
            AnimcompBlobInfo info;
            ASSERT_EQ(animcomp_blob_info(blob.get(), blob.size, &info), ANIMCOMP_STATUS_OK);
            EXPECT_EQ(info.additive_format, format);
            AnimcompDecompressor ctx;
            ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
            std::vector<float> decoded(12 * 10), lossy(12 * 10), exact(12 * 10);
            float worst_angle = 0, worst_trans = 0, worst_scale = 0;
            for (uint32_t i = 0; i < add.samples; ++i) {
                ASSERT_EQ(animcomp_seek_sample(&ctx, i), ANIMCOMP_STATUS_OK);
                ASSERT_EQ(animcomp_sample_pose(&ctx, decoded.data(), decoded.size(), 0), ANIMCOMP_STATUS_OK);
                const float* b = use_clip ? base.at(i, 0) : base_pose.data();
                ASSERT_EQ(animcomp_apply_additive(format, b, decoded.data(), 1.0f, lossy.data(), 12, 0),
                          ANIMCOMP_STATUS_OK);
                ASSERT_EQ(animcomp_apply_additive(format, b, add.at(i, 0), 1.0f, exact.data(), 12, 0),
                          ANIMCOMP_STATUS_OK);
                for (uint32_t j = 0; j < 12; ++j) {
                    const float* x = &exact[j * 10];
                    const float* y = &lossy[j * 10];
                    worst_angle = std::fmax(worst_angle, quat_angle(x, y));
                    worst_trans = std::fmax(worst_trans, std::hypot(x[4] - y[4], x[5] - y[5], x[6] - y[6]));
                    worst_scale = std::fmax(worst_scale, std::fabs(x[7] - y[7]) + std::fabs(x[8] - y[8]));
                }
            }
            // Object-space precision 0.01 at shell 3 bounds these local errors.
            EXPECT_LT(worst_angle, 0.01f) << format;
            EXPECT_LT(worst_trans, 0.011f) << format;
            EXPECT_LT(worst_scale, 0.01f) << format;
        }
    }
}

TEST(Additive, CompressRefusesBadArguments) {
    Clip add = additive_clip(ANIMCOMP_ADDITIVE_RELATIVE);
    AnimcompRawClip c = add.c();
    std::vector<float> pose(12 * 10, 0.0f);
    for (uint32_t j = 0; j < 12; ++j) pose[j * 10 + 3] = pose[j * 10 + 7] = pose[j * 10 + 8] = pose[j * 10 + 9] = 1;
    size_t size = 7;
    EXPECT_EQ(animcomp_compress_additive(&c, ANIMCOMP_ADDITIVE_NONE, nullptr, pose.data(), pose.size(), nullptr,
                                         nullptr, 0, &size),
              ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(animcomp_compress_additive(&c, 4, nullptr, pose.data(), pose.size(), nullptr, nullptr, 0, &size),
              ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_compress_additive(&c, ANIMCOMP_ADDITIVE_RELATIVE, nullptr, nullptr, 0, nullptr, nullptr, 0,
                                         &size),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_compress_additive(&c, ANIMCOMP_ADDITIVE_RELATIVE, &c, pose.data(), pose.size(), nullptr,
                                         nullptr, 0, &size),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_compress_additive(&c, ANIMCOMP_ADDITIVE_RELATIVE, nullptr, pose.data(), pose.size() - 1,
                                         nullptr, nullptr, 0, &size),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_compress_additive(&c, ANIMCOMP_ADDITIVE_RELATIVE, nullptr, pose.data(), pose.size(), nullptr,
                                         nullptr, 0, &size),
              ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_GT(size, 64u);
}

TEST(Additive, ApplyFormulasWeightsAndInPlace) {
    // Base: 90 degrees about Z, translation (1, 2, 3), scale 2. Additive: translation (1, 0, 0).
    const float h = std::sqrt(0.5f);
    float base[10] = {0, 0, h, h, 1, 2, 3, 2, 2, 2};
    float add[10] = {0, 0, 0, 1, 1, 0, 0, 1, 1, 1};
    float out[10];
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, base, add, 1.0f, out, 1, 0), ANIMCOMP_STATUS_OK);
    EXPECT_NEAR(out[4], 1.0f, 1e-5f);  // base.r * (2 * (1,0,0)) + (1,2,3) = (1, 4, 3)
    EXPECT_NEAR(out[5], 4.0f, 1e-5f);
    EXPECT_NEAR(out[7], 2.0f, 1e-6f);
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_ADDITIVE0, base, add, 1.0f, out, 1, 0), ANIMCOMP_STATUS_OK);
    EXPECT_NEAR(out[4], 2.0f, 1e-6f);
    EXPECT_NEAR(out[5], 2.0f, 1e-6f);
    EXPECT_NEAR(out[7], 2.0f, 1e-6f);
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_ADDITIVE1, base, add, 1.0f, out, 1, 0), ANIMCOMP_STATUS_OK);
    EXPECT_NEAR(out[7], 4.0f, 1e-6f);  // 2 * (1 + 1)
    // Weight 0 gives the base; half weight half the translation.
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_ADDITIVE1, base, add, 0.0f, out, 1, 0), ANIMCOMP_STATUS_OK);
    for (int k = 0; k < 10; ++k) EXPECT_NEAR(out[k], base[k], 1e-6f) << k;
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_ADDITIVE0, base, add, 0.5f, out, 1, 0), ANIMCOMP_STATUS_OK);
    EXPECT_NEAR(out[4], 1.5f, 1e-6f);
    // Bad weights, formats and strides leave out untouched.
    float before[10];
    std::memcpy(before, out, sizeof out);
    for (float w : {-0.01f, 1.01f, std::nanf(""), INFINITY}) {
        EXPECT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, base, add, w, out, 1, 0),
                  ANIMCOMP_STATUS_INVALID_ARGUMENT);
    }
    EXPECT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_NONE, base, add, 1.0f, out, 1, 0), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_apply_additive(9, base, add, 1.0f, out, 1, 0), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, base, add, 1.0f, out, 1, 5),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, base, add, 1.0f, out, SIZE_MAX, 10),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, nullptr, add, 1.0f, out, 1, 0),
              ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(std::memcmp(before, out, sizeof out), 0);
    // In place over the base, with a stride of 12 floats.
    std::vector<float> bases(3 * 12, 0.0f), adds(3 * 12, 0.0f), expected(3 * 12, 0.0f);
    for (int j = 0; j < 3; ++j) {
        std::memcpy(&bases[j * 12], base, sizeof base);
        std::memcpy(&adds[j * 12], add, sizeof add);
    }
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, bases.data(), adds.data(), 1.0f, expected.data(), 3, 12),
              ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_apply_additive(ANIMCOMP_ADDITIVE_RELATIVE, bases.data(), adds.data(), 1.0f, bases.data(), 3, 12),
              ANIMCOMP_STATUS_OK);
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 10; ++k) EXPECT_EQ(bases[j * 12 + k], expected[j * 12 + k]);
}

TEST(Additive, PlainBlobsReportNoAdditiveFormat) {
    Clip clip(6, 10);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), animcomp_test::fixed_settings(), blob);
    AnimcompBlobInfo info;
    ASSERT_EQ(animcomp_blob_info(blob.get(), blob.size, &info), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(info.additive_format, uint32_t(ANIMCOMP_ADDITIVE_NONE));
}
