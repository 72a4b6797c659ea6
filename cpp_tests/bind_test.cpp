// Validate once, bind many: animcomp_blob_open + animcomp_decompressor_bind, and joint subsets
// (animcomp_sample_joints), through animcomp.h only.
#include <thread>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

struct Opened {
    AlignedBuffer blob;
    size_t size = 0;
    AnimcompBlob handle{};
};

void open_vbr(const Clip& clip, Opened& o) {
    AnimcompCompressSettings s;
    ASSERT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), s, o.blob);
    o.size = o.blob.size;
    ASSERT_EQ(animcomp_blob_open(&o.handle, o.blob.get(), o.size, nullptr), ANIMCOMP_STATUS_OK);
}

}  // namespace

TEST(Bind, BoundContextsSampleWhatInitSamples) {
    Clip clip(31, 50);
    Opened o;
    open_vbr(clip, o);
    AnimcompDecompressor init, bound;
    ASSERT_EQ(animcomp_decompressor_init(&init, o.blob.get(), o.size, nullptr), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_decompressor_bind(&bound, &o.handle), ANIMCOMP_STATUS_OK);
    std::vector<float> a(31 * 10), b(31 * 10, -1.0f);
    for (float t : {0.0f, 0.33f, 1.1f}) {
        ASSERT_EQ(animcomp_seek(&init, t, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_seek(&bound, t, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&init, a.data(), a.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&bound, b.data(), b.size(), 10), ANIMCOMP_STATUS_OK);
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
    }
}

TEST(Bind, ManyThreadsBindFromOneHandle) {
    Clip clip(20, 40);
    Opened o;
    open_vbr(clip, o);
    std::vector<float> expect(20 * 10);
    AnimcompDecompressor ref;
    ASSERT_EQ(animcomp_decompressor_bind(&ref, &o.handle), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_seek(&ref, 0.5f, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_sample_pose(&ref, expect.data(), expect.size(), 10), ANIMCOMP_STATUS_OK);
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int k = 0; k < 4; ++k) {
        threads.emplace_back([&, k] {
            int good = 1;
            for (int i = 0; i < 200; ++i) {
                AnimcompDecompressor ctx;  // a new context per evaluation, as Unreal does
                good &= animcomp_decompressor_bind(&ctx, &o.handle) == ANIMCOMP_STATUS_OK;
                good &= animcomp_seek(&ctx, 0.5f, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE) == ANIMCOMP_STATUS_OK;
                std::vector<float> p(20 * 10);
                good &= animcomp_sample_pose(&ctx, p.data(), p.size(), 10) == ANIMCOMP_STATUS_OK;
                good &= std::memcmp(p.data(), expect.data(), p.size() * sizeof(float)) == 0;
            }
            ok[k] = good;
        });
    }
    for (auto& t : threads) t.join();
    for (int k = 0; k < 4; ++k) EXPECT_EQ(ok[k], 1) << "thread " << k;
}

TEST(Bind, UnopenedHandlesAndBadArgumentsGiveStatuses) {
    Clip clip(5, 10);
    Opened o;
    open_vbr(clip, o);
    AnimcompBlob bad;
    std::memset(&bad, 0, sizeof bad);
    AnimcompDecompressor ctx;
    EXPECT_EQ(animcomp_decompressor_bind(&ctx, &bad), ANIMCOMP_STATUS_NOT_INITIALIZED);
    EXPECT_EQ(animcomp_decompressor_bind(&ctx, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    o.blob.get()[100] ^= 0x40;
    EXPECT_EQ(animcomp_blob_open(&bad, o.blob.get(), o.size, nullptr), ANIMCOMP_STATUS_CHECKSUM_MISMATCH);
    EXPECT_EQ(animcomp_decompressor_bind(&ctx, &bad), ANIMCOMP_STATUS_NOT_INITIALIZED);
}

TEST(Bind, JointSubsetsWriteTheirSlots) {
    Clip clip(40, 30);
    Opened o;
    open_vbr(clip, o);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_bind(&ctx, &o.handle), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_seek(&ctx, 0.4f, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
    std::vector<float> full(40 * 10);
    ASSERT_EQ(animcomp_sample_pose(&ctx, full.data(), full.size(), 10), ANIMCOMP_STATUS_OK);
    const uint32_t joints[] = {0, 10, 20, 30, 39};
    const uint32_t slots[] = {4, 3, 2, 1, 0};
    std::vector<float> out(5 * 10, 7.0f);
    ASSERT_EQ(animcomp_sample_joints(&ctx, joints, slots, 5, ANIMCOMP_CHANNEL_ROTATION, out.data(), out.size(), 10),
              ANIMCOMP_STATUS_OK);
    for (int i = 0; i < 5; ++i) {
        const float* got = &out[slots[i] * 10];
        const float* want = &full[joints[i] * 10];
        for (int c = 0; c < 4; ++c) EXPECT_EQ(got[c], want[c]) << "joint " << joints[i];
        for (int c = 4; c < 10; ++c) EXPECT_EQ(got[c], 7.0f) << "untouched channel";
    }
    EXPECT_EQ(animcomp_sample_joints(&ctx, joints, nullptr, 5, 0, out.data(), out.size(), 10),
              ANIMCOMP_STATUS_INVALID_ENUM);
    const uint32_t out_of_range[] = {40};
    EXPECT_EQ(animcomp_sample_joints(&ctx, out_of_range, nullptr, 1, ANIMCOMP_CHANNEL_ALL, out.data(), out.size(), 10),
              ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE);
}
