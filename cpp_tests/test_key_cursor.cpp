// The keys codec's playback cursor through animcomp.h only: argument checking (null, short,
// misaligned and uninitialised state, other codecs) and poses identical (bit for bit) to
// animcomp_sample_pose at the same times, playing forward, backward, at random and looping.
#include <cstdio>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

AnimcompCompressSettings keys_settings() {
    AnimcompCompressSettings s;
    EXPECT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    s.codec = ANIMCOMP_CODEC_KEYS;
    return s;
}

/// A decompressor on a keys blob of the test clip, and a cursor state for it.
struct Fixture {
    Clip clip;
    AlignedBuffer blob;
    AnimcompDecompressor ctx;
    size_t state_bytes = 0;
    std::vector<uint32_t> state;  // 4-byte aligned

    Fixture(uint32_t joints, uint32_t samples) : clip(joints, samples) {
        AnimcompStatus st = compress(clip.c(), keys_settings(), blob);
        EXPECT_EQ(st, ANIMCOMP_STATUS_OK) << animcomp_status_message(st);
        EXPECT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
        EXPECT_EQ(animcomp_key_cursor_state_size(&ctx, &state_bytes), ANIMCOMP_STATUS_OK);
        EXPECT_GT(state_bytes, 0u);
        EXPECT_EQ(state_bytes % 4, 0u);
        state.assign(state_bytes / 4, 0xCDCDCDCDu);
        EXPECT_EQ(animcomp_key_cursor_init(&ctx, state.data(), state_bytes), ANIMCOMP_STATUS_OK);
    }

    /// Seeks decompressor and cursor to `time`; both poses and every single joint must match.
    void check(float time, uint32_t looping, uint32_t rounding) {
        std::vector<float> a(clip.joints * 10, 0.0f), b(clip.joints * 10, 1.0f);
        ASSERT_EQ(animcomp_seek(&ctx, time, looping, rounding), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&ctx, a.data(), a.size(), 10), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_key_cursor_seek(&ctx, state.data(), state_bytes, time, looping, rounding),
                  ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_key_cursor_sample_pose(&ctx, state.data(), state_bytes, b.data(), b.size(), 0),
                  ANIMCOMP_STATUS_OK);
        ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
            << "time " << time << " looping " << looping << " rounding " << rounding;
        for (uint32_t j = 0; j < clip.joints; ++j) {
            float o[10];
            ASSERT_EQ(animcomp_key_cursor_sample_joint(&ctx, state.data(), state_bytes, j, o), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(std::memcmp(o, &a[j * 10], sizeof o), 0) << "joint " << j << " time " << time;
        }
    }
};

TEST(KeyCursor, ArgumentsAreChecked) {
    Fixture f(6, 60);
    const size_t n = f.state_bytes;
    std::vector<uint32_t> st(n / 4 + 4, 0u);
    float out[60];
    size_t size = 7;
    EXPECT_EQ(animcomp_key_cursor_state_size(nullptr, &size), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(animcomp_key_cursor_state_size(&f.ctx, nullptr), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_key_cursor_init(nullptr, st.data(), n), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_key_cursor_init(&f.ctx, nullptr, n), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_key_cursor_seek(&f.ctx, nullptr, n, 0.0f, 0, 0), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_key_cursor_sample_pose(&f.ctx, nullptr, n, out, 60, 10), ANIMCOMP_STATUS_NULL_POINTER);
    EXPECT_EQ(animcomp_key_cursor_sample_joint(&f.ctx, f.state.data(), n, 0, nullptr), ANIMCOMP_STATUS_NULL_POINTER);

    // Never initialised.
    EXPECT_EQ(animcomp_key_cursor_seek(&f.ctx, st.data(), n, 0.0f, 0, 0), ANIMCOMP_STATUS_NOT_INITIALIZED);
    EXPECT_EQ(animcomp_key_cursor_sample_joint(&f.ctx, st.data(), n, 0, out), ANIMCOMP_STATUS_NOT_INITIALIZED);
    // Short and misaligned.
    EXPECT_EQ(animcomp_key_cursor_init(&f.ctx, st.data(), n - 4), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp_key_cursor_init(&f.ctx, reinterpret_cast<uint8_t*>(st.data()) + 2, n),
              ANIMCOMP_STATUS_MISALIGNED);

    ASSERT_EQ(animcomp_key_cursor_init(&f.ctx, st.data(), n), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(animcomp_key_cursor_seek(&f.ctx, st.data(), n - 4, 0.5f, 0, 0), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp_key_cursor_seek(&f.ctx, st.data(), n, 0.5f, 7, 0), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_key_cursor_seek(&f.ctx, st.data(), n, 0.5f, 0, 9), ANIMCOMP_STATUS_INVALID_ENUM);
    EXPECT_EQ(animcomp_key_cursor_seek(&f.ctx, st.data(), n, INFINITY, 0, 0), ANIMCOMP_STATUS_INVALID_TIME);
    EXPECT_EQ(animcomp_key_cursor_sample_pose(&f.ctx, st.data(), n, out, 59, 10), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(animcomp_key_cursor_sample_joint(&f.ctx, st.data(), n, 6, out), ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE);
    EXPECT_EQ(animcomp_key_cursor_sample_pose(&f.ctx, st.data(), n, out, 60, 10), ANIMCOMP_STATUS_OK);
}

TEST(KeyCursor, OtherCodecsAreUnsupported) {
    const Clip clip(5, 40);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(), blob);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    size_t size = 7;
    EXPECT_EQ(animcomp_key_cursor_state_size(&ctx, &size), ANIMCOMP_STATUS_UNSUPPORTED);
    EXPECT_EQ(size, 0u);
    std::vector<uint32_t> st(1024, 0u);
    EXPECT_EQ(animcomp_key_cursor_init(&ctx, st.data(), st.size() * 4), ANIMCOMP_STATUS_UNSUPPORTED);
}

TEST(KeyCursor, ForwardPlaybackMatchesSamplePose) {
    Fixture f(20, 400);
    for (uint32_t looping = 0; looping < 2; ++looping) {
        ASSERT_EQ(animcomp_key_cursor_init(&f.ctx, f.state.data(), f.state_bytes), ANIMCOMP_STATUS_OK);
        for (float s = 0.0f; s < 410.0f; s += 0.43f) {
            f.check(s / f.clip.rate, looping, ANIMCOMP_ROUNDING_NONE);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(KeyCursor, BackwardRandomAndLoopingMatchSamplePose) {
    Fixture f(12, 400);
    for (float s = 405.0f; s > -2.0f; s -= 0.77f) {
        f.check(s / f.clip.rate, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE);
        if (::testing::Test::HasFatalFailure()) return;
    }
    uint32_t x = 12345u;
    for (int i = 0; i < 300; ++i) {
        x = x * 1664525u + 1013904223u;
        float s = float(x >> 8) / float(1u << 24) * 1200.0f - 200.0f;
        f.check(s / f.clip.rate, x & 1u, (x >> 1) & 3u);
        if (::testing::Test::HasFatalFailure()) return;
    }
    for (float s = 380.0f; s < 1250.0f; s += 0.9f) {
        f.check(s / f.clip.rate, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

}  // namespace
