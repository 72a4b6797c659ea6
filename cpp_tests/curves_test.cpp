// Scalar curves through the C ABI: a face-only clip (no joints) and curves beside joints,
// sampled at every sample within each curve's precision, with the statuses of bad input.
#include <cmath>
#include <vector>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

constexpr uint32_t kCurves = 5;
constexpr uint32_t kSamples = 90;

/// Sample-major curve values: element (curve c, sample i) at i * kCurves + c.
std::vector<float> curve_values() {
    std::vector<float> v(size_t(kCurves) * kSamples);
    for (uint32_t i = 0; i < kSamples; ++i) {
        float t = float(i) / 30.0f;
        v[i * kCurves + 0] = 0.5f + 0.5f * std::sin(2.0f * t);
        v[i * kCurves + 1] = 0.25f;                          // constant
        v[i * kCurves + 2] = 0.0f;                           // at its default
        v[i * kCurves + 3] = (i % 30) < 3 ? 1.0f : 0.0f;     // blink
        v[i * kCurves + 4] = 40.0f * std::cos(0.5f * t);     // morph weight with magnitude
    }
    return v;
}

std::vector<AnimcompCurveDesc> descs() {
    std::vector<AnimcompCurveDesc> d(kCurves);
    for (uint32_t c = 0; c < kCurves; ++c) d[c].id = 1000 + c;
    d[2].has_default = 1;
    d[2].default_value = 0.0f;
    d[3].precision = 0.01f;
    d[4].magnitude = 2.0f;  // precision = morph_position_precision / 2
    return d;
}

AnimcompRawClip face_clip(const std::vector<float>& values, const std::vector<AnimcompCurveDesc>& d) {
    AnimcompRawClip c{};
    c.num_joints = 0;
    c.num_samples = kSamples;
    c.sample_rate = 30.0f;
    c.layout = ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
    c.num_curves = kCurves;
    c.curve_values = values.data();
    c.curves = d.data();
    return c;
}

AlignedBuffer compress(const AnimcompRawClip& c, const AnimcompCompressSettings& s) {
    size_t size = 0;
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    AlignedBuffer b(size);
    EXPECT_EQ(animcomp_compress(&c, &s, b.get(), size, &size), ANIMCOMP_STATUS_OK);
    return b;
}

}  // namespace

TEST(Curves, FaceOnlyClipRoundtripsWithinEachPrecision) {
    const std::vector<float> values = curve_values();
    const std::vector<AnimcompCurveDesc> d = descs();
    AnimcompCompressSettings s;
    ASSERT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    EXPECT_FLOAT_EQ(s.curve_precision, 0.001f);
    s.morph_position_precision = 0.004f;  // curve 4: 0.002
    AlignedBuffer blob = compress(face_clip(values, d), s);
    for (uint32_t codec : {ANIMCOMP_CODEC_FIXED, ANIMCOMP_CODEC_VBR}) {
        AnimcompCompressSettings bs = s;
        bs.codec = codec;
        size_t bound = 0;
        const AnimcompRawClip fc = face_clip(values, d);
        ASSERT_EQ(animcomp_compress_bound(&fc, &bs, &bound), ANIMCOMP_STATUS_OK);
        EXPECT_GE(bound, blob.size) << codec;
    }

    AnimcompBlobInfo info;
    ASSERT_EQ(animcomp_blob_info(blob.get(), blob.size, &info), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(info.num_joints, 0u);
    EXPECT_EQ(info.num_curves, kCurves);
    EXPECT_GT(info.curves_size, 0u);
    EXPECT_LT(info.blob_size, uint64_t(kCurves) * kSamples * 4);

    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    const float prec[kCurves] = {0.001f, 0.001f, 0.001f, 0.01f, 0.002f};
    float out[kCurves];
    for (uint32_t i = 0; i < kSamples; ++i) {
        ASSERT_EQ(animcomp_seek_sample(&ctx, i), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_curves(&ctx, out, kCurves), ANIMCOMP_STATUS_OK);
        for (uint32_t c = 0; c < kCurves; ++c) {
            EXPECT_LE(std::fabs(out[c] - values[i * kCurves + c]), prec[c]) << c << " " << i;
            float one = -1.0f;
            ASSERT_EQ(animcomp_sample_curve(&ctx, c, &one), ANIMCOMP_STATUS_OK);
            EXPECT_EQ(one, out[c]);
        }
    }
    uint32_t id = 0;
    ASSERT_EQ(animcomp_curve_id(&ctx, 3, &id), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(id, 1003u);
    // The pose API on a clip without joints writes nothing and succeeds.
    float pose[10] = {0};
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose, 10, 0), ANIMCOMP_STATUS_OK);
}

