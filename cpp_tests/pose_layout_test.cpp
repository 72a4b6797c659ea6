// Poses in the engine's layout through animcomp.h: one test per preset against a struct that
// mirrors the engine's type (Unreal Engine 5 and 4 FTransform, Unity-style NativeArrays, ozz
// SoaTransform), decoding a generated clip and comparing every field with the ten-float decode
// (bit for bit; doubles the exact widening), and the padding the layouts do not own untouched.
#include <cstdint>
#include <cstring>
#include <vector>

#include "animcomp.hpp"
#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

// Unreal Engine 5: TTransform<double> with ENABLE_VECTORIZED_TRANSFORM holds Rotation,
// Translation and Scale3D as TPersistentVectorRegisterType<double> (VectorRegister4Double: four
// doubles, x y z w), in that order (Math/TransformVectorized.h).
struct alignas(16) VectorRegister4Double {
    double x, y, z, w;
};
struct alignas(16) Ue5Transform {
    VectorRegister4Double Rotation, Translation, Scale3D;
};
static_assert(sizeof(Ue5Transform) == 96, "UE5 FTransform is 96 bytes");
static_assert(offsetof(Ue5Transform, Rotation) == 0, "");
static_assert(offsetof(Ue5Transform, Translation) == 32, "");
static_assert(offsetof(Ue5Transform, Scale3D) == 64, "");

// Unreal Engine 4: FTransform holds three VectorRegister (__m128: four floats) (same header).
struct alignas(16) VectorRegister {
    float x, y, z, w;
};
struct alignas(16) Ue4Transform {
    VectorRegister Rotation, Translation, Scale3D;
};
static_assert(sizeof(Ue4Transform) == 48, "UE4 FTransform is 48 bytes");
static_assert(offsetof(Ue4Transform, Translation) == 16, "");
static_assert(offsetof(Ue4Transform, Scale3D) == 32, "");

// Unity.Mathematics: quaternion is a float4 `value` (x y z w), float3 three floats.
struct UnityQuaternion {
    float x, y, z, w;
};
struct UnityFloat3 {
    float x, y, z;
};
static_assert(sizeof(UnityQuaternion) == 16 && sizeof(UnityFloat3) == 12, "");

// ozz-animation: SoaTransform { SoaFloat3 translation; SoaQuaternion rotation; SoaFloat3 scale; }
// with SoaFloat3 { SimdFloat4 x, y, z; } and SoaQuaternion { SimdFloat4 x, y, z, w; }
// (ozz/base/maths/soa_transform.h, soa_float.h, soa_quaternion.h).
struct alignas(16) SimdFloat4 {
    float lane[4];
};
struct SoaFloat3 {
    SimdFloat4 x, y, z;
};
struct SoaQuaternion {
    SimdFloat4 x, y, z, w;
};
struct SoaTransform {
    SoaFloat3 translation;
    SoaQuaternion rotation;
    SoaFloat3 scale;
};
static_assert(sizeof(SoaTransform) == 160, "ozz SoaTransform is 160 bytes");
static_assert(offsetof(SoaTransform, rotation) == 48 && offsetof(SoaTransform, scale) == 112, "");

constexpr uint32_t kJoints = 23;  // not a multiple of four: ozz's last block is partial
constexpr uint32_t kSamples = 75;

struct Fixture {
    AlignedBuffer blob;
    AnimcompDecompressor ctx{};
    std::vector<float> ten;

    void open(uint32_t codec) {
        Clip clip(kJoints, kSamples);
        AnimcompCompressSettings s;
        ASSERT_EQ(animcomp_compress_settings_default(&s), ANIMCOMP_STATUS_OK);
        s.codec = codec;
        ANIMCOMP_COMPRESS_OR_FAIL(clip.c(), s, blob);
        ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);
    }

    void seek(float t) {
        ASSERT_EQ(animcomp_seek(&ctx, t, ANIMCOMP_LOOPING_CLAMP, ANIMCOMP_ROUNDING_NONE), ANIMCOMP_STATUS_OK);
        ten.assign(kJoints * 10, 0.0f);
        ASSERT_EQ(animcomp_sample_pose(&ctx, ten.data(), ten.size(), 10), ANIMCOMP_STATUS_OK);
    }
};

AnimcompPoseLayout preset(uint32_t p) {
    AnimcompPoseLayout l;
    std::memset(&l, 0xff, sizeof l);
    EXPECT_EQ(animcomp_pose_layout_preset(p, &l), ANIMCOMP_STATUS_OK);
    return l;
}

