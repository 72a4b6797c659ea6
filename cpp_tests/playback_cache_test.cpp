// The playback cache (animcomp_decompressor_attach_cache) through animcomp.h only: a context per
// playing instance with its own cache samples, frame after frame, exactly what a context without
// one samples; the size and argument statuses.
#include <cstdlib>

#include "animcomp.hpp"
#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

struct Opened {
    AlignedBuffer blob;
    AnimcompBlob handle{};
};

void open_vbr(const Clip& clip, Opened& o) {
    AnimcompCompressSettings s;
    ASSERT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), s, o.blob);
    ASSERT_EQ(animcomp_blob_open(&o.handle, o.blob.get(), o.blob.size, nullptr), ANIMCOMP_STATUS_OK);
}

}  // namespace

TEST(PlaybackCache, PlayingInstancesSampleWhatUncachedContextsSample) {
    Clip clip(40, 90);
    Opened o;
    open_vbr(clip, o);
    size_t bytes = 0;
    ASSERT_EQ(animcomp_blob_playback_cache_size(&o.handle, &bytes), ANIMCOMP_STATUS_OK);
    ASSERT_GT(bytes, 0u);
    ASSERT_EQ(bytes % 16, 0u);
    const int instances = 4;
    std::vector<AnimcompDecompressor> plain(instances), cached(instances);
    std::vector<AlignedBuffer> caches;
    for (int i = 0; i < instances; ++i) {
        ASSERT_EQ(animcomp_decompressor_bind(&plain[i], &o.handle), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_decompressor_bind(&cached[i], &o.handle), ANIMCOMP_STATUS_OK);
        caches.emplace_back(bytes);
        ASSERT_EQ(animcomp_decompressor_attach_cache(&cached[i], caches.back().get(), bytes),
                  ANIMCOMP_STATUS_OK);
    }
    std::vector<float> a(40 * 10), b(40 * 10);
    for (int frame = 0; frame < 400; ++frame) {
        for (int i = 0; i < instances; ++i) {
            float t = 0.17f * static_cast<float>(i) + static_cast<float>(frame) / 60.0f;
            ASSERT_EQ(animcomp_seek(&plain[i], t, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(animcomp_seek(&cached[i], t, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(animcomp_sample_pose(&plain[i], a.data(), a.size(), 10), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(animcomp_sample_pose(&cached[i], b.data(), b.size(), 10), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)))
                << "instance " << i << " frame " << frame;
        }
    }
}

TEST(PlaybackCache, AttachChecksItsArguments) {
    Clip clip(12, 40);
    Opened o;
    open_vbr(clip, o);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_bind(&ctx, &o.handle), ANIMCOMP_STATUS_OK);
    size_t bytes = 0;
    ASSERT_EQ(animcomp_decompressor_playback_cache_size(&ctx, &bytes), ANIMCOMP_STATUS_OK);
    AlignedBuffer mem(bytes + 16);
    EXPECT_EQ(animcomp_decompressor_attach_cache(&ctx, mem.get(), bytes - 1), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp_decompressor_attach_cache(&ctx, mem.get() + 8, bytes),
              ANIMCOMP_STATUS_MISALIGNED);
    EXPECT_EQ(animcomp_decompressor_attach_cache(&ctx, mem.get(), bytes), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(animcomp_decompressor_attach_cache(&ctx, nullptr, 0), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(animcomp_decompressor_attach_cache(nullptr, mem.get(), bytes), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_decompressor_playback_cache_size(&ctx, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
}

TEST(PlaybackCache, CppWrapperAttachesACache) {
    Clip clip(16, 50);
    Opened o;
    open_vbr(clip, o);
    AnimcompBlob handle = o.handle;
    auto plain = animcomp::Decompressor::create(o.blob.get(), o.blob.size);
    ASSERT_TRUE(plain.ok());
    auto cached = *plain;
    auto bytes = cached.playback_cache_size();
    ASSERT_TRUE(bytes.ok());
    ASSERT_GT(*bytes, 0u);
    AlignedBuffer mem(*bytes);
    ASSERT_TRUE(cached.attach_cache(mem.get(), *bytes).ok());
    std::vector<float> a(16 * 10), b(16 * 10);
    for (int f = 0; f < 120; ++f) {
        float t = 0.05f + static_cast<float>(f) / 60.0f;
        ASSERT_TRUE(plain->seek(t, ANIMCOMP_LOOPING_WRAP).ok());
        ASSERT_TRUE(cached.seek(t, ANIMCOMP_LOOPING_WRAP).ok());
        ASSERT_TRUE(plain->sample_pose(a).ok());
        ASSERT_TRUE(cached.sample_pose(b).ok());
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "frame " << f;
    }
    (void)handle;
}
