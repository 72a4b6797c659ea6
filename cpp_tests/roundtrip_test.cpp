// Round trips through the C ABI: compress → validate → info → init → seek → sample, for every
// rotation format of the fixed codec, with the error checked against the input.
#include <cstdio>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

struct FormatCase {
    uint32_t format;
    const char* name;
    float max_angle;  // radians, local rotation error allowed for this format
};

// Allowed local rotation error per format: the data-independent worst-case bound of
// docs/formats.md ("w_min 0" column: the test clip passes through rotations near 180 degrees, where
// the drop-W formats are weakest), plus 0.004 rad for sub-tracks the codec stores as constant or
// default because they stay within precision (0.01 at shell distance 3 is about 0.0033 rad).
constexpr float kConstantAllowance = 0.004f;
const FormatCase kFormats[] = {
    {ANIMCOMP_ROTATION_FORMAT_FLOAT128, "float128", 9.5e-7f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_FLOAT96_NO_W, "float96_no_w", 2.7e-3f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_FIXED48_NO_W, "fixed48_no_w", 1.48e-2f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_FIXED32_NO_W, "fixed32_no_w", 9.80e-2f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_INTERVAL_FIXED32_NO_W, "interval_fixed32_no_w", 9.81e-2f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_FLOAT32_NO_W, "float32_no_w", 2.52e-1f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48, "smallest_three48", 1.53e-4f + kConstantAllowance},
    {ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE32, "smallest_three32", 4.80e-3f + kConstantAllowance},
};

void PrintTo(const FormatCase& f, std::ostream* os) { *os << f.name; }

class RoundTrip : public ::testing::TestWithParam<FormatCase> {};

TEST_P(RoundTrip, PoseMatchesInputWithinFormatTolerance) {
    const FormatCase fc = GetParam();
    const Clip clip(24, 90);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(fc.format), blob);

    ASSERT_EQ(animcomp_validate_blob(blob.get(), blob.size), ANIMCOMP_STATUS_OK);
    AnimcompBlobInfo info;
    ASSERT_EQ(animcomp_blob_info(blob.get(), blob.size, &info), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(info.num_joints, 24u);
    EXPECT_EQ(info.num_samples, 90u);
    EXPECT_EQ(info.codec, uint32_t(ANIMCOMP_CODEC_FIXED));
    EXPECT_EQ(info.blob_size, blob.size);
    EXPECT_EQ(info.raw_size, 40ull * 24 * 90);
    EXPECT_NEAR(info.duration, 89.0f / 30.0f, 1e-5f);
    EXPECT_NE(info.flags & ANIMCOMP_BLOB_FLAG_HAS_SCALE, 0u);
    EXPECT_LT(blob.size, info.raw_size);

    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    std::vector<float> pose(24 * 10);
    float worst_angle = 0, worst_trans = 0, worst_scale = 0;
    for (uint32_t i = 0; i < clip.samples; ++i) {
        ASSERT_EQ(animcomp_seek(&ctx, float(i) / clip.rate, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NEAREST),
                  ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&ctx, pose.data(), pose.size(), 10), ANIMCOMP_STATUS_OK);
        for (uint32_t j = 0; j < clip.joints; ++j) {
            const float* raw = clip.at(i, j);
            const float* got = &pose[j * 10];
            worst_angle = std::fmax(worst_angle, quat_angle(raw, got));
            for (int k = 4; k < 7; ++k) worst_trans = std::fmax(worst_trans, std::fabs(raw[k] - got[k]));
            for (int k = 7; k < 10; ++k) worst_scale = std::fmax(worst_scale, std::fabs(raw[k] - got[k]));
            float one[10];
            ASSERT_EQ(animcomp_sample_joint(&ctx, j, one), ANIMCOMP_STATUS_OK);
            for (int k = 0; k < 10; ++k) ASSERT_EQ(one[k], got[k]) << "joint " << j << " float " << k;
        }
    }
    std::printf("%-22s blob %6zu bytes  max rotation error %.2e rad  translation %.2e  scale %.2e\n", fc.name,
                blob.size, worst_angle, worst_trans, worst_scale);
    EXPECT_LT(worst_angle, fc.max_angle);
    EXPECT_LT(worst_trans, 0.05f);  // range-reduced 48-bit over <= 90 units
    EXPECT_LT(worst_scale, 0.01f);
}

