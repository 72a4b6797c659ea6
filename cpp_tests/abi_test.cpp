// ABI facts of the public header: struct sizes and alignments, versions, status messages.
#include <cstring>
#include <string>
#include <type_traits>

#include "test_clip.hpp"

// The documented ABI (docs/integrating.md). A change here is an ABI break.
static_assert(sizeof(AnimcompCompressSettings) == 64, "AnimcompCompressSettings size");
static_assert(alignof(AnimcompCompressSettings) == 4, "AnimcompCompressSettings align");
static_assert(sizeof(AnimcompBlobInfo) == 64, "AnimcompBlobInfo size");
static_assert(alignof(AnimcompBlobInfo) == 8, "AnimcompBlobInfo align");
static_assert(sizeof(AnimcompDecompressor) == 128, "AnimcompDecompressor size");
static_assert(alignof(AnimcompDecompressor) == 16, "AnimcompDecompressor align");
static_assert(sizeof(void*) != 8 || sizeof(AnimcompRawClip) == 128, "AnimcompRawClip size");
static_assert(alignof(AnimcompRawClip) == alignof(void*), "AnimcompRawClip align");
static_assert(sizeof(void*) != 8 || sizeof(AnimcompDecompressOptions) == 32, "AnimcompDecompressOptions size");
static_assert(sizeof(AnimcompStatus) == 4, "AnimcompStatus is 32-bit");
static_assert(std::is_trivially_copyable<AnimcompDecompressor>::value, "decompressor is memcpy-able");
static_assert(std::is_standard_layout<AnimcompRawClip>::value, "C layout");
static_assert(ANIMCOMP_STATUS_OK == 0, "OK is zero");
static_assert(ANIMCOMP_FLOATS_PER_JOINT == 10, "10 floats per joint");
static_assert(ANIMCOMP_ALIGNMENT == 16, "16-byte alignment");

TEST(Abi, VersionsMatchTheHeader) {
    uint32_t major = 99, minor = 99, patch = 99;
    ASSERT_EQ(animcomp_version(&major, &minor, &patch), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(major, uint32_t(ANIMCOMP_VERSION_MAJOR));
    EXPECT_EQ(minor, uint32_t(ANIMCOMP_VERSION_MINOR));
    EXPECT_EQ(patch, uint32_t(ANIMCOMP_VERSION_PATCH));
    EXPECT_STREQ(animcomp_version_string(), ANIMCOMP_VERSION_STRING);
    EXPECT_EQ(std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch),
              std::string(ANIMCOMP_VERSION_STRING));
    EXPECT_EQ(animcomp_blob_format_version(), uint32_t(ANIMCOMP_BLOB_FORMAT_VERSION));
    EXPECT_EQ(animcomp_version(nullptr, &minor, &patch), ANIMCOMP_STATUS_NULL_POINTER);
}

TEST(Abi, EveryStatusHasAMessage) {
    std::string unknown = animcomp_status_message(-1);
    EXPECT_EQ(unknown, "unknown status");
    for (int32_t s = ANIMCOMP_STATUS_OK; s <= ANIMCOMP_STATUS_TIER_MISMATCH; ++s) {
        const char* m = animcomp_status_message(s);
        ASSERT_NE(m, nullptr) << s;
        EXPECT_GT(std::strlen(m), 5u) << s;
        EXPECT_NE(std::string(m), unknown) << s;
        if (s > 0) {
            EXPECT_STRNE(m, animcomp_status_message(s - 1)) << s;
        }
    }
    EXPECT_STREQ(animcomp_status_message(ANIMCOMP_STATUS_TIER_MISMATCH + 1), "unknown status");
    EXPECT_STREQ(animcomp_status_message(INT32_MIN), "unknown status");
}

TEST(Abi, DefaultsAreDocumentedValues) {
    AnimcompCompressSettings s;
    std::memset(&s, 0xCD, sizeof s);
    ASSERT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(s.codec, uint32_t(ANIMCOMP_CODEC_VBR));
    EXPECT_EQ(s.level, uint32_t(ANIMCOMP_LEVEL_AUTOMATIC));
    EXPECT_EQ(s.rotation_format, uint32_t(ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48));
    EXPECT_EQ(s.default_mode, uint32_t(ANIMCOMP_DEFAULT_MODE_IDENTITY));
    EXPECT_EQ(s.optimize_loops, 0u);
    EXPECT_EQ(s.precision, 0.0f);
    for (uint32_t r : s.reserved) EXPECT_EQ(r, 0u);
    AnimcompDecompressOptions o;
    std::memset(&o, 0xCD, sizeof o);
    ASSERT_EQ(animcomp_decompress_options_default(&o), ANIMCOMP_STATUS_OK);
    EXPECT_EQ(o.verify_checksum, 1u);
    EXPECT_EQ(o.bind_pose, nullptr);
}
