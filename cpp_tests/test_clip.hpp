// Shared helpers of the C ABI tests: a procedural clip built in C++, aligned buffers, and a
// compress wrapper that follows the BUFFER_TOO_SMALL protocol. Uses animcomp.h only.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "animcomp.h"

namespace animcomp_test {

/// Bytes with a 16-byte aligned start, freed with std::free.
struct AlignedBuffer {
    struct Free {
        void operator()(void* p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t, Free> data;
    size_t size = 0;

    AlignedBuffer() = default;
    explicit AlignedBuffer(size_t n) : size(n) {
        size_t rounded = (n + 15) / 16 * 16 + 16;  // room for misaligned views
        data.reset(static_cast<uint8_t*>(std::aligned_alloc(16, rounded)));
        std::memset(data.get(), 0, rounded);
    }
    uint8_t* get() const { return data.get(); }
};

/// A clip generated in C++: `joints` joints in chains, sine motion on every rotation, root
/// translation motion, non-uniform scale on every third joint. Stored sample-major as
/// interleaved 10-float transforms (qx qy qz qw tx ty tz sx sy sz).
struct Clip {
    uint32_t joints = 0, samples = 0;
    float rate = 30.0f;
    std::vector<int32_t> parents;
    std::vector<float> xf;  // samples * joints * 10

    Clip(uint32_t joints_, uint32_t samples_, bool scale = true) : joints(joints_), samples(samples_) {
        parents.resize(joints);
        for (uint32_t j = 0; j < joints; ++j) parents[j] = j == 0 ? -1 : (j % 7 == 0 ? 0 : int32_t(j) - 1);
        xf.resize(size_t(samples) * joints * 10);
        for (uint32_t i = 0; i < samples; ++i) {
            float t = float(i) / rate;
            for (uint32_t j = 0; j < joints; ++j) {
                float* x = at(i, j);
                // Unit axis varying per joint, angle a sine of time.
                float ax = std::sin(1.3f * j + 0.1f), ay = std::cos(0.7f * j), az = 0.4f;
                float n = std::sqrt(ax * ax + ay * ay + az * az);
                float angle = 0.8f * std::sin(2.0f * t + 0.5f * j) + 0.2f * j;
                float s = std::sin(angle / 2) / n;
                x[0] = ax * s; x[1] = ay * s; x[2] = az * s; x[3] = std::cos(angle / 2);
                if (j == 0) {
                    x[4] = 30.0f * t; x[5] = 90.0f + 3.0f * std::sin(6.0f * t); x[6] = 5.0f * std::cos(t);
                } else {
                    x[4] = 0.0f; x[5] = 12.0f; x[6] = 0.5f * (j % 3);
                }
                bool scaled = scale && j % 3 == 2;
                x[7] = scaled ? 1.0f + 0.2f * std::sin(3.0f * t + j) : 1.0f;
                x[8] = scaled ? 1.0f - 0.1f * std::sin(2.0f * t) : 1.0f;
                x[9] = 1.0f;
            }
        }
    }

    float* at(uint32_t sample, uint32_t joint) { return &xf[(size_t(sample) * joints + joint) * 10]; }
    const float* at(uint32_t sample, uint32_t joint) const { return &xf[(size_t(sample) * joints + joint) * 10]; }

    /// The C description pointing into this object's arrays.
    AnimcompRawClip c() const {
        AnimcompRawClip c;
        std::memset(&c, 0, sizeof c);
        c.num_joints = joints;
        c.num_samples = samples;
        c.sample_rate = rate;
        c.layout = ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
        c.parents = parents.data();
        c.rotations = xf.data();
        c.translations = xf.data() + 4;
        c.scales = xf.data() + 7;
        c.rotation_stride = c.translation_stride = c.scale_stride = 10;
        return c;
    }
};

inline AnimcompCompressSettings fixed_settings(uint32_t rotation_format = ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48) {
    AnimcompCompressSettings s;
    EXPECT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
    s.codec = ANIMCOMP_CODEC_FIXED;
    s.rotation_format = rotation_format;
    return s;
}

/// Compresses with the query-then-compress protocol. Returns the status of the final call;
inline AnimcompStatus compress(const AnimcompRawClip& clip, const AnimcompCompressSettings& s, AlignedBuffer& out) {
    size_t size = 0;
    AnimcompStatus st = animcomp_compress(&clip, &s, nullptr, 0, &size);
    if (st != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) return st;
    out = AlignedBuffer(size);
    size_t written = 0;
    st = animcomp_compress(&clip, &s, out.get(), size, &written);
    EXPECT_EQ(written, size);
    return st;
}

/// Compresses or fails the current test.
#define ANIMCOMP_COMPRESS_OR_FAIL(clip, settings, out)                            \
    do {                                                                         \
        AnimcompStatus st_ = animcomp_test::compress((clip), (settings), (out)); \
        ASSERT_EQ(st_, ANIMCOMP_STATUS_OK) << animcomp_status_message(st_);      \
    } while (0)

/// Angle in radians between two unit quaternions (xyzw).
inline float quat_angle(const float* a, const float* b) {
    float d = std::fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    return 2.0f * std::acos(std::fmin(1.0f, d));
}

}  // namespace animcomp_test
