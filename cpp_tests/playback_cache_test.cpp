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

void open_vbr(const Clip& clip, Opened& o, uint32_t layout = ANIMCOMP_VBR_LAYOUT_SEGMENTS) {
    AnimcompCompressSettings s;
    ASSERT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    s.vbr_layout = layout;
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

// ANIMCOMP_VBR_LAYOUT_AUTO writes a rig of 16 joints or more grouped (format version 4), a
// smaller one in segments (version 2).
TEST(PlaybackCache, AutoLayoutGroupsRigsFromSixteenJoints) {
    for (uint32_t joints : {15u, 16u}) {
        Clip clip(joints, 40);
        Opened o;
        open_vbr(clip, o, ANIMCOMP_VBR_LAYOUT_AUTO);
        AnimcompBlobInfo info{};
        ASSERT_EQ(animcomp_blob_info(o.blob.get(), o.blob.size, &info), ANIMCOMP_STATUS_OK);
        EXPECT_EQ(info.format_version, joints >= 16 ? uint32_t(ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED)
                                                    : uint32_t(ANIMCOMP_BLOB_FORMAT_VERSION))
            << joints << " joints";
    }
}

// The grouped layout (format version 4) samples, with and without a cache, exactly what the
// default layout samples: whole poses and every third joint.
TEST(PlaybackCache, GroupedLayoutSamplesWhatSegmentsSample) {
    Clip clip(37, 75);
    Opened seg, grp;
    open_vbr(clip, seg);
    open_vbr(clip, grp, ANIMCOMP_VBR_LAYOUT_GROUPED);
    AnimcompBlobInfo info{};
    ASSERT_EQ(animcomp_blob_info(grp.blob.get(), grp.blob.size, &info), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(info.format_version, uint32_t(ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED));
    // The default blob rewritten without recompressing is the grouped blob, byte for byte.
    size_t need = 0;
    ASSERT_EQ(animcomp_regroup_blob(seg.blob.get(), seg.blob.size, nullptr, 0, &need),
              ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    ASSERT_EQ(need, grp.blob.size);
    AlignedBuffer re(need);
    size_t written = 0;
    ASSERT_EQ(animcomp_regroup_blob(seg.blob.get(), seg.blob.size, re.get(), need, &written),
              ANIMCOMP_STATUS_OK);
    ASSERT_EQ(written, need);
    EXPECT_EQ(0, std::memcmp(re.get(), grp.blob.get(), need));
    AnimcompDecompressor a{}, b{}, c{};
    ASSERT_EQ(animcomp_decompressor_bind(&a, &seg.handle), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_decompressor_bind(&b, &grp.handle), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_decompressor_bind(&c, &grp.handle), ANIMCOMP_STATUS_OK);
    size_t bytes = 0;
    ASSERT_EQ(animcomp_decompressor_playback_cache_size(&c, &bytes), ANIMCOMP_STATUS_OK);
    ASSERT_GT(bytes, 0u);
    AlignedBuffer cache(bytes);
    ASSERT_EQ(animcomp_decompressor_attach_cache(&c, cache.get(), bytes), ANIMCOMP_STATUS_OK);
    std::vector<uint32_t> joints;
    for (uint32_t j = 0; j < 37; j += 3) joints.push_back(j);
    std::vector<float> pa(37 * 10), pb(37 * 10), pc(37 * 10), sa(joints.size() * 10),
        sb(joints.size() * 10);
    for (int frame = 0; frame < 240; ++frame) {
        float t = frame < 180 ? 0.05f + static_cast<float>(frame) / 60.0f
                              : static_cast<float>((frame * 7919) % 75) / 30.0f;
        for (AnimcompDecompressor* d : {&a, &b, &c}) {
            ASSERT_EQ(animcomp_seek(d, t, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        }
        ASSERT_EQ(animcomp_sample_pose(&a, pa.data(), pa.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&b, pb.data(), pb.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&c, pc.data(), pc.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(0, std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float))) << "frame " << frame;
        ASSERT_EQ(0, std::memcmp(pa.data(), pc.data(), pa.size() * sizeof(float))) << "cached, frame " << frame;
        ASSERT_EQ(animcomp_sample_joints(&a, joints.data(), nullptr, joints.size(), ANIMCOMP_CHANNEL_ALL,
                                         sa.data(), sa.size(), 10),
                  ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_joints(&b, joints.data(), nullptr, joints.size(), ANIMCOMP_CHANNEL_ALL,
                                         sb.data(), sb.size(), 10),
                  ANIMCOMP_STATUS_OK);
        ASSERT_EQ(0, std::memcmp(sa.data(), sb.data(), sa.size() * sizeof(float))) << "joints, frame " << frame;
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
