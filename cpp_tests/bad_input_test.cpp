// Every bad-input status reachable through the C ABI.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "animcomp.hpp"
#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Status of a size query for `c` with `s`; also checks *out_size is 0 on errors, and that
/// animcomp_compress_bound reports the same error, or OK when only track values are bad (for the
/// fixed codec the bound checks the clip's shape, not its values).
AnimcompStatus query(const AnimcompRawClip& c, const AnimcompCompressSettings& s) {
    size_t size = 999;
    AnimcompStatus st = animcomp_compress(&c, &s, nullptr, 0, &size);
    if (st != ANIMCOMP_STATUS_BUFFER_TOO_SMALL && st != ANIMCOMP_STATUS_OK) {
        EXPECT_EQ(size, 0u) << st;
    }
    size_t bound = 999;
    AnimcompStatus sb = animcomp_compress_bound(&c, &s, &bound);
    if (sb != ANIMCOMP_STATUS_OK) {
        EXPECT_EQ(sb, st) << "bound and compress agree";
        EXPECT_EQ(bound, 0u);
    }
    return st;
}

TEST(BadInput, NullPointers) {
    const Clip clip(4, 10);
    const AnimcompRawClip c = clip.c();
    const AnimcompCompressSettings s = fixed_settings();
    size_t size = 0;
    EXPECT_EQ(animcomp_compress(nullptr, &s, nullptr, 0, &size), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 0, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_compress(&c, &s, nullptr, 4096, &size), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_compress_bound(&c, &s, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_compress_settings_default(nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_decompress_options_default(nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    AnimcompRawClip bad = c;
    bad.parents = nullptr;
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_NULL_POINTER);
    bad = c;
    bad.rotations = nullptr;
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_NULL_POINTER);
    bad = c;
    bad.translations = nullptr;
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_NULL_POINTER);

    AnimcompDecompressor ctx;
    AnimcompBlobInfo info;
    float out[10];
    AlignedBuffer blob(64);
    EXPECT_EQ(animcomp_validate_blob(nullptr, 64), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_blob_info(nullptr, 64, &info), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_blob_info(blob.get(), 64, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_decompressor_init(nullptr, blob.get(), 64, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_decompressor_init(&ctx, nullptr, 64, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_seek(nullptr, 0.0f, 0, 0), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_seek_sample(nullptr, 0), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_sample_pose(nullptr, out, 10, 10), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_sample_joint(nullptr, 0, out), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_decompressor_info(nullptr, &info), ANIMCOMP_STATUS_NULL_POINTER);
}

TEST(BadInput, CountsAndRates) {
    const Clip clip(4, 10);
    const AnimcompCompressSettings s = fixed_settings();
    AnimcompRawClip c = clip.c();
    c.num_joints = 0;
    EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_NO_JOINTS);
    c = clip.c();
    c.num_samples = 0;
    EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_NO_SAMPLES);
    c = clip.c();
    c.num_joints = ANIMCOMP_MAX_JOINTS + 1;
    EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_TOO_MANY_JOINTS);
    c = clip.c();
    c.num_samples = ANIMCOMP_MAX_SAMPLES + 1;
    EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_TOO_MANY_SAMPLES);
    for (float rate : {0.0f, -30.0f, kNaN, std::numeric_limits<float>::infinity(), 1e-5f, 1e6f}) {
        c = clip.c();
        c.sample_rate = rate;
        EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_INVALID_SAMPLE_RATE) << rate;
    }
}

