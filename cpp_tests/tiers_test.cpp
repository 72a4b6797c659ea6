// Quality tiers through the C header: a clip compressed with two tier levels; the main thread
// samples the resident blob while another thread "streams" the tiers in (copies them into memory
// of its own, attaches them) and out again (detaches, then frees the memory: under ASan a read
// after the detach would be reported). Every pose is finite, and with both levels attached the
// pose is the one of the blob compressed without tiers, bit for bit.
#include <atomic>
#include <thread>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

constexpr uint32_t kJoints = 24;

struct Tiered {
    AlignedBuffer resident, tier[2], full;
};

Tiered compress_tiered(const AnimcompRawClip& clip) {
    Tiered t;
    AnimcompCompressSettings s;
    EXPECT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    size_t sizes[3] = {0, 0, 0};
    EXPECT_EQ(animcomp_compress_tiered(&clip, &s, nullptr, nullptr, 0, nullptr, nullptr, sizes),
              ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    t.resident = AlignedBuffer(sizes[0]);
    t.tier[0] = AlignedBuffer(sizes[1]);
    t.tier[1] = AlignedBuffer(sizes[2]);
    void* outs[2] = {t.tier[0].get(), t.tier[1].get()};
    size_t caps[2] = {sizes[1], sizes[2]};
    EXPECT_EQ(animcomp_compress_tiered(&clip, &s, nullptr, t.resident.get(), sizes[0], outs, caps, sizes),
              ANIMCOMP_STATUS_OK);
    EXPECT_EQ(compress(clip, s, t.full), ANIMCOMP_STATUS_OK);
    return t;
}

bool finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

TEST(Tiers, StreamInAndOutWhileSampling) {
    const Clip clip(kJoints, 200);
    AnimcompRawClip c = clip.c();
    c.sample_rate = 120.0f;  // the same motion, slower: samples for the tiers to hold
    Tiered t = compress_tiered(c);
    ASSERT_GT(t.tier[0].size, 0u);

    AnimcompBlob blob;
    ASSERT_EQ(animcomp_blob_open(&blob, t.resident.get(), t.resident.size, nullptr), ANIMCOMP_STATUS_OK);
    AnimcompTierSet set;
    ASSERT_EQ(animcomp_tier_set_init(&set, &blob), ANIMCOMP_STATUS_OK);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_bind_tiers(&ctx, &set), ANIMCOMP_STATUS_OK);
    AnimcompDecompressor full;
    ASSERT_EQ(animcomp_decompressor_init(&full, t.full.get(), t.full.size, nullptr), ANIMCOMP_STATUS_OK);

    std::atomic<int> phase{0};  // 0 streaming in, 1 both attached, 2 detached and freed
    std::atomic<int> errors{0};
    std::thread streamer([&] {
        for (int l = 0; l < 2; ++l) {
            // "Load from disk": into memory the streamer owns.
            AlignedBuffer* owned = new AlignedBuffer(t.tier[l].size);
            std::memcpy(owned->get(), t.tier[l].get(), t.tier[l].size);
            uint32_t level = 0;
            if (animcomp_tier_attach(&set, owned->get(), owned->size, &level) != ANIMCOMP_STATUS_OK ||
                level != uint32_t(l + 1))
                ++errors;
            // Ownership is found again at detach (the returned address).
            (void)owned->data.release();
            delete owned;
        }
        phase = 1;
        while (phase.load() == 1) std::this_thread::yield();
        for (uint32_t l = 1; l <= 2; ++l) {
            const void* back = nullptr;
            if (animcomp_tier_detach(&set, l, &back) != ANIMCOMP_STATUS_OK || back == nullptr) ++errors;
            // No call reads it now: free it.
            std::free(const_cast<void*>(back));
        }
        phase = 3;
    });

    std::vector<float> pose(kJoints * 10), want(kJoints * 10);
    bool compared = false;
    for (uint32_t k = 0; phase.load() != 3 || k < 50; ++k) {
        const float time = 0.0071f * float(k % 200);
        ASSERT_EQ(animcomp_seek(&ctx, time, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&ctx, pose.data(), pose.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_TRUE(finite(pose)) << "pose " << k;
        if (phase.load() == 1) {
            // Both levels attached: the blob without tiers, bit for bit.
            ASSERT_EQ(animcomp_seek(&full, time, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(animcomp_sample_pose(&full, want.data(), want.size(), 10), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(std::memcmp(pose.data(), want.data(), pose.size() * sizeof(float)), 0) << "pose " << k;
            compared = true;
            phase = 2;
        }
        if (k > 100000) break;
    }
    streamer.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_TRUE(compared);
    uint32_t attached = 7;
    ASSERT_EQ(animcomp_tier_set_attached(&set, &attached), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(attached, 0u);
}

TEST(Tiers, WrongTiersAreRefused) {
    const Clip a(kJoints, 200), b(kJoints + 3, 150);
    AnimcompRawClip ca = a.c(), cb = b.c();
    ca.sample_rate = cb.sample_rate = 120.0f;
    Tiered ta = compress_tiered(ca), tb = compress_tiered(cb);
    AnimcompBlob blob;
    ASSERT_EQ(animcomp_blob_open(&blob, ta.resident.get(), ta.resident.size, nullptr), ANIMCOMP_STATUS_OK);
    AnimcompTierSet set;
    ASSERT_EQ(animcomp_tier_set_init(&set, &blob), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(animcomp_tier_attach(&set, tb.tier[0].get(), tb.tier[0].size, nullptr), ANIMCOMP_STATUS_TIER_MISMATCH);
    ta.tier[0].get()[ta.tier[0].size / 2] ^= 1;
    EXPECT_EQ(animcomp_tier_attach(&set, ta.tier[0].get(), ta.tier[0].size, nullptr), ANIMCOMP_STATUS_CHECKSUM_MISMATCH);
    EXPECT_EQ(animcomp_tier_attach(&set, ta.tier[1].get(), 16, nullptr), ANIMCOMP_STATUS_BAD_SIZE);
    // A blob compressed without tiers has no tier set.
    ASSERT_EQ(animcomp_blob_open(&blob, ta.full.get(), ta.full.size, nullptr), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(animcomp_tier_set_init(&set, &blob), ANIMCOMP_STATUS_INVALID_ARGUMENT);
}

}  // namespace
