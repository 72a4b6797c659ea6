// The files the runtime-only test passes from the full library (runtime_only_write.cpp) to the
// runtime-only one (runtime_only_check.cpp): per case <dir>/<name>.blob, <name>.poses (the poses
// the full library samples at kTimes) and, for blobs whose defaults are the bind pose, <name>.bind;
// <dir>/manifest.txt lists one case name per line. Uses animcomp.h only.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace runtime_only {

/// Seek times (seconds, wrapped) at which both libraries sample every blob.
constexpr float kTimes[] = {0.0f, 0.01f, 0.25f, 0.5f, 0.77f, 1.0f, 1.5f, 3.3f};

inline bool write_file(const std::string& path, const void* data, size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return false;
    bool ok = std::fwrite(data, 1, size, f) == size;
    return std::fclose(f) == 0 && ok;
}

inline bool read_file(const std::string& path, std::vector<unsigned char>& out) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    out.clear();
    unsigned char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
    std::fclose(f);
    return true;
}

}  // namespace runtime_only
