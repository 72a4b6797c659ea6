// Runtime-only test, step 1 (full library): compresses one clip with every codec, level, fixed
// format pair, default mode and loop setting the compressor offers, and writes each blob with the
// poses the full library samples from it (runtime_only_blobs.hpp). Step 2,
// runtime_only_check.cpp, samples the same blobs with the library built without the compressor.
//
//   animcomp_runtime_only_write <dir>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "animcomp.h"
#include "runtime_only_blobs.hpp"
#include "test_clip.hpp"

namespace {

struct Case {
    std::string name;
    AnimcompCompressSettings settings;
    bool scale;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    auto base = [] {
        AnimcompCompressSettings s;
        animcomp_compress_settings_default(&s);
        return s;
    };
    for (uint32_t r = ANIMCOMP_ROTATION_FORMAT_FLOAT128; r <= ANIMCOMP_ROTATION_FORMAT_SMALLEST_THREE32; ++r) {
        for (uint32_t v = ANIMCOMP_VECTOR_FORMAT_FLOAT96; v <= ANIMCOMP_VECTOR_FORMAT_RANGE_REDUCED32; ++v) {
            AnimcompCompressSettings s = base();
            s.codec = ANIMCOMP_CODEC_FIXED;
            s.rotation_format = r;
            s.translation_format = v;
            s.scale_format = (v + 1) % 3;
            out.push_back({"fixed_r" + std::to_string(r) + "_v" + std::to_string(v), s, true});
        }
    }
    const struct { const char* name; uint32_t codec; } codecs[] = {
        {"auto", ANIMCOMP_CODEC_AUTO}, {"fixed", ANIMCOMP_CODEC_FIXED},
        {"vbr", ANIMCOMP_CODEC_VBR}, {"keys", ANIMCOMP_CODEC_KEYS}};
    for (const auto& c : codecs) {
        for (uint32_t level = ANIMCOMP_LEVEL_AUTOMATIC; level <= ANIMCOMP_LEVEL_BEST; ++level) {
            for (uint32_t mode = 0; mode < 4; ++mode) {
                AnimcompCompressSettings s = base();
                s.codec = c.codec;
                s.level = level;
                s.default_mode = mode & 1 ? ANIMCOMP_DEFAULT_MODE_BIND_POSE : ANIMCOMP_DEFAULT_MODE_IDENTITY;
                s.optimize_loops = mode & 2 ? 1 : 0;
                std::string name = std::string(c.name) + "_l" + std::to_string(level) + "_m" + std::to_string(mode);
                out.push_back({name, s, true});
                out.push_back({name + "_noscale", s, false});
            }
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return std::fprintf(stderr, "usage: %s <dir>\n", argv[0]), 2;
    const std::string dir = argv[1];
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    std::string manifest;
    int failures = 0;
    for (const Case& c : cases()) {
        animcomp_test::Clip clip(14, 45, c.scale);
        // Make the loop close (last sample = first) so optimize_loops has something to trim.
        for (uint32_t j = 0; j < clip.joints; ++j)
            for (int k = 0; k < 10; ++k) clip.at(clip.samples - 1, j)[k] = clip.at(0, j)[k];
        std::vector<float> bind(clip.at(0, 0), clip.at(0, 0) + clip.joints * 10);
        AnimcompRawClip raw = clip.c();
        raw.bind_pose = bind.data();
        size_t size = 0;
        if (animcomp_compress(&raw, &c.settings, nullptr, 0, &size) != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) {
            std::fprintf(stderr, "%s: size query failed\n", c.name.c_str());
            ++failures;
            continue;
        }
        animcomp_test::AlignedBuffer blob(size);
        AnimcompStatus s = animcomp_compress(&raw, &c.settings, blob.get(), size, &size);
        if (s != ANIMCOMP_STATUS_OK) {
            std::fprintf(stderr, "%s: %s\n", c.name.c_str(), animcomp_status_message(s));
            ++failures;
            continue;
        }
        AnimcompDecompressOptions options;
        animcomp_decompress_options_default(&options);
        options.bind_pose = bind.data();
        options.bind_pose_len = bind.size();
        AnimcompDecompressor ctx;
        std::vector<float> poses;
        s = animcomp_decompressor_init(&ctx, blob.get(), size, &options);
        for (float t : runtime_only::kTimes) {
            std::vector<float> pose(clip.joints * 10);
            if (s == ANIMCOMP_STATUS_OK) s = animcomp_seek(&ctx, t, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE);
            if (s == ANIMCOMP_STATUS_OK) s = animcomp_sample_pose(&ctx, pose.data(), pose.size(), 0);
            poses.insert(poses.end(), pose.begin(), pose.end());
        }
        AnimcompBlobInfo info;
        if (s == ANIMCOMP_STATUS_OK) s = animcomp_blob_info(blob.get(), size, &info);
        bool needs_bind = s == ANIMCOMP_STATUS_OK && (info.flags & ANIMCOMP_BLOB_FLAG_DEFAULTS_ARE_BIND_POSE);
        const std::string stem = dir + "/" + c.name;
        if (s != ANIMCOMP_STATUS_OK || !runtime_only::write_file(stem + ".blob", blob.get(), size) ||
            !runtime_only::write_file(stem + ".poses", poses.data(), poses.size() * sizeof(float)) ||
            (needs_bind && !runtime_only::write_file(stem + ".bind", bind.data(), bind.size() * sizeof(float)))) {
            std::fprintf(stderr, "%s: sampling or writing failed (%s)\n", c.name.c_str(), animcomp_status_message(s));
            ++failures;
            continue;
        }
        manifest += c.name + "\n";
    }
    if (!runtime_only::write_file(dir + "/manifest.txt", manifest.data(), manifest.size())) ++failures;
    std::printf("wrote %zu blobs to %s, %d failures\n", cases().size() - failures, dir.c_str(), failures);
    return failures == 0 ? 0 : 1;
}
