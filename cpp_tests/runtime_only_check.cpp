// Runtime-only test, step 2: linked with the library built without the compressor (cargo
// --no-default-features, ANIMCOMP_RUNTIME_ONLY). Validates and samples every blob step 1
// (runtime_only_write.cpp) wrote with the full library, and compares the poses bit for bit.
//
//   animcomp_runtime_only_check <dir>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "animcomp.h"
#include "runtime_only_blobs.hpp"

#if defined(ANIMCOMP_COMPRESS)
#error "the runtime-only targets define ANIMCOMP_RUNTIME_ONLY, so animcomp.h must hide the compressor"
#endif

int main(int argc, char** argv) {
    if (argc != 2) return std::fprintf(stderr, "usage: %s <dir>\n", argv[0]), 2;
    const std::string dir = argv[1];
    std::vector<unsigned char> manifest;
    if (!runtime_only::read_file(dir + "/manifest.txt", manifest))
        return std::fprintf(stderr, "no manifest in %s\n", dir.c_str()), 1;
    std::istringstream names(std::string(manifest.begin(), manifest.end()));
    std::string name;
    int checked = 0, failures = 0;
    while (std::getline(names, name)) {
        std::vector<unsigned char> bytes, expected, bind;
        const std::string stem = dir + "/" + name;
        if (!runtime_only::read_file(stem + ".blob", bytes) || !runtime_only::read_file(stem + ".poses", expected)) {
            std::fprintf(stderr, "%s: missing files\n", name.c_str());
            ++failures;
            continue;
        }
        bool has_bind = runtime_only::read_file(stem + ".bind", bind);
        // 16-byte aligned copy of the blob.
        std::vector<AnimcompDecompressor> storage(bytes.size() / sizeof(AnimcompDecompressor) + 1);
        std::memcpy(storage.data(), bytes.data(), bytes.size());
        AnimcompBlobInfo info;
        AnimcompStatus s = animcomp_blob_info(storage.data(), bytes.size(), &info);
        AnimcompDecompressOptions options;
        animcomp_decompress_options_default(&options);
        std::vector<float> bind_pose(bind.size() / sizeof(float));
        if (has_bind) {
            std::memcpy(bind_pose.data(), bind.data(), bind.size());
            options.bind_pose = bind_pose.data();
            options.bind_pose_len = bind_pose.size();
        }
        AnimcompDecompressor ctx;
        if (s == ANIMCOMP_STATUS_OK) s = animcomp_decompressor_init(&ctx, storage.data(), bytes.size(), &options);
        std::vector<float> poses;
        for (float t : runtime_only::kTimes) {
            std::vector<float> pose(s == ANIMCOMP_STATUS_OK ? info.num_joints * 10 : 0);
            if (s == ANIMCOMP_STATUS_OK) s = animcomp_seek(&ctx, t, ANIMCOMP_LOOPING_WRAP, ANIMCOMP_ROUNDING_NONE);
            if (s == ANIMCOMP_STATUS_OK) s = animcomp_sample_pose(&ctx, pose.data(), pose.size(), 0);
            poses.insert(poses.end(), pose.begin(), pose.end());
        }
        if (s != ANIMCOMP_STATUS_OK || poses.size() * sizeof(float) != expected.size() ||
            std::memcmp(poses.data(), expected.data(), expected.size()) != 0) {
            std::fprintf(stderr, "%s: %s, poses differ from the full library's\n", name.c_str(),
                         animcomp_status_message(s));
            ++failures;
        }
        ++checked;
    }
    std::printf("runtime-only library: %d blobs sampled, %d differ from the full library\n", checked, failures);
    return failures == 0 && checked > 0 ? 0 : 1;
}
