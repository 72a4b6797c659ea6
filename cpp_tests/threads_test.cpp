// One blob sampled from 8 threads at once gives the same poses as one thread.
#include <thread>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

constexpr uint32_t kJoints = 30, kTimes = 200;

float time_of(uint32_t k) { return 0.013f * float(k); }

TEST(Threads, EightThreadsSampleIdenticalPoses) {
    const Clip clip(kJoints, 120);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(), blob);

    AnimcompDecompressor shared;
    ASSERT_EQ(animcomp_decompressor_init(&shared, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    std::vector<float> reference(size_t(kTimes) * kJoints * 10);
    {
        AnimcompDecompressor ctx = shared;  // contexts are plain data: copies are independent
        for (uint32_t k = 0; k < kTimes; ++k) {
            ASSERT_EQ(animcomp_seek(&ctx, time_of(k), ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
            ASSERT_EQ(animcomp_sample_pose(&ctx, &reference[size_t(k) * kJoints * 10], kJoints * 10, 10), ANIMCOMP_STATUS_OK);
        }
    }

    std::vector<std::vector<float>> results(8, std::vector<float>(reference.size(), -1.0f));
    std::vector<int> failures(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            AnimcompDecompressor ctx;
            // Half the threads init their own context, half copy the shared one.
            if (t % 2 == 0) {
                if (animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr) != ANIMCOMP_STATUS_OK) ++failures[t];
            } else {
                ctx = shared;
            }
            for (int rep = 0; rep < 5; ++rep)
                for (uint32_t k = 0; k < kTimes; ++k) {
                    uint32_t kk = (k * 7 + uint32_t(t) * 13) % kTimes;  // different order per thread
                    if (animcomp_seek(&ctx, time_of(kk), ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE) != ANIMCOMP_STATUS_OK ||
                        animcomp_sample_pose(&ctx, &results[t][size_t(kk) * kJoints * 10], kJoints * 10, 10) != ANIMCOMP_STATUS_OK)
                        ++failures[t];
                }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) {
        EXPECT_EQ(failures[t], 0) << "thread " << t;
        EXPECT_EQ(std::memcmp(results[t].data(), reference.data(), reference.size() * sizeof(float)), 0)
            << "thread " << t << " sampled different poses";
    }
}

TEST(Threads, ConstContextSharedForSampling) {
    const Clip clip(kJoints, 60);
    AlignedBuffer blob;
    ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), fixed_settings(), blob);
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    ASSERT_EQ(animcomp_seek(&ctx, 0.77f, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
    std::vector<float> reference(kJoints * 10);
    ASSERT_EQ(animcomp_sample_pose(&ctx, reference.data(), reference.size(), 10), ANIMCOMP_STATUS_OK);
    const AnimcompDecompressor& shared = ctx;
    std::vector<int> mismatches(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            std::vector<float> pose(kJoints * 10);
            for (int rep = 0; rep < 500; ++rep) {
                if (animcomp_sample_pose(&shared, pose.data(), pose.size(), 10) != ANIMCOMP_STATUS_OK ||
                    std::memcmp(pose.data(), reference.data(), pose.size() * sizeof(float)) != 0)
                    ++mismatches[t];
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