TEST(BadInput, Values) {
    const AnimcompCompressSettings s = fixed_settings();
    {
        Clip clip(4, 10);
        clip.at(3, 2)[5] = kNaN;  // translation y
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_NON_FINITE_VALUE);
    }
    {
        Clip clip(4, 10);
        clip.at(0, 1)[0] = kNaN;  // rotation x
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_NON_FINITE_VALUE);
    }
    {
        Clip clip(4, 10);
        clip.at(9, 3)[8] = 1e30f;  // absurd scale
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_NON_FINITE_VALUE);
    }
    {
        Clip clip(4, 10);
        float* q = clip.at(5, 0);
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 0.0f;  // zero-length quaternion
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_NON_UNIT_QUATERNION);
    }
    {
        Clip clip(4, 10);
        clip.parents[2] = 3;  // forward reference
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_INVALID_PARENT);
        clip.parents[2] = 2;  // itself
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_INVALID_PARENT);
        clip.parents[2] = -2;  // negative other than -1
        EXPECT_EQ(query(clip.c(), s), ANIMCOMP_STATUS_INVALID_PARENT);
    }
    Clip clip(4, 10);
    const float bad_precision[4] = {0.01f, 0.0f, 0.01f, 0.01f};
    AnimcompRawClip c = clip.c();
    c.precisions = bad_precision;
    EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_INVALID_PRECISION);
    c = clip.c();
    c.shell_distances = bad_precision;
    EXPECT_EQ(query(c, s), ANIMCOMP_STATUS_INVALID_SHELL_DISTANCE);
    AnimcompCompressSettings o = s;
    o.precision = kNaN;
    EXPECT_EQ(query(clip.c(), o), ANIMCOMP_STATUS_INVALID_PRECISION);
    o = s;
    o.shell_distance = -3.0f;
    EXPECT_EQ(query(clip.c(), o), ANIMCOMP_STATUS_INVALID_SHELL_DISTANCE);
}

TEST(BadInput, EnumsStridesReservedAlignment) {
    const Clip clip(4, 10);
    const AnimcompRawClip c = clip.c();
    const AnimcompCompressSettings s = fixed_settings();
    uint32_t AnimcompCompressSettings::*fields[] = {
        &AnimcompCompressSettings::codec,         &AnimcompCompressSettings::level,
        &AnimcompCompressSettings::rotation_format, &AnimcompCompressSettings::translation_format,
        &AnimcompCompressSettings::scale_format,  &AnimcompCompressSettings::default_mode,
        &AnimcompCompressSettings::optimize_loops};
    for (auto f : fields) {
        AnimcompCompressSettings b = s;
        b.*f = 1000;
        EXPECT_EQ(query(c, b), ANIMCOMP_STATUS_INVALID_ENUM);
    }
    AnimcompCompressSettings b = s;
    b.codec = ANIMCOMP_CODEC_KEYS + 1;
    EXPECT_EQ(query(c, b), ANIMCOMP_STATUS_INVALID_ENUM);
    b = s;
    b.rotation_format = ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE32 + 1;
    EXPECT_EQ(query(c, b), ANIMCOMP_STATUS_INVALID_ENUM);
    b = s;
    b.reserved[3] = 1;
    EXPECT_EQ(query(c, b), ANIMCOMP_STATUS_INVALID_ARGUMENT);

    AnimcompRawClip bad = c;
    bad.layout = 2;
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_INVALID_ENUM);
    bad = c;
    bad.rotation_stride = 3;  // smaller than a quaternion
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_INCONSISTENT_CLIP);
    bad = c;
    bad.scale_stride = 2;
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_INCONSISTENT_CLIP);
    bad = c;
    bad.reserved[0] = 1;
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    bad = c;
    bad.translations = reinterpret_cast<const float*>(reinterpret_cast<const char*>(c.translations) + 1);
    EXPECT_EQ(query(bad, s), ANIMCOMP_STATUS_MISALIGNED);

    AlignedBuffer out(1 << 16);
    size_t size = 0;
    for (size_t off : {1, 4, 8}) {
        EXPECT_EQ(animcomp_compress(&c, &s, out.get() + off, 4096, &size), ANIMCOMP_STATUS_MISALIGNED) << off;
        EXPECT_EQ(size, 0u);
    }
}

TEST(BadInput, DecompressorCalls) {
    const Clip clip(5, 20);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(), blob);
    AnimcompDecompressor ctx;
    std::memset(&ctx, 0, sizeof ctx);
    float pose[50], one[10];
    EXPECT_EQ(animcomp_seek(&ctx, 0.0f, 0, 0), ANIMCOMP_STATUS_NOT_INITIALIZED);
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose, 50, 10), ANIMCOMP_STATUS_NOT_INITIALIZED);
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(animcomp_seek(&ctx, kNaN, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_INVALID_TIME);
    EXPECT_EQ(animcomp_seek(&ctx, INFINITY, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_INVALID_TIME);
    EXPECT_EQ(animcomp_seek(&ctx, 0.1f, 2, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_seek(&ctx, 0.1f, ANIMCOMP_LOOPING_CLAMP, 4), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_sample_joint(&ctx, 5, one), ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE);
    EXPECT_EQ(animcomp_sample_joint(&ctx, UINT32_MAX, one), ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE);
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose, 49, 10), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose, 50, 9), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose, 50, 0), ANIMCOMP_STATUS_OK);  // 0 = 10
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose + 1, 48, 10), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    float* odd = reinterpret_cast<float*>(reinterpret_cast<char*>(pose) + 2);
    EXPECT_EQ(animcomp_sample_pose(&ctx, odd, 40, 10), ANIMCOMP_STATUS_MISALIGNED);

    alignas(16) unsigned char raw[sizeof(AnimcompDecompressor) + 16];
    auto* shifted = reinterpret_cast<AnimcompDecompressor*>(raw + 8);
    EXPECT_EQ(animcomp_decompressor_init(shifted, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_MISALIGNED);

    AnimcompDecompressOptions opts;
    ASSERT_EQ(animcomp_decompress_options_default(&opts), ANIMCOMP_STATUS_OK);
    opts.verify_checksum = 2;
    EXPECT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_seek(&ctx, 0.0f, 0, 0), ANIMCOMP_STATUS_NOT_INITIALIZED) << "failed init un-initialises";
}

