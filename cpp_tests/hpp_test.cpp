// include/animcomp.hpp, the C++17 wrapper: blob ownership and alignment, compress returning a
// blob or a status, the decompressor object, poses into std::vector / std::array / raw buffers,
// and errors as statuses or (with exceptions on) animcomp::Error. The same poses as the C API.
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "animcomp.hpp"
#include "test_clip.hpp"

namespace {

using animcomp_test::Clip;

static_assert(!std::is_copy_constructible<animcomp::Blob>::value, "a blob owner is move-only");
static_assert(std::is_nothrow_move_constructible<animcomp::Blob>::value, "moves never throw");
static_assert(std::is_trivially_copyable<animcomp::Decompressor>::value,
              "a decompressor is a plain copyable context");

TEST(Hpp, CompressGivesAnAlignedValidBlobOfTheExactSize) {
    Clip clip(12, 40);
    AnimcompRawClip c = clip.c();
    animcomp::Result<animcomp::Blob> blob = animcomp::compress(c);
    ASSERT_TRUE(blob.ok()) << blob.status().message();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(blob->data()) % ANIMCOMP_ALIGNMENT, 0u);
    EXPECT_TRUE(blob->validate().ok());
    // The size is what the C query protocol reports.
    AnimcompCompressSettings settings = animcomp::default_settings();
    size_t size = 0;
    ASSERT_EQ(animcomp_compress(&c, &settings, nullptr, 0, &size), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(blob->size(), size);
    animcomp::Result<AnimcompBlobInfo> info = blob->info();
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->num_joints, 12u);
    EXPECT_EQ(info->num_samples, 40u);
}