TEST(Curves, CurvesBesideJointsJointMajor) {
    const Clip clip(3, kSamples);
    std::vector<float> values = curve_values();
    // Joint-major (curve-major) with stride 2: element (c, i) at (c * kSamples + i) * 2.
    std::vector<float> cm(size_t(kCurves) * kSamples * 2, 0.0f);
    for (uint32_t c = 0; c < kCurves; ++c)
        for (uint32_t i = 0; i < kSamples; ++i) cm[(c * kSamples + i) * 2] = values[i * kCurves + c];
    AnimcompRawClip c = clip.c();
    c.num_curves = kCurves;
    c.curve_values = cm.data();
    c.curve_stride = 2;
    c.layout = ANIMCOMP_LAYOUT_JOINT_MAJOR;
    AnimcompCompressSettings s;
    animcomp_compress_settings_default(&s);
    size_t size = 0;
    // The joint arrays of `clip` are sample-major interleaved; in joint-major order they are still
    // valid memory of the same length, so compression succeeds (the joints are merely permuted).
    ASSERT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    AlignedBuffer blob(size);
    ASSERT_EQ(animcomp_compress(&c, &s, blob.get(), size, &size), ANIMCOMP_STATUS_OK);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    float out[kCurves];
    for (uint32_t i = 0; i < kSamples; i += 7) {
        ASSERT_EQ(animcomp_seek(&ctx, float(i) / 30.0f, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NEAREST), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_curves(&ctx, out, kCurves), ANIMCOMP_STATUS_OK);
        for (uint32_t k = 0; k < kCurves; ++k) EXPECT_LE(std::fabs(out[k] - values[i * kCurves + k]), 0.001f);
    }
}

TEST(Curves, BadInputGetsStatuses) {
    const std::vector<float> values = curve_values();
    std::vector<AnimcompCurveDesc> d = descs();
    AnimcompCompressSettings s;
    animcomp_compress_settings_default(&s);
    size_t size = 0;
    AnimcompRawClip c = face_clip(values, d);
    c.num_curves = 0;  // no joints and no curves
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_NO_JOINTS);
    c = face_clip(values, d);
    c.curve_values = nullptr;
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_NULL_POINTER);
    c = face_clip(values, d);
    c.num_curves = ANIMCOMP_MAX_CURVES + 1;
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    c = face_clip(values, d);
    c.layout = 7;
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_INVALID_ENUM);
    d[1].has_default = 2;
    c = face_clip(values, d);
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    d = descs();
    std::vector<float> bad = values;
    bad[7] = NAN;
    c = face_clip(bad, d);
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, &size), ANIMCOMP_STATUS_NON_FINITE_VALUE);
    AnimcompCompressSettings bs = s;
    bs.curve_precision = -1.0f;
    c = face_clip(values, d);
    EXPECT_EQ(animcomp_compress(&c, &bs, nullptr, 0, &size), ANIMCOMP_STATUS_INVALID_ARGUMENT);

    AlignedBuffer blob = compress(face_clip(values, d), s);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    float out[kCurves];
    EXPECT_EQ(animcomp_sample_curves(&ctx, out, kCurves - 1), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp_sample_curves(&ctx, nullptr, kCurves), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_sample_curves(nullptr, out, kCurves), ANIMCOMP_STATUS_NULL_POINTER);
    float v = 0;
    EXPECT_EQ(animcomp_sample_curve(&ctx, kCurves, &v), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_sample_curve(&ctx, 0, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
}