TEST(BadInput, BindPoseRequiredAndItsLength) {
    const Clip clip(6, 20);
    std::vector<float> bind(6 * 10);
    for (uint32_t j = 0; j < 6; ++j) std::memcpy(&bind[j * 10], clip.at(0, j), 10 * sizeof(float));
    AnimcompRawClip c = clip.c();
    c.bind_pose = bind.data();
    AnimcompCompressSettings s = fixed_settings();
    s.default_mode = ANIMCOMP_DEFAULT_MODE_BIND_POSE;
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(c, s, blob);
    AnimcompBlobInfo info;
    ASSERT_EQ(animcomp_blob_info(blob.get(), blob.size, &info), ANIMCOMP_STATUS_OK);
    ASSERT_NE(info.flags & ANIMCOMP_BLOB_FLAG_DEFAULTS_ARE_BIND_POSE, 0u);
    AnimcompDecompressor ctx;
    EXPECT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_BIND_POSE_REQUIRED);
    AnimcompDecompressOptions opts;
    ASSERT_EQ(animcomp_decompress_options_default(&opts), ANIMCOMP_STATUS_OK);
    opts.bind_pose = bind.data();
    // A bind pose without its length is refused, whatever its length really is.
    EXPECT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    opts.bind_pose_len = bind.size();
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_OK);
    float one[10];
    ASSERT_EQ(animcomp_seek_sample(&ctx, 0), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_sample_joint(&ctx, 5, one), ANIMCOMP_STATUS_OK);
    EXPECT_LT(quat_angle(one, clip.at(0, 5)), 4e-3f);

    // A bind pose's length is checked against the blob before it is read. Each short array is a heap block of exactly its size, so under ASan
    // (.ci/sanitize.sh) a read of one float past it would be reported.
    for (size_t floats : {size_t(10), size_t(50), size_t(59)}) {
        std::unique_ptr<float[]> shortp(new float[floats]);
        std::memcpy(shortp.get(), bind.data(), floats * sizeof(float));
        opts.bind_pose = shortp.get();
        opts.bind_pose_len = floats;
        AnimcompBlob handle;
        EXPECT_EQ(animcomp_blob_open(&handle, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_BUFFER_TOO_SMALL) << floats;
        EXPECT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_BUFFER_TOO_SMALL) << floats;
    }
    std::unique_ptr<float[]> exact(new float[60]);
    std::memcpy(exact.get(), bind.data(), 60 * sizeof(float));
    opts.bind_pose = exact.get();
    opts.bind_pose_len = 60;
    AnimcompBlob handle;
    ASSERT_EQ(animcomp_blob_open(&handle, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_decompressor_bind(&ctx, &handle), ANIMCOMP_STATUS_OK);
    std::vector<float> pose(60);
    EXPECT_EQ(animcomp_sample_pose(&ctx, pose.data(), pose.size(), 0), ANIMCOMP_STATUS_OK);
    opts.bind_pose_len = 0;  // no length: refused, never trusted to hold 10 floats per joint
    EXPECT_EQ(animcomp_blob_open(&handle, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, &opts), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    // The C++ wrapper passes the length of its own array.
    const AnimcompDecompressOptions wrapped = animcomp::decompress_options_with_bind_pose(bind);
    EXPECT_EQ(wrapped.bind_pose_len, 60u);
    EXPECT_TRUE(animcomp::BlobHandle::open(blob.get(), blob.size, &wrapped).ok());
}

}  // namespace
