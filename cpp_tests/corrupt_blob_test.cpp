// Corrupted blobs (flipped byte in header and body, truncated, misaligned copy) are rejected by
// both animcomp_validate_blob and animcomp_decompressor_init, with the same status.
#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

class CorruptBlob : public ::testing::Test {
  protected:
    void SetUp() override {
        ANIMCOMP_COMPRESS_OR_FAIL(clip_.c(), fixed_settings(), blob_);
        ASSERT_EQ(animcomp_validate_blob(blob_.get(), blob_.size), ANIMCOMP_STATUS_OK);
    }

    /// Status of validate and init on `bytes` (asserting they agree and that a failed init
    /// leaves the context unusable).
    AnimcompStatus both(const uint8_t* bytes, size_t size) {
        AnimcompStatus v = animcomp_validate_blob(bytes, size);
        AnimcompDecompressor ctx;
        std::memset(&ctx, 0, sizeof ctx);
        AnimcompStatus d = animcomp_decompressor_init(&ctx, bytes, size, nullptr);
        EXPECT_EQ(v, d);
        if (d != ANIMCOMP_STATUS_OK) {
            float pose[10];
            EXPECT_EQ(animcomp_sample_joint(&ctx, 0, pose), ANIMCOMP_STATUS_NOT_INITIALIZED);
        }
        return v;
    }

    /// A copy of the blob with byte `at` xor-ed with `mask`.
    AnimcompStatus flipped(size_t at, uint8_t mask) {
        AlignedBuffer copy(blob_.size);
        std::memcpy(copy.get(), blob_.get(), blob_.size);
        copy.get()[at] ^= mask;
        return both(copy.get(), copy.size);
    }

    Clip clip_{12, 50};
    AlignedBuffer blob_;
};

TEST_F(CorruptBlob, FlippedHeaderBytes) {
    EXPECT_EQ(flipped(0, 0x01), ANIMCOMP_STATUS_BAD_MAGIC);
    EXPECT_EQ(flipped(4, 0x02), ANIMCOMP_STATUS_UNSUPPORTED_VERSION);
    EXPECT_EQ(flipped(6, 0x40), ANIMCOMP_STATUS_CORRUPT_BLOB);       // codec id
    EXPECT_EQ(flipped(12, 0x01), ANIMCOMP_STATUS_CHECKSUM_MISMATCH); // checksum itself
    EXPECT_EQ(flipped(20, 0x01), ANIMCOMP_STATUS_CHECKSUM_MISMATCH); // joint count
    EXPECT_EQ(flipped(28, 0x01), ANIMCOMP_STATUS_CHECKSUM_MISMATCH); // sample rate
    EXPECT_EQ(flipped(50, 0x01), ANIMCOMP_STATUS_CORRUPT_BLOB);      // reserved
}

TEST_F(CorruptBlob, FlippedBodyBytes) {
    for (size_t at = 64; at < blob_.size; at += 37) EXPECT_EQ(flipped(at, 0x10), ANIMCOMP_STATUS_CHECKSUM_MISMATCH) << at;
    EXPECT_EQ(flipped(blob_.size - 1, 0x80), ANIMCOMP_STATUS_CHECKSUM_MISMATCH);
}

TEST_F(CorruptBlob, Truncated) {
    for (size_t cut : {size_t(16), size_t(1), blob_.size - 64, blob_.size - 1})
        EXPECT_EQ(both(blob_.get(), blob_.size - cut), ANIMCOMP_STATUS_BAD_SIZE) << cut;
    EXPECT_EQ(both(blob_.get(), 0), ANIMCOMP_STATUS_BAD_SIZE);
}

TEST_F(CorruptBlob, MisalignedCopy) {
    AlignedBuffer room(blob_.size + 16);
    for (size_t off : {1, 2, 4, 8, 12}) {
        std::memcpy(room.get() + off, blob_.get(), blob_.size);
        EXPECT_EQ(both(room.get() + off, blob_.size), ANIMCOMP_STATUS_MISALIGNED) << off;
        AnimcompBlobInfo info;
        EXPECT_EQ(animcomp_blob_info(room.get() + off, blob_.size, &info), ANIMCOMP_STATUS_MISALIGNED);
    }
}

TEST_F(CorruptBlob, NotABlobAtAll) {
    AlignedBuffer junk(256);
    for (size_t k = 0; k < 256; ++k) junk.get()[k] = uint8_t(k * 31 + 7);
    EXPECT_EQ(both(junk.get(), 256), ANIMCOMP_STATUS_BAD_MAGIC);
}

}  // namespace
