// Every codec through the C API, judged by ACL's virtual-vertex error in object space
// (docs/metric.md) computed here from the sampled poses: codecs that promise a precision must keep
// every joint's error within it. Codecs not in this build (ANIMCOMP_STATUS_UNSUPPORTED) are skipped.
#include <algorithm>
#include <cstdio>

#include "test_clip.hpp"

using namespace animcomp_test;

namespace {

struct V3 {
    double x, y, z;
};
struct Xf {
    double q[4];  // x y z w
    V3 t, s;
};

V3 rotate(const double* q, V3 v) {
    // v + 2w (u x v) + 2 u x (u x v)
    V3 u{q[0], q[1], q[2]};
    V3 c{u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
    V3 cc{u.y * c.z - u.z * c.y, u.z * c.x - u.x * c.z, u.x * c.y - u.y * c.x};
    return {v.x + 2 * (q[3] * c.x + cc.x), v.y + 2 * (q[3] * c.y + cc.y), v.z + 2 * (q[3] * c.z + cc.z)};
}

Xf from_floats(const float* f) {
    Xf x;
    double n = std::sqrt(double(f[0]) * f[0] + double(f[1]) * f[1] + double(f[2]) * f[2] + double(f[3]) * f[3]);
    for (int k = 0; k < 4; ++k) x.q[k] = f[k] / n;
    x.t = {f[4], f[5], f[6]};
    x.s = {f[7], f[8], f[9]};
    return x;
}

/// parent * child (docs/metric.md): rotations compose, translation = qp (sp o tc) + tp, scales multiply.
Xf mul(const Xf& p, const Xf& c) {
    Xf r;
    const double *a = p.q, *b = c.q;
    r.q[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r.q[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r.q[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r.q[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    V3 st{p.s.x * c.t.x, p.s.y * c.t.y, p.s.z * c.t.z};
    V3 rt = rotate(p.q, st);
    r.t = {rt.x + p.t.x, rt.y + p.t.y, rt.z + p.t.z};
    r.s = {p.s.x * c.s.x, p.s.y * c.s.y, p.s.z * c.s.z};
    return r;
}

V3 apply(const Xf& x, V3 v) {
    V3 r = rotate(x.q, {x.s.x * v.x, x.s.y * v.y, x.s.z * v.z});
    return {r.x + x.t.x, r.y + x.t.y, r.z + x.t.z};
}

/// Object-space transforms of a local pose (parents before children).
std::vector<Xf> object_space(const Clip& clip, const float* local, size_t stride) {
    std::vector<Xf> o(clip.joints);
    for (uint32_t j = 0; j < clip.joints; ++j) {
        Xf l = from_floats(local + j * stride);
        o[j] = clip.parents[j] < 0 ? l : mul(o[clip.parents[j]], l);
    }
    return o;
}

/// Largest virtual-vertex distance over the joints between the clip's sample `i` and a lossy local
/// pose (10 floats per joint), with vertices at `shell` along x, y and z.
double max_vertex_error(const Clip& clip, uint32_t i, const float* lossy_pose, double shell, uint32_t* worst_joint) {
    const V3 verts[3] = {{shell, 0, 0}, {0, shell, 0}, {0, 0, shell}};
    std::vector<Xf> raw = object_space(clip, clip.at(i, 0), 10);
    std::vector<Xf> lossy = object_space(clip, lossy_pose, 10);
    double worst = 0;
    for (uint32_t j = 0; j < clip.joints; ++j)
        for (const V3& v : verts) {
            V3 a = apply(raw[j], v), b = apply(lossy[j], v);
            double e = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
            if (e > worst) {
                worst = e;
                *worst_joint = j;
            }
        }
    return worst;
}

TEST(Metric, DetectsAKnownLocalRotationError) {
    const Clip clip(6, 4, /*scale=*/false);
    std::vector<float> pose(clip.at(2, 0), clip.at(2, 0) + 6 * 10);
    // Joint 5 (a leaf: parents are j - 1) gets its local rotation times a 0.01 rad turn about its
    // local z: its vertices at (3,0,0) and (0,3,0) move by 2 * 3 * sin(0.005), (0,0,3) does not.
    float* q = &pose[5 * 10];
    const float h = 0.005f, sz = std::sin(h), cz = std::cos(h);
    float r[4] = {q[0] * cz + q[1] * sz, -q[0] * sz + q[1] * cz, q[2] * cz + q[3] * sz, q[3] * cz - q[2] * sz};
    std::copy(r, r + 4, q);
    uint32_t joint = 99;
    double e = max_vertex_error(clip, 2, pose.data(), 3.0, &joint);
    EXPECT_NEAR(e, 6.0 * std::sin(0.005), 2e-4);
    EXPECT_EQ(joint, 5u);
    std::vector<float> same(clip.at(2, 0), clip.at(2, 0) + 6 * 10);
    EXPECT_LT(max_vertex_error(clip, 2, same.data(), 3.0, &joint), 1e-9);
}

struct CodecCase {
    const char* name;
    uint32_t codec;
    uint32_t rotation, vector;  // fixed codec formats
};

void PrintTo(const CodecCase& c, std::ostream* os) { *os << c.name; }

class Codecs : public ::testing::TestWithParam<CodecCase> {};

TEST_P(Codecs, VirtualVertexErrorWithinPrecision) {
    const CodecCase cc = GetParam();
    const Clip clip(30, 120);
    const float precision = 0.01f, shell = 3.0f;
    AnimcompCompressSettings s = fixed_settings(cc.rotation);
    s.codec = cc.codec;
    s.translation_format = s.scale_format = cc.vector;
    s.precision = precision;
    s.shell_distance = shell;
    AlignedBuffer blob;
    AnimcompStatus st = compress(clip.c(), s, blob);
    if (st == ANIMCOMP_STATUS_UNSUPPORTED) GTEST_SKIP() << cc.name << " is not in this build";
    ASSERT_EQ(st, ANIMCOMP_STATUS_OK) << animcomp_status_message(st);

    AnimcompBlobInfo info;
    ASSERT_EQ(animcomp_blob_info(blob.get(), blob.size, &info), ANIMCOMP_STATUS_OK);
    const bool has_scale = (info.flags & ANIMCOMP_BLOB_FLAG_HAS_SCALE) != 0;
    ASSERT_TRUE(has_scale) << "the test clip has scale";
    AnimcompDecompressor ctx;
    ASSERT_EQ(animcomp_decompressor_init(&ctx, blob.get(), blob.size, nullptr), ANIMCOMP_STATUS_OK);

    std::vector<float> pose(clip.joints * 10);
    double worst = 0;
    uint32_t worst_joint = 0, worst_sample = 0;
    for (uint32_t i = 0; i < clip.samples; ++i) {
        ASSERT_EQ(animcomp_seek_sample(&ctx, i), ANIMCOMP_STATUS_OK);
        ASSERT_EQ(animcomp_sample_pose(&ctx, pose.data(), pose.size(), 10), ANIMCOMP_STATUS_OK);
        uint32_t j = 0;
        double e = max_vertex_error(clip, i, pose.data(), shell, &j);
        if (e > worst) worst = e, worst_joint = j, worst_sample = i;
    }
    std::printf("%-24s blob %6zu bytes (raw %llu)  max vertex error %.5f (joint %u, sample %u)\n", cc.name, blob.size,
                static_cast<unsigned long long>(info.raw_size), worst, worst_joint, worst_sample);
    // Small allowance for f32 rounding between the library's metric and this double-precision one.
    EXPECT_LE(worst, precision * 1.02 + 1e-5) << "joint " << worst_joint << " sample " << worst_sample;
}

const CodecCase kCodecs[] = {
    // Lossless sample formats: only constant / default sub-track detection, judged within precision.
    {"fixed_float128_float96", ANIMCOMP_CODEC_FIXED, ANIMCOMP_ROTATION_FORMAT_FLOAT128, ANIMCOMP_VECTOR_FORMAT_FLOAT96},
    {"vbr", ANIMCOMP_CODEC_VBR, ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48, ANIMCOMP_VECTOR_FORMAT_RANGE_REDUCED48},
    {"keys", ANIMCOMP_CODEC_KEYS, ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48, ANIMCOMP_VECTOR_FORMAT_RANGE_REDUCED48},
    {"auto", ANIMCOMP_CODEC_AUTO, ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE48, ANIMCOMP_VECTOR_FORMAT_RANGE_REDUCED48},
};

INSTANTIATE_TEST_SUITE_P(AllCodecs, Codecs, ::testing::ValuesIn(kCodecs),
                         [](const ::testing::TestParamInfo<CodecCase>& i) { return std::string(i.param.name); });

}  // namespace