TEST(Hpp, PosesMatchTheCApiBitForBitIntoAnyContainer) {
    Clip clip(9, 33);
    AnimcompRawClip c = clip.c();
    AnimcompCompressSettings settings = animcomp::default_settings();
    settings.codec = ANIMCOMP_CODEC_FIXED;
    animcomp::Blob blob = animcomp::compress(c, settings).value();
    animcomp::Decompressor d = animcomp::Decompressor::create(blob).value();

    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.data(), blob.size(), nullptr), ANIMCOMP_STATUS_OK);
    for (float t : {0.0f, 0.37f, 0.5f, 1.2f}) {
        ASSERT_TRUE(d.seek(t, ANIMCOMP_LOOPING_WRAP).ok());
        ASSERT_EQ(animcomp_seek(&ctx, t, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        std::vector<float> expected(9 * 10);
        ASSERT_EQ(animcomp_sample_pose(&ctx, expected.data(), expected.size(), 0), ANIMCOMP_STATUS_OK);

        std::vector<float> vec(9 * 10);
        std::array<float, 9 * 10> arr{};
        ASSERT_TRUE(d.sample_pose(vec).ok());
        ASSERT_TRUE(d.sample_pose(arr).ok());
        EXPECT_EQ(std::memcmp(vec.data(), expected.data(), vec.size() * sizeof(float)), 0);
        EXPECT_EQ(std::memcmp(arr.data(), expected.data(), arr.size() * sizeof(float)), 0);

        // Strided output into an engine's transform array: 16 floats per joint, padding untouched.
        std::vector<float> strided(8 * 16 + 10, -7.0f);
        ASSERT_TRUE(d.sample_pose(strided, 16).ok());
        for (size_t j = 0; j < 9; ++j) {
            EXPECT_EQ(std::memcmp(&strided[j * 16], &expected[j * 10], 10 * sizeof(float)), 0);
            if (j < 8) {
                EXPECT_EQ(strided[j * 16 + 12], -7.0f);
            }
        }
        float joint[ANIMCOMP_FLOATS_PER_JOINT];
        ASSERT_TRUE(d.sample_joint(4, joint).ok());
        EXPECT_EQ(std::memcmp(joint, &expected[40], sizeof joint), 0);
    }
}

TEST(Hpp, ErrorsAreStatusesWithMessages) {
    Clip clip(3, 10);
    AnimcompRawClip c = clip.c();
    c.sample_rate = -1.0f;
    animcomp::Result<animcomp::Blob> blob = animcomp::compress(c);
    ASSERT_FALSE(blob.ok());
    EXPECT_EQ(blob.status().code(), ANIMCOMP_STATUS_INVALID_SAMPLE_RATE);
    EXPECT_STREQ(blob.status().message(), animcomp_status_message(ANIMCOMP_STATUS_INVALID_SAMPLE_RATE));

    // A corrupted copy is refused with its status; too small a pose buffer too.
    animcomp::Blob good = animcomp::compress(clip.c()).value();
    animcomp::Blob bad = animcomp::Blob::copy_of(good.data(), good.size()).value();
    bad.data()[bad.size() - 1] ^= 0x40;
    EXPECT_EQ(bad.validate().code(), ANIMCOMP_STATUS_CHECKSUM_MISMATCH);
    EXPECT_EQ(animcomp::Decompressor::create(bad).status().code(), ANIMCOMP_STATUS_CHECKSUM_MISMATCH);
    animcomp::Decompressor d = animcomp::Decompressor::create(good).value();
    std::vector<float> small(5);
    EXPECT_EQ(d.sample_pose(small).code(), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp::Decompressor{}.sample_pose(small).code(), ANIMCOMP_STATUS_NOT_INITIALIZED);
}

TEST(Hpp, BlobOwnershipMoves) {
    Clip clip(2, 8);
    animcomp::Blob a = animcomp::compress(clip.c()).value();
    const unsigned char* p = a.data();
    size_t n = a.size();
    animcomp::Blob b = std::move(a);
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(b.data(), p);
    EXPECT_EQ(b.size(), n);
    animcomp::Blob c;
    c = std::move(b);
    EXPECT_EQ(c.data(), p);
    EXPECT_TRUE(c.validate().ok());
}

#if ANIMCOMP_HPP_EXCEPTIONS
TEST(Hpp, ValueOnAnErrorThrowsWithTheStatus) {
    Clip clip(3, 10);
    AnimcompRawClip c = clip.c();
    c.num_joints = 0;
    try {
        animcomp::Blob blob = animcomp::compress(c).value();
        FAIL() << "no exception";
    } catch (const animcomp::Error& e) {
        EXPECT_EQ(e.status().code(), ANIMCOMP_STATUS_NO_JOINTS);
        EXPECT_STREQ(e.what(), animcomp_status_message(ANIMCOMP_STATUS_NO_JOINTS));
    }
    EXPECT_THROW(animcomp::check(ANIMCOMP_STATUS_CORRUPT_BLOB), animcomp::Error);
}
#endif


// Issue 24: open once, bind many; curves; additive; const Result access.
TEST(Hpp, OpenOnceBindManySamplesLikeCreate) {
    Clip clip(9, 30);
    animcomp::Result<animcomp::Blob> blob = animcomp::compress(clip.c());
    ASSERT_TRUE(blob.ok());
    const animcomp::Result<animcomp::Blob>& cblob = blob;  // const access: -> and *
    EXPECT_EQ((*cblob).size(), cblob->size());
    animcomp::Result<animcomp::BlobHandle> handle = animcomp::BlobHandle::open(*blob);
    ASSERT_TRUE(handle.ok()) << handle.status().message();
    static_assert(alignof(animcomp::BlobHandle) >= ANIMCOMP_ALIGNMENT, "the type carries the alignment");
    auto created = animcomp::Decompressor::create(*blob);
    ASSERT_TRUE(created.ok());
    std::vector<float> a(9 * 10), b(9 * 10);
    for (int k = 0; k < 3; ++k) {
        animcomp::Result<animcomp::Decompressor> bound = animcomp::Decompressor::bind(*handle);
        ASSERT_TRUE(bound.ok());
        ASSERT_TRUE(bound->seek(0.3f * float(k)).ok());
        ASSERT_TRUE(created->seek(0.3f * float(k)).ok());
        ASSERT_TRUE(bound->sample_pose(a).ok());
        ASSERT_TRUE(created->sample_pose(b).ok());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
        // A subset through sample_joints agrees with the full pose.
        const uint32_t joints[2] = {8, 2};
        float two[20];
        ASSERT_TRUE(bound->sample_joints(joints, nullptr, 2, ANIMCOMP_CHANNEL_ALL, two, 20).ok());
        EXPECT_EQ(0, std::memcmp(two, &a[80], 10 * sizeof(float)));
        EXPECT_EQ(0, std::memcmp(two + 10, &a[20], 10 * sizeof(float)));
        ASSERT_TRUE(created->rebind(*handle).ok());
    }
    animcomp::BlobHandle unopened;
    EXPECT_EQ(animcomp::Decompressor::bind(unopened).status().code(), ANIMCOMP_STATUS_NOT_INITIALIZED);
}

TEST(Hpp, CurvesThroughTheWrapper) {
    const uint32_t curves = 3, samples = 40;
    std::vector<float> values(curves * samples);
    for (uint32_t i = 0; i < samples; ++i)
        for (uint32_t c = 0; c < curves; ++c) values[i * curves + c] = float(c) + 0.01f * float(i);
    std::vector<AnimcompCurveDesc> descs(curves);
    for (uint32_t c = 0; c < curves; ++c) descs[c].id = 70 + c;
    AnimcompRawClip c{};
    c.num_samples = samples;
    c.sample_rate = 30.0f;
    c.layout = ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
    c.num_curves = curves;
    c.curve_values = values.data();
    c.curves = descs.data();
    auto blob = animcomp::compress(c);
    ASSERT_TRUE(blob.ok()) << blob.status().message();
    auto d = animcomp::Decompressor::create(*blob);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(d->seek_sample(10).ok());
    std::array<float, 3> w{};
    ASSERT_TRUE(d->sample_curves(w).ok());
    for (uint32_t k = 0; k < curves; ++k) {
        EXPECT_NEAR(w[k], values[10 * curves + k], 0.01f);
        animcomp::Result<float> one = d->sample_curve(k);
        ASSERT_TRUE(one.ok());
        EXPECT_EQ(*one, w[k]);
        EXPECT_EQ(d->curve_id(k).value(), 70 + k);
    }
    EXPECT_FALSE(d->sample_curve(3).ok());
    std::array<float, 2> short_buffer{};
    EXPECT_EQ(d->sample_curves(short_buffer).code(), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
}

TEST(Hpp, AdditiveCompressAndApply) {
    Clip base(6, 20), layer(6, 20);
    AnimcompRawClip bc = base.c();
    auto blob = animcomp::compress_additive(layer.c(), ANIMCOMP_ADDITIVE_ADDITIVE0, &bc, nullptr, 0);
    ASSERT_TRUE(blob.ok()) << blob.status().message();
    EXPECT_EQ(blob->info()->additive_format, uint32_t(ANIMCOMP_ADDITIVE_ADDITIVE0));
    auto d = animcomp::Decompressor::create(*blob);
    ASSERT_TRUE(d.ok());
    std::vector<float> pose(60), base_pose(60), out(60);
    ASSERT_TRUE(d->sample_pose(pose).ok());
    for (int j = 0; j < 6; ++j) {
        float identity[10] = {0, 0, 0, 1, 0, 0, 0, 1, 1, 1};
        std::memcpy(&base_pose[j * 10], identity, sizeof identity);
    }
    ASSERT_TRUE(animcomp::apply_additive(ANIMCOMP_ADDITIVE_ADDITIVE0, base_pose.data(), pose.data(), 1.0f,
                                         out.data(), 6).ok());
    for (int k = 0; k < 60; ++k) EXPECT_NEAR(out[k], pose[k], 1e-5f);
    // Both bases given: the C API's status comes back.
    std::vector<float> bp(60);
    EXPECT_EQ(animcomp::compress_additive(layer.c(), ANIMCOMP_ADDITIVE_ADDITIVE0, &bc, bp.data(), 60).status().code(),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);
}

}  // namespace