AnimcompPoseBuffers one(void* p, size_t n) {
    AnimcompPoseBuffers b;
    std::memset(&b, 0, sizeof b);
    b.data0 = p;
    b.size0 = n;
    return b;
}

const uint32_t kCodecs[] = {ANIMCOMP_CODEC_VBR, ANIMCOMP_CODEC_FIXED, ANIMCOMP_CODEC_KEYS};
const float kTimes[] = {0.0f, 0.41f, 1.3f, 2.5f};

}  // namespace

TEST(PoseLayout, Unreal5Transform) {
    for (uint32_t codec : kCodecs) {
        Fixture f;
        f.open(codec);
        AnimcompPoseLayout l = preset(ANIMCOMP_POSE_PRESET_UNREAL5_TRANSFORM);
        for (float t : kTimes) {
            f.seek(t);
            std::vector<Ue5Transform> pose(kJoints);
            for (auto& x : pose) x.Translation.w = x.Scale3D.w = 7.0;  // not the library's
            AnimcompPoseBuffers b = one(pose.data(), pose.size() * sizeof(Ue5Transform));
            ASSERT_EQ(animcomp_sample_pose_layout(&f.ctx, &l, &b), ANIMCOMP_STATUS_OK);
            for (uint32_t j = 0; j < kJoints; ++j) {
                const float* r = &f.ten[j * 10];
                const Ue5Transform& x = pose[j];
                EXPECT_EQ(x.Rotation.x, double(r[0]));
                EXPECT_EQ(x.Rotation.y, double(r[1]));
                EXPECT_EQ(x.Rotation.z, double(r[2]));
                EXPECT_EQ(x.Rotation.w, double(r[3]));
                EXPECT_EQ(x.Translation.x, double(r[4]));
                EXPECT_EQ(x.Translation.y, double(r[5]));
                EXPECT_EQ(x.Translation.z, double(r[6]));
                EXPECT_EQ(x.Scale3D.x, double(r[7]));
                EXPECT_EQ(x.Scale3D.y, double(r[8]));
                EXPECT_EQ(x.Scale3D.z, double(r[9]));
                EXPECT_EQ(x.Translation.w, 7.0);
                EXPECT_EQ(x.Scale3D.w, 7.0);
            }
        }
    }
}

TEST(PoseLayout, Unreal4Transform) {
    for (uint32_t codec : kCodecs) {
        Fixture f;
        f.open(codec);
        AnimcompPoseLayout l = preset(ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM);
        for (float t : kTimes) {
            f.seek(t);
            std::vector<Ue4Transform> pose(kJoints);
            for (auto& x : pose) x.Translation.w = x.Scale3D.w = 7.0f;
            AnimcompPoseBuffers b = one(pose.data(), pose.size() * sizeof(Ue4Transform));
            ASSERT_EQ(animcomp_sample_pose_layout(&f.ctx, &l, &b), ANIMCOMP_STATUS_OK);
            for (uint32_t j = 0; j < kJoints; ++j) {
                const Ue4Transform& x = pose[j];
                EXPECT_EQ(std::memcmp(&x.Rotation, &f.ten[j * 10], 16), 0);
                EXPECT_EQ(std::memcmp(&x.Translation, &f.ten[j * 10 + 4], 12), 0);
                EXPECT_EQ(std::memcmp(&x.Scale3D, &f.ten[j * 10 + 7], 12), 0);
                EXPECT_EQ(x.Translation.w, 7.0f);
                EXPECT_EQ(x.Scale3D.w, 7.0f);
            }
            // A selection: translations of every other joint into slots, the rest untouched.
            std::vector<uint32_t> joints, slots;
            for (uint32_t j = 0; j < kJoints; j += 2) {
                joints.push_back(j);
                slots.push_back(kJoints - 1 - j);
            }
            std::vector<Ue4Transform> sel(kJoints);
            std::memset(sel.data(), 0x5a, sel.size() * sizeof(Ue4Transform));
            std::vector<Ue4Transform> before = sel;
            b = one(sel.data(), sel.size() * sizeof(Ue4Transform));
            ASSERT_EQ(animcomp_sample_joints_layout(&f.ctx, joints.data(), slots.data(), joints.size(),
                                                    ANIMCOMP_CHANNEL_TRANSLATION, &l, &b),
                      ANIMCOMP_STATUS_OK);
            for (size_t i = 0; i < joints.size(); ++i) {
                std::memcpy(&before[slots[i]].Translation, &f.ten[joints[i] * 10 + 4], 12);
            }
            EXPECT_EQ(std::memcmp(sel.data(), before.data(), sel.size() * sizeof(Ue4Transform)), 0);
        }
    }
}