INSTANTIATE_TEST_SUITE_P(AllRotationFormats, RoundTrip, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<FormatCase>& i) { return std::string(i.param.name); });

TEST(RoundTripMisc, InterpolationLiesBetweenSamples) {
    const Clip clip(8, 30, false);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(ANIMCOMP_ROTATION_FORMAT_FLOAT128), blob);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    float a[10], b[10], mid[10];
    for (uint32_t i = 0; i + 1 < clip.samples; i += 5) {
        ASSERT_EQ(animcomp_seek_sample(&ctx, i), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_joint(&ctx, 0, a), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_seek_sample(&ctx, i + 1), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_joint(&ctx, 0, b), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_seek(&ctx, (i + 0.5f) / clip.rate, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_joint(&ctx, 0, mid), ANIMCOMP_STATUS_OK);
        EXPECT_NEAR(mid[4], 0.5f * (a[4] + b[4]), 1e-3f);  // root translation x is linear
        // Floor and ceil land on the samples themselves.
        float f[10], c[10];
        ASSERT_EQ(animcomp_seek(&ctx, (i + 0.5f) / clip.rate, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_FLOOR), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_joint(&ctx, 0, f), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_seek(&ctx, (i + 0.5f) / clip.rate, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_CEIL), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_joint(&ctx, 0, c), ANIMCOMP_STATUS_OK);
        for (int k = 0; k < 10; ++k) {
            EXPECT_EQ(f[k], a[k]);
            EXPECT_EQ(c[k], b[k]);
        }
    }
}

TEST(RoundTripMisc, JointMajorSeparateArraysGiveTheSameBlob) {
    const Clip clip(10, 40);
    std::vector<float> rot, tra, sca;
    for (uint32_t j = 0; j < clip.joints; ++j)
        for (uint32_t i = 0; i < clip.samples; ++i) {
            const float* x = clip.at(i, j);
            rot.insert(rot.end(), x, x + 4);
            tra.insert(tra.end(), x + 4, x + 7);
            sca.insert(sca.end(), x + 7, x + 10);
        }
    AnimcompRawClip jm = clip.c();
    jm.layout = ANIMCOMP_LAYOUT_JOINT_MAJOR;
    jm.rotations = rot.data();
    jm.translations = tra.data();
    jm.scales = sca.data();
    jm.rotation_stride = jm.translation_stride = jm.scale_stride = 0;
    AlignedBuffer a, b;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(), a);
    ANIMCOMP_COMPRESS_OR_FAIL(jm, fixed_settings(), b);
    ASSERT_EQ(a.size, b.size);
    EXPECT_EQ(std::memcmp(a.get(), b.get(), a.size), 0);
}

TEST(RoundTripMisc, BufferTooSmallProtocol) {
    const Clip clip(20, 60);
    const AnimcompRawClip c = clip.c();
    const AnimcompCompressSettings s = fixed_settings();
    size_t size = 12345;
    AnimcompStatus st = animcomp_compress(&c, &s, nullptr, 0, &size);
    ASSERT_EQ(st, ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    ASSERT_GE(size, 64u);
    EXPECT_EQ(size % 16, 0u);

    AlignedBuffer small(size - 16);
    std::memset(small.get(), 0xAB, size - 16);
    size_t reported = 0;
    EXPECT_EQ(animcomp_compress(&c, &s, small.get(), size - 16, &reported), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(reported, size);
    for (size_t k = 0; k < size - 16; ++k) ASSERT_EQ(small.get()[k], 0xAB) << "buffer written at " << k;

    size_t bound = 0;
    ASSERT_EQ(animcomp_compress_bound(&c, &s, &bound), ANIMCOMP_STATUS_OK);
    EXPECT_GE(bound, size);

    AlignedBuffer exact(size);
    size_t written = 0;
    ASSERT_EQ(animcomp_compress(&c, &s, exact.get(), size, &written), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(written, size);
    EXPECT_EQ(animcomp_validate_blob(exact.get(), written), ANIMCOMP_STATUS_OK);

    AlignedBuffer big(bound + 64);
    ASSERT_EQ(animcomp_compress(&c, &s, big.get(), bound + 64, &written), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(written, size);
    EXPECT_EQ(std::memcmp(big.get(), exact.get(), size), 0);
}

}  // namespace
