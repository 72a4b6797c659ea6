// The playback cache (animcomp_decompressor_attach_cache) through animcomp.h only: a context per
// playing instance with its own cache samples, frame after frame, exactly what a context without
// one samples; the size and argument statuses.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

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

// Every ANIMCOMP_VBR_LAYOUT_* value (reserved) writes the same grouped blob (format version 5),
// on small rigs too.
TEST(PlaybackCache, EveryLayoutWritesTheGroupedBlob) {
    for (uint32_t joints : {3u, 15u, 16u}) {
        Clip clip(joints, 40);
        Opened seg, grp, aut;
        open_vbr(clip, seg, ANIMCOMP_VBR_LAYOUT_SEGMENTS);
        open_vbr(clip, grp, ANIMCOMP_VBR_LAYOUT_GROUPED);
        open_vbr(clip, aut, ANIMCOMP_VBR_LAYOUT_AUTO);
        AnimcompBlobInfo info{};
        ASSERT_EQ(animcomp_blob_info(seg.blob.get(), seg.blob.size, &info), ANIMCOMP_STATUS_OK);
        EXPECT_EQ(info.format_version, uint32_t(ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED)) << joints << " joints";
        for (const Opened* o : {&grp, &aut}) {
            ASSERT_EQ(o->blob.size, seg.blob.size) << joints << " joints";
            EXPECT_EQ(0, std::memcmp(o->blob.get(), seg.blob.get(), seg.blob.size)) << joints << " joints";
        }
    }
}

namespace {

std::vector<char> read_golden(const char* name) {
    std::ifstream f(std::string(ANIMCOMP_GOLDEN_DIR) + "/" + name, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

// A format version 2 `vbr` blob (the committed golden, segments layout) is refused by
// animcomp_blob_open and animcomp_decompressor_init with UNSUPPORTED_VERSION; animcomp_regroup_blob
// converts it to a blob that samples the golden's recorded poses bit for bit (its `.poses`: u32
// entries, u32 joints, then per entry f32 time, u32 looping, u32 rounding, joints x 10 f32), with
// and without a playback cache, and every third joint as the whole pose has it.
TEST(PlaybackCache, FormatVersion2VbrIsRefusedAndRegrouped) {
    std::vector<char> bytes = read_golden("vbr_default_v2.blob");
    std::vector<char> poses = read_golden("vbr_default_v2.poses");
    ASSERT_GT(bytes.size(), 64u);
    ASSERT_GT(poses.size(), 8u);
    AlignedBuffer v2(bytes.size());
    std::memcpy(v2.get(), bytes.data(), bytes.size());
    AnimcompBlob handle{};
    EXPECT_EQ(animcomp_blob_open(&handle, v2.get(), v2.size, nullptr), ANIMCOMP_STATUS_UNSUPPORTED_VERSION);
    AnimcompDecompressor refused{};
    EXPECT_EQ(animcomp_decompressor_init(&refused, v2.get(), v2.size, nullptr),
              ANIMCOMP_STATUS_UNSUPPORTED_VERSION);
    EXPECT_NE(std::strstr(animcomp_status_message(ANIMCOMP_STATUS_UNSUPPORTED_VERSION), "animcomp_regroup_blob"),
              nullptr);
    size_t need = 0;
    ASSERT_EQ(animcomp_regroup_blob(v2.get(), v2.size, nullptr, 0, &need), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    AlignedBuffer re(need);
    size_t written = 0;
    ASSERT_EQ(animcomp_regroup_blob(v2.get(), v2.size, re.get(), need, &written), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(written, need);
    AnimcompBlobInfo info{};
    ASSERT_EQ(animcomp_blob_info(re.get(), re.size, &info), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(info.format_version, uint32_t(ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED));
    ASSERT_EQ(animcomp_blob_open(&handle, re.get(), re.size, nullptr), ANIMCOMP_STATUS_OK);
    AnimcompDecompressor plain{}, cached{};
    ASSERT_EQ(animcomp_decompressor_bind(&plain, &handle), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_decompressor_bind(&cached, &handle), ANIMCOMP_STATUS_OK);
    size_t cache_bytes = 0;
    ASSERT_EQ(animcomp_decompressor_playback_cache_size(&cached, &cache_bytes), ANIMCOMP_STATUS_OK);
    ASSERT_GT(cache_bytes, 0u);
    AlignedBuffer cache(cache_bytes);
    ASSERT_EQ(animcomp_decompressor_attach_cache(&cached, cache.get(), cache_bytes), ANIMCOMP_STATUS_OK);
    auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, poses.data() + at, 4);
        return v;
    };
    const uint32_t entries = u32(0), joints = u32(4);
    ASSERT_EQ(joints, info.num_joints);
    std::vector<uint32_t> every_third;
    for (uint32_t j = 0; j < joints; j += 3) every_third.push_back(j);
    std::vector<float> want(joints * 10), a(joints * 10), b(joints * 10), s(every_third.size() * 10);
    size_t at = 8;
    for (uint32_t e = 0; e < entries; ++e) {
        float t;
        std::memcpy(&t, poses.data() + at, 4);
        const uint32_t looping = u32(at + 4), rounding = u32(at + 8);
        std::memcpy(want.data(), poses.data() + at + 12, want.size() * sizeof(float));
        at += 12 + want.size() * sizeof(float);
        for (AnimcompDecompressor* d : {&plain, &cached}) {
            ASSERT_EQ(animcomp_seek(d, t, looping, rounding), ANIMCOMP_STATUS_OK);
        }
        ASSERT_EQ(animcomp_sample_pose(&plain, a.data(), a.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&cached, b.data(), b.size(), 10), ANIMCOMP_STATUS_OK);
        EXPECT_EQ(0, std::memcmp(a.data(), want.data(), a.size() * sizeof(float))) << "entry " << e;
        EXPECT_EQ(0, std::memcmp(b.data(), want.data(), b.size() * sizeof(float))) << "cached, entry " << e;
        ASSERT_EQ(animcomp_sample_joints(&plain, every_third.data(), nullptr, every_third.size(),
                                         ANIMCOMP_CHANNEL_ALL, s.data(), s.size(), 10),
                  ANIMCOMP_STATUS_OK);
        for (size_t k = 0; k < every_third.size(); ++k) {
            EXPECT_EQ(0, std::memcmp(&s[k * 10], &want[every_third[k] * 10], 10 * sizeof(float)))
                << "joint " << every_third[k] << ", entry " << e;
        }
    }
    EXPECT_EQ(at, poses.size());
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