TEST(PoseLayout, UnitySeparateArrays) {
    for (uint32_t codec : kCodecs) {
        Fixture f;
        f.open(codec);
        AnimcompPoseLayout l = preset(ANIMCOMP_POSE_PRESET_UNITY_SEPARATE);
        size_t sizes[3] = {0, 0, 0};
        ASSERT_EQ(animcomp_pose_layout_size(&l, kJoints, sizes), ANIMCOMP_STATUS_OK);
        EXPECT_EQ(sizes[0], kJoints * sizeof(UnityQuaternion));
        EXPECT_EQ(sizes[1], kJoints * sizeof(UnityFloat3));
        EXPECT_EQ(sizes[2], kJoints * sizeof(UnityFloat3));
        for (float t : kTimes) {
            f.seek(t);
            std::vector<UnityQuaternion> rot(kJoints);
            std::vector<UnityFloat3> pos(kJoints), scl(kJoints);
            AnimcompPoseBuffers b;
            b.data0 = rot.data();
            b.data1 = pos.data();
            b.data2 = scl.data();
            b.size0 = sizes[0];
            b.size1 = sizes[1];
            b.size2 = sizes[2];
            ASSERT_EQ(animcomp_sample_pose_layout(&f.ctx, &l, &b), ANIMCOMP_STATUS_OK);
            for (uint32_t j = 0; j < kJoints; ++j) {
                EXPECT_EQ(std::memcmp(&rot[j], &f.ten[j * 10], 16), 0);
                EXPECT_EQ(std::memcmp(&pos[j], &f.ten[j * 10 + 4], 12), 0);
                EXPECT_EQ(std::memcmp(&scl[j], &f.ten[j * 10 + 7], 12), 0);
            }
        }
    }
}

TEST(PoseLayout, OzzSoaTransform) {
    for (uint32_t codec : kCodecs) {
        Fixture f;
        f.open(codec);
        AnimcompPoseLayout l = preset(ANIMCOMP_POSE_PRESET_OZZ_SOA_TRANSFORM);
        for (float t : kTimes) {
            f.seek(t);
            std::vector<SoaTransform> pose((kJoints + 3) / 4);
            AnimcompPoseBuffers b = one(pose.data(), pose.size() * sizeof(SoaTransform));
            ASSERT_EQ(animcomp_sample_pose_layout(&f.ctx, &l, &b), ANIMCOMP_STATUS_OK);
            for (uint32_t j = 0; j < pose.size() * 4; ++j) {
                const SoaTransform& x = pose[j / 4];
                const int k = int(j % 4);
                static const float identity[10] = {0, 0, 0, 1, 0, 0, 0, 1, 1, 1};
                const float* r = j < kJoints ? &f.ten[j * 10] : identity;
                EXPECT_EQ(x.rotation.x.lane[k], r[0]);
                EXPECT_EQ(x.rotation.y.lane[k], r[1]);
                EXPECT_EQ(x.rotation.z.lane[k], r[2]);
                EXPECT_EQ(x.rotation.w.lane[k], r[3]);
                EXPECT_EQ(x.translation.x.lane[k], r[4]);
                EXPECT_EQ(x.translation.y.lane[k], r[5]);
                EXPECT_EQ(x.translation.z.lane[k], r[6]);
                EXPECT_EQ(x.scale.x.lane[k], r[7]);
                EXPECT_EQ(x.scale.y.lane[k], r[8]);
                EXPECT_EQ(x.scale.z.lane[k], r[9]);
            }
        }
    }
}

TEST(PoseLayout, BadDescriptorsAndBuffers) {
    Fixture f;
    f.open(ANIMCOMP_CODEC_VBR);
    AnimcompPoseLayout l = preset(ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM);
    std::vector<Ue4Transform> pose(kJoints);
    AnimcompPoseBuffers b = one(pose.data(), pose.size() * sizeof(Ue4Transform) - 8);
    EXPECT_EQ(animcomp_sample_pose_layout(&f.ctx, &l, &b), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    b = one(reinterpret_cast<char*>(pose.data()) + 2, 48 * (kJoints - 1));
    EXPECT_EQ(animcomp_sample_pose_layout(&f.ctx, &l, &b), ANIMCOMP_STATUS_MISALIGNED);
    b = one(pose.data(), pose.size() * sizeof(Ue4Transform));
    AnimcompPoseLayout bad = l;
    bad.kind = 9;
    EXPECT_EQ(animcomp_sample_pose_layout(&f.ctx, &bad, &b), ANIMCOMP_STATUS_INVALID_ENUM);
    bad = l;
    bad.translation_offset = 8;  // overlaps the rotation
    EXPECT_EQ(animcomp_sample_pose_layout(&f.ctx, &bad, &b), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(animcomp_pose_layout_preset(99, &bad), ANIMCOMP_STATUS_INVALID_ENUM);
}

TEST(PoseLayout, CppWrapperWritesEngineRecordsAndArrays) {
    Fixture f;
    f.open(ANIMCOMP_CODEC_VBR);
    f.seek(0.7f);
    auto made = animcomp::Decompressor::create(f.blob.get(), f.blob.size);
    ASSERT_TRUE(made.ok());
    animcomp::Decompressor& d = *made;
    ASSERT_TRUE(d.seek(0.7f).ok());
    std::vector<Ue5Transform> ue5(kJoints);
    ASSERT_TRUE(d.sample_pose(animcomp::PoseLayout::unreal5(), ue5.data(), ue5.size()).ok());
    std::vector<UnityQuaternion> rot(kJoints);
    std::vector<UnityFloat3> pos(kJoints), scl(kJoints);
    ASSERT_TRUE(d.sample_pose(animcomp::PoseLayout::unity(), rot.data(), pos.data(), scl.data(), kJoints).ok());
    for (uint32_t j = 0; j < kJoints; ++j) {
        EXPECT_EQ(ue5[j].Translation.y, double(f.ten[j * 10 + 5]));
        EXPECT_EQ(rot[j].w, f.ten[j * 10 + 3]);
        EXPECT_EQ(scl[j].z, f.ten[j * 10 + 9]);
    }
    // Too small: the status, nothing thrown.
    EXPECT_EQ(d.sample_pose(animcomp::PoseLayout::unreal4(), ue5.data(), 1).code(), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(d.sample_pose(animcomp::PoseLayout::preset(77), ue5.data(), ue5.size()).code(),
              ANIMCOMP_STATUS_INVALID_ARGUMENT);

    // Layouts checked once: the same bytes; buffers still checked; a refused layout stays refused.
    const animcomp::CheckedPoseLayout ue5_checked(animcomp::PoseLayout::unreal5());
    const animcomp::CheckedPoseLayout unity_checked(animcomp::PoseLayout::unity());
    ASSERT_TRUE(ue5_checked.status().ok());
    ASSERT_TRUE(unity_checked.status().ok());
    std::vector<Ue5Transform> ue5b(kJoints);
    std::memset(ue5b.data(), 0, ue5b.size() * sizeof(Ue5Transform));
    std::memset(ue5.data(), 0, ue5.size() * sizeof(Ue5Transform));
    ASSERT_TRUE(d.sample_pose(animcomp::PoseLayout::unreal5(), ue5.data(), ue5.size()).ok());
    ASSERT_TRUE(d.sample_pose(ue5_checked, ue5b.data(), ue5b.size()).ok());
    EXPECT_EQ(std::memcmp(ue5.data(), ue5b.data(), ue5.size() * sizeof(Ue5Transform)), 0);
    std::vector<UnityQuaternion> rotb(kJoints);
    std::vector<UnityFloat3> posb(kJoints), sclb(kJoints);
    ASSERT_TRUE(d.sample_pose(unity_checked, rotb.data(), posb.data(), sclb.data(), kJoints).ok());
    for (uint32_t j = 0; j < kJoints; ++j) {
        EXPECT_EQ(rotb[j].w, rot[j].w);
        EXPECT_EQ(posb[j].x, pos[j].x);
        EXPECT_EQ(sclb[j].z, scl[j].z);
    }
    EXPECT_EQ(d.sample_pose(ue5_checked, ue5b.data(), 1).code(), ANIMCOMP_STATUS_BUFFER_TOO_SMALL);
    const animcomp::CheckedPoseLayout refused(animcomp::PoseLayout::preset(77));
    EXPECT_EQ(refused.status().code(), ANIMCOMP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(d.sample_pose(refused, ue5b.data(), ue5b.size()).code(), ANIMCOMP_STATUS_INVALID_ARGUMENT);
}
