/*
 * animcomp.hpp: a header-only C++17 wrapper over the C ABI of animcomp.h.
 *
 *   animcomp::Blob          RAII owner of a 16-byte aligned blob (move-only)
 *   animcomp::compress      clip + settings -> Result<Blob> (needs the full library)
 *   animcomp::compress_additive  additive clip + base (clip or pose) -> Result<Blob> (full library)
 *   animcomp::BlobHandle    a blob validated once (animcomp_blob_open): bind any number of
 *                           decompressors to it in constant time (Decompressor::bind)
 *   animcomp::Decompressor  a context bound to a blob: seek, sample_pose into any contiguous
 *                           float buffer (pointer + length, or std::vector / std::array / span ...),
 *                           sample_joint(s), sample_curves / sample_curve / curve_id
 *   animcomp::apply_additive  an additive pose onto a base pose with a weight
 *   animcomp::Status        a status code with ok() and message()
 *   animcomp::Result<T>     a value or a status
 *
 * Errors are returned, never hidden: every call gives a Status or a Result. With exceptions
 * enabled (the default when the compiler has them; force with -DANIMCOMP_HPP_EXCEPTIONS=0 or 1),
 * Result::value() on an error and animcomp::check(status) throw animcomp::Error; without them
 * (-fno-exceptions) they call std::abort(), so test ok() first. Nothing else throws.
 */
/* C++17 or later (aligned operator new, std::data / std::size). MSVC reports the standard in
 * _MSVC_LANG (its __cplusplus stays 199711L without /Zc:__cplusplus). On an older standard the
 * error below is the only one: the rest of the header is skipped. */
#if !defined(ANIMCOMP_HPP)
#if !defined(__cplusplus)
#error "animcomp.hpp is C++ (C++17 or later); from C, include animcomp.h"
#define ANIMCOMP_HPP
#elif (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 201703L
#error "animcomp.hpp needs C++17 or later (-std=c++17, /std:c++17); with an older standard, include animcomp.h (the C API) instead"
#define ANIMCOMP_HPP
#endif
#endif

#ifndef ANIMCOMP_HPP
#define ANIMCOMP_HPP

#include "animcomp.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

#if !defined(ANIMCOMP_HPP_EXCEPTIONS)
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define ANIMCOMP_HPP_EXCEPTIONS 1
#else
#define ANIMCOMP_HPP_EXCEPTIONS 0
#endif
#endif

#if ANIMCOMP_HPP_EXCEPTIONS
#include <stdexcept>
#endif

namespace animcomp {

/** A status code of the C API (ANIMCOMP_STATUS_OK == 0) with its message. */
class Status {
public:
  /** OK. */
  constexpr Status() noexcept = default;
  /** Wraps a code returned by a C function. */
  constexpr Status(AnimcompStatus code) noexcept : code_(code) {}  // NOLINT: implicit on purpose
  /** The raw code. */
  constexpr AnimcompStatus code() const noexcept { return code_; }
  /** True for ANIMCOMP_STATUS_OK. */
  constexpr bool ok() const noexcept { return code_ == ANIMCOMP_STATUS_OK; }
  /** True for ANIMCOMP_STATUS_OK. */
  constexpr explicit operator bool() const noexcept { return ok(); }
  /** The library's static English message (never null). */
  const char *message() const noexcept { return animcomp_status_message(code_); }
  /** Same code. */
  friend constexpr bool operator==(Status a, Status b) noexcept { return a.code_ == b.code_; }
  /** Different code. */
  friend constexpr bool operator!=(Status a, Status b) noexcept { return a.code_ != b.code_; }

private:
  AnimcompStatus code_ = ANIMCOMP_STATUS_OK;
};

#if ANIMCOMP_HPP_EXCEPTIONS
/** Thrown by Result::value() and check() on an error (only with exceptions enabled). */
class Error : public std::runtime_error {
public:
  /** An error carrying its status. */
  explicit Error(Status status) : std::runtime_error(status.message()), status_(status) {}
  /** The status. */
  Status status() const noexcept { return status_; }

private:
  Status status_;
};
#endif

/** Throws Error (exceptions on) or aborts (off) when `status` is not OK; returns it otherwise. */
inline Status check(Status status) {
  if (!status.ok()) {
#if ANIMCOMP_HPP_EXCEPTIONS
    throw Error(status);
#else
    std::abort();
#endif
  }
  return status;
}

/** A value of type T, or the status explaining why there is none. */
template <class T>
class Result {
public:
  /** A success. */
  Result(T value) noexcept(std::is_nothrow_move_constructible<T>::value)  // NOLINT: implicit
      : value_(std::move(value)) {}
  /** A failure (`status` must not be OK). */
  Result(Status status) noexcept : status_(status) {}  // NOLINT: implicit
  /** True when a value is held. */
  bool ok() const noexcept { return status_.ok(); }
  /** True when a value is held. */
  explicit operator bool() const noexcept { return ok(); }
  /** The status (OK when a value is held). */
  Status status() const noexcept { return status_; }
  /** The value; on an error: throws Error (exceptions on) or aborts. */
  T &value() & {
    check(status_);
    return value_;
  }
  /** The value; on an error: throws Error (exceptions on) or aborts. */
  const T &value() const & {
    check(status_);
    return value_;
  }
  /** Moves the value out; on an error: throws Error (exceptions on) or aborts. */
  T &&value() && {
    check(status_);
    return std::move(value_);
  }
  /** The value (must be ok()). */
  T *operator->() noexcept { return &value_; }
  /** The value (must be ok()). */
  const T *operator->() const noexcept { return &value_; }
  /** The value (must be ok()). */
  T &operator*() & noexcept { return value_; }
  /** The value (must be ok()). */
  const T &operator*() const & noexcept { return value_; }
  /** Moves the value out (must be ok()). */
  T &&operator*() && noexcept { return std::move(value_); }

private:
  T value_{};
  Status status_;
};

/** Owns a 16-byte aligned byte buffer holding a blob (move-only; the memory is freed on destruction). */
class Blob {
public:
  /** Empty. */
  Blob() noexcept = default;
  Blob(const Blob &) = delete;
  Blob &operator=(const Blob &) = delete;
  /** Takes the other's memory, leaving it empty. */
  Blob(Blob &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  /** Frees this, then takes the other's memory. */
  Blob &operator=(Blob &&other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~Blob() { release(); }

  /** `size` zeroed bytes, 16-byte aligned; ANIMCOMP_STATUS_INTERNAL when the allocation fails. */
  static Result<Blob> allocate(std::size_t size) noexcept {
    Blob blob;
    if (size != 0) {
      void *p = ::operator new(size, std::align_val_t{ANIMCOMP_ALIGNMENT}, std::nothrow);
      if (p == nullptr) return Status(ANIMCOMP_STATUS_INTERNAL);
      std::memset(p, 0, size);
      blob.data_ = static_cast<unsigned char *>(p);
      blob.size_ = size;
    }
    return blob;
  }
  /** An aligned copy of bytes read from a file or package (not validated: see validate()). */
  static Result<Blob> copy_of(const void *bytes, std::size_t size) noexcept {
    Result<Blob> blob = allocate(size);
    if (blob.ok() && size != 0) std::memcpy(blob->data(), bytes, size);
    return blob;
  }

  /** The bytes (16-byte aligned; null when empty). */
  unsigned char *data() noexcept { return data_; }
  /** The bytes (16-byte aligned; null when empty). */
  const unsigned char *data() const noexcept { return data_; }
  /** The blob's size in bytes. */
  std::size_t size() const noexcept { return size_; }
  /** True when no memory is held. */
  bool empty() const noexcept { return size_ == 0; }
  /** Full validation (checksum and every offset): animcomp_validate_blob. */
  Status validate() const noexcept { return animcomp_validate_blob(data_, size_); }
  /** Validates, then reports counts, rate, duration, codec and sizes: animcomp_blob_info. */
  Result<AnimcompBlobInfo> info() const noexcept {
    AnimcompBlobInfo out{};
    Status s = animcomp_blob_info(data_, size_, &out);
    if (!s.ok()) return s;
    return out;
  }
  /** Keeps the first `size` bytes (never grows; the allocation is unchanged). */
  void shrink(std::size_t size) noexcept {
    if (size < size_) size_ = size;
  }

private:
  void release() noexcept {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{ANIMCOMP_ALIGNMENT});
    data_ = nullptr;
    size_ = 0;
  }
  unsigned char *data_ = nullptr;
  std::size_t size_ = 0;
};

#if defined(ANIMCOMP_COMPRESS)
/** animcomp_compress_settings_default: codec VBR, level automatic, ACL's precision defaults. */
inline AnimcompCompressSettings default_settings() noexcept {
  AnimcompCompressSettings settings{};
  animcomp_compress_settings_default(&settings);
  return settings;
}

/**
 * Compresses `clip` into a new blob sized exactly (animcomp_compress_bound, then
 * animcomp_compress). Needs the full library (not ANIMCOMP_RUNTIME_ONLY).
 */
inline Result<Blob> compress(const AnimcompRawClip &clip,
                             const AnimcompCompressSettings &settings = default_settings()) noexcept {
  std::size_t bound = 0;
  Status s = animcomp_compress_bound(&clip, &settings, &bound);
  if (!s.ok()) return s;
  Result<Blob> blob = Blob::allocate(bound);
  if (!blob.ok()) return blob.status();
  std::size_t size = 0;
  s = animcomp_compress(&clip, &settings, blob->data(), blob->size(), &size);
  if (!s.ok()) return s;
  blob->shrink(size);
  return blob;
}

/**
 * Compresses the additive clip `clip` in `format` (ANIMCOMP_ADDITIVE_RELATIVE, _ADDITIVE0 or
 * _ADDITIVE1) against exactly one base: `base_clip`, or `base_pose` (`base_pose_len` floats, 10 per
 * joint); the other null (animcomp_compress_additive: size query, then the exact size). Needs the
 * full library.
 */
inline Result<Blob> compress_additive(const AnimcompRawClip &clip, uint32_t format,
                                      const AnimcompRawClip *base_clip, const float *base_pose,
                                      std::size_t base_pose_len,
                                      const AnimcompCompressSettings &settings = default_settings()) noexcept {
  std::size_t size = 0;
  Status s = animcomp_compress_additive(&clip, format, base_clip, base_pose, base_pose_len, &settings,
                                        nullptr, 0, &size);
  if (s.code() != ANIMCOMP_STATUS_BUFFER_TOO_SMALL) return s.ok() ? Status(ANIMCOMP_STATUS_INTERNAL) : s;
  Result<Blob> blob = Blob::allocate(size);
  if (!blob.ok()) return blob.status();
  s = animcomp_compress_additive(&clip, format, base_clip, base_pose, base_pose_len, &settings,
                                 blob->data(), blob->size(), &size);
  if (!s.ok()) return s;
  blob->shrink(size);
  return blob;
}
#endif

/**
 * Applies `additive_pose` to `base_pose` with `weight` in [0, 1] into `out_pose`, `num_joints`
 * joints of 10 floats `stride` apart (0 = 10): animcomp_apply_additive.
 */
inline Status apply_additive(uint32_t format, const float *base_pose, const float *additive_pose,
                             float weight, float *out_pose, std::size_t num_joints,
                             std::size_t stride = 0) noexcept {
  return animcomp_apply_additive(format, base_pose, additive_pose, weight, out_pose, num_joints, stride);
}

/** animcomp_decompress_options_default: checksum verified, no bind pose. */
inline AnimcompDecompressOptions default_decompress_options() noexcept {
  AnimcompDecompressOptions options{};
  animcomp_decompress_options_default(&options);
  return options;
}

/**
 * The default options with a bind pose of `floats` floats (10 per joint x num_joints), its length
 * passed along (bind_pose_len): the array must outlive every handle and decompressor opened with
 * these options.
 */
inline AnimcompDecompressOptions decompress_options_with_bind_pose(const float *bind_pose,
                                                                   std::size_t floats) noexcept {
  AnimcompDecompressOptions options = default_decompress_options();
  options.bind_pose = bind_pose;
  options.bind_pose_len = floats;
  return options;
}

/** As above, from a contiguous container of floats (std::vector<float>, std::array, ...). */
template <class Floats>
inline AnimcompDecompressOptions decompress_options_with_bind_pose(const Floats &bind_pose) noexcept {
  return decompress_options_with_bind_pose(bind_pose.data(), bind_pose.size());
}

/**
 * A blob validated once (animcomp_blob_open), to bind any number of decompressors to in constant
 * time (Decompressor::bind). Refers to the blob bytes (and bind pose), which must outlive it and
 * every decompressor bound from it. Copyable, allocation-free; its 16-byte alignment is the
 * type's, so a BlobHandle on the stack, in a struct or in a container is always aligned.
 */
class BlobHandle {
public:
  /** Validates `size` bytes at `blob` (16-byte aligned) in full: animcomp_blob_open. */
  static Result<BlobHandle> open(const void *blob, std::size_t size,
                                 const AnimcompDecompressOptions *options = nullptr) noexcept {
    BlobHandle h;
    Status s = animcomp_blob_open(&h.handle_, blob, size, options);
    if (!s.ok()) return s;
    return h;
  }
  /** Opens an owned blob (which must outlive the handle). */
  static Result<BlobHandle> open(const Blob &blob,
                                 const AnimcompDecompressOptions *options = nullptr) noexcept {
    return open(blob.data(), blob.size(), options);
  }
  /** The C handle. */
  const AnimcompBlob &c_handle() const noexcept { return handle_; }
  /** Unopened (binding it gives ANIMCOMP_STATUS_NOT_INITIALIZED); use open(). */
  BlobHandle() noexcept = default;

private:
  AnimcompBlob handle_{};
};

/** Pose layout presets (animcomp_pose_layout_preset), for Decompressor::sample_pose. */
struct PoseLayout {
  /** A preset (ANIMCOMP_POSE_PRESET_*); an unknown one gives a zeroed layout, which is refused. */
  static AnimcompPoseLayout preset(uint32_t p) noexcept {
    AnimcompPoseLayout l{};
    if (animcomp_pose_layout_preset(p, &l) != ANIMCOMP_STATUS_OK) l = AnimcompPoseLayout{};
    return l;
  }
  /** Unreal Engine 5 FTransform (double; 0, 32, 64, stride 96). */
  static AnimcompPoseLayout unreal5() noexcept { return preset(ANIMCOMP_POSE_PRESET_UNREAL5_TRANSFORM); }
  /** Unreal Engine 4 FTransform (float; 0, 16, 32, stride 48). */
  static AnimcompPoseLayout unreal4() noexcept { return preset(ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM); }
  /** Unity-style separate arrays (quaternion, float3, float3). */
  static AnimcompPoseLayout unity() noexcept { return preset(ANIMCOMP_POSE_PRESET_UNITY_SEPARATE); }
  /** ozz-animation SoaTransform blocks of four joints. */
  static AnimcompPoseLayout ozz() noexcept { return preset(ANIMCOMP_POSE_PRESET_OZZ_SOA_TRANSFORM); }
};

/**
 * A pose layout checked once (animcomp_pose_layout_check): Decompressor::sample_pose and
 * sample_joints given one check only the buffers on each call. Make one per layout an engine
 * writes into (e.g. at start-up) and keep it; it may be copied and shared between threads.
 */
class CheckedPoseLayout {
public:
  /** Checks `layout`; status() is its verdict (a layout that failed is refused when used). */
  explicit CheckedPoseLayout(const AnimcompPoseLayout &layout) noexcept
      : status_(animcomp_pose_layout_check(&layout, &checked_)) {}
  /** ANIMCOMP_STATUS_OK when the layout was valid. */
  Status status() const noexcept { return status_; }
  /** The C struct. */
  const AnimcompCheckedPoseLayout &get() const noexcept { return checked_; }

private:
  AnimcompCheckedPoseLayout checked_{};
  Status status_;
};

/**
 * A decompression context bound to a blob (which must outlive it and every copy of it). Copyable
 * and allocation-free: copy it to give another thread its own playhead on the same blob.
 */
class Decompressor {
public:
  /** Binds to an opened blob, at time 0, in constant time: animcomp_decompressor_bind. */
  static Result<Decompressor> bind(const BlobHandle &blob) noexcept {
    Decompressor d;
    Status s = animcomp_decompressor_bind(&d.ctx_, &blob.c_handle());
    if (!s.ok()) return s;
    return d;
  }
  /** Re-binds this context to an opened blob, at time 0 (no allocation, no validation). */
  Status rebind(const BlobHandle &blob) noexcept { return animcomp_decompressor_bind(&ctx_, &blob.c_handle()); }

  /** Binds to `blob` (validating it): animcomp_decompressor_init. */
  static Result<Decompressor> create(const void *blob, std::size_t size,
                                     const AnimcompDecompressOptions *options = nullptr) noexcept {
    Decompressor d;
    Status s = animcomp_decompressor_init(&d.ctx_, blob, size, options);
    if (!s.ok()) return s;
    return d;
  }
  /** Binds to an owned blob. */
  static Result<Decompressor> create(const Blob &blob,
                                     const AnimcompDecompressOptions *options = nullptr) noexcept {
    return create(blob.data(), blob.size(), options);
  }

  /** Bytes of playback cache this context can use (0: the blob's codec has none):
   *  animcomp_decompressor_playback_cache_size. */
  Result<std::size_t> playback_cache_size() const noexcept {
    std::size_t n = 0;
    Status s = animcomp_decompressor_playback_cache_size(&ctx_, &n);
    if (!s.ok()) return s;
    return n;
  }
  /** Attaches caller-owned memory (16-byte aligned, at least playback_cache_size() bytes, alive
   *  while attached) as this context's playback cache; nullptr detaches:
   *  animcomp_decompressor_attach_cache. With a cache the context is used by one thread at a time,
   *  and a copy of it shares the cache (attach another one to the copy). */
  Status attach_cache(void *cache, std::size_t bytes) noexcept {
    return animcomp_decompressor_attach_cache(&ctx_, cache, bytes);
  }

  /** Moves to a time in seconds: animcomp_seek. */
  Status seek(float time, uint32_t looping = ANIMCOMP_LOOPING_CLAMP,
              uint32_t rounding = ANIMCOMP_ROUNDING_NONE) noexcept {
    return animcomp_seek(&ctx_, time, looping, rounding);
  }
  /** Moves to a sample index: animcomp_seek_sample. */
  Status seek_sample(uint32_t sample) noexcept { return animcomp_seek_sample(&ctx_, sample); }

  /** Writes 10 floats per joint, `stride` floats apart (0 = 10): animcomp_sample_pose. */
  Status sample_pose(float *out, std::size_t len_floats, std::size_t stride = 0) const noexcept {
    return animcomp_sample_pose(&ctx_, out, len_floats, stride);
  }
  /** Same, into any contiguous container of float (std::vector, std::array, a span...). */
  template <class Floats,
            class = std::enable_if_t<std::is_same<
                std::remove_cv_t<std::remove_pointer_t<decltype(std::data(std::declval<Floats &>()))>>,
                float>::value>>
  Status sample_pose(Floats &out, std::size_t stride = 0) const noexcept {
    return sample_pose(std::data(out), std::size(out), stride);
  }
  /** Writes one joint's 10 floats: animcomp_sample_joint. */
  Status sample_joint(uint32_t joint, float out[ANIMCOMP_FLOATS_PER_JOINT]) const noexcept {
    return animcomp_sample_joint(&ctx_, joint, out);
  }
  /**
   * Writes the joints `joints[0..count]` (ANIMCOMP_CHANNEL_* mask `channels`) at `out_slots[i]`
   * (or `i` when null), `stride` floats apart: animcomp_sample_joints.
   */
  Status sample_joints(const uint32_t *joints, const uint32_t *out_slots, std::size_t count,
                       uint32_t channels, float *out, std::size_t len_floats,
                       std::size_t stride = 0) const noexcept {
    return animcomp_sample_joints(&ctx_, joints, out_slots, count, channels, out, len_floats, stride);
  }
  /**
   * Every joint into `out` in `layout` (an AnimcompPoseLayout, checked on every call:
   * animcomp_sample_pose_layout; or a CheckedPoseLayout: animcomp_sample_pose_checked).
   */
  Status sample_pose(const AnimcompPoseLayout &layout, const AnimcompPoseBuffers &out) const noexcept {
    return animcomp_sample_pose_layout(&ctx_, &layout, &out);
  }
  /** Every joint into `out` in a layout checked once: animcomp_sample_pose_checked. */
  Status sample_pose(const CheckedPoseLayout &layout, const AnimcompPoseBuffers &out) const noexcept {
    return animcomp_sample_pose_checked(&ctx_, &layout.get(), &out);
  }
  /**
   * Every joint into an array of engine records `T` (AoS `layout`, e.g. a mirror of Unreal's
   * FTransform with PoseLayout::unreal5(), or a CheckedPoseLayout of it).
   */
  template <class L, class T>
  Status sample_pose(const L &layout, T *records, std::size_t count) const noexcept {
    AnimcompPoseBuffers b{};
    b.data0 = records;
    b.size0 = count * sizeof(T);
    return sample_pose(layout, b);
  }
  /**
   * Every joint into three arrays (SoA `layout`, e.g. PoseLayout::unity() with quaternions,
   * positions, scales, or a CheckedPoseLayout of it).
   */
  template <class L, class R, class T, class S>
  Status sample_pose(const L &layout, R *rotations, T *translations, S *scales,
                     std::size_t count) const noexcept {
    AnimcompPoseBuffers b{};
    b.data0 = rotations;
    b.data1 = translations;
    b.data2 = scales;
    b.size0 = count * sizeof(R);
    b.size1 = count * sizeof(T);
    b.size2 = count * sizeof(S);
    return sample_pose(layout, b);
  }
  /** A joint selection into `out` in `layout`: animcomp_sample_joints_layout. */
  Status sample_joints(const uint32_t *joints, const uint32_t *out_slots, std::size_t count,
                       uint32_t channels, const AnimcompPoseLayout &layout,
                       const AnimcompPoseBuffers &out) const noexcept {
    return animcomp_sample_joints_layout(&ctx_, joints, out_slots, count, channels, &layout, &out);
  }
  /** A joint selection into `out` in a layout checked once: animcomp_sample_joints_checked. */
  Status sample_joints(const uint32_t *joints, const uint32_t *out_slots, std::size_t count,
                       uint32_t channels, const CheckedPoseLayout &layout,
                       const AnimcompPoseBuffers &out) const noexcept {
    return animcomp_sample_joints_checked(&ctx_, joints, out_slots, count, channels, &layout.get(), &out);
  }
  /** Writes every curve (`len` floats available): animcomp_sample_curves. */
  Status sample_curves(float *out, std::size_t len) const noexcept {
    return animcomp_sample_curves(&ctx_, out, len);
  }
  /** Same, into any contiguous container of float. */
  template <class Floats,
            class = std::enable_if_t<std::is_same<
                std::remove_cv_t<std::remove_pointer_t<decltype(std::data(std::declval<Floats &>()))>>,
                float>::value>>
  Status sample_curves(Floats &out) const noexcept {
    return sample_curves(std::data(out), std::size(out));
  }
  /** One curve's value: animcomp_sample_curve. */
  Result<float> sample_curve(uint32_t index) const noexcept {
    float v = 0.0f;
    Status s = animcomp_sample_curve(&ctx_, index, &v);
    if (!s.ok()) return s;
    return v;
  }
  /** A curve's engine id: animcomp_curve_id. */
  Result<uint32_t> curve_id(uint32_t index) const noexcept {
    uint32_t id = 0;
    Status s = animcomp_curve_id(&ctx_, index, &id);
    if (!s.ok()) return s;
    return id;
  }
  /** The bound blob's info: animcomp_decompressor_info. */
  Result<AnimcompBlobInfo> info() const noexcept {
    AnimcompBlobInfo out{};
    Status s = animcomp_decompressor_info(&ctx_, &out);
    if (!s.ok()) return s;
    return out;
  }
  /** The C context, for the functions this wrapper does not cover (e.g. the key cursor). */
  const AnimcompDecompressor &c_context() const noexcept { return ctx_; }
  /** The C context, for the functions this wrapper does not cover. */
  AnimcompDecompressor &c_context() noexcept { return ctx_; }

  /** Unbound (sampling gives ANIMCOMP_STATUS_NOT_INITIALIZED); use create(). */
  Decompressor() noexcept = default;

private:
  AnimcompDecompressor ctx_{};
};

}  // namespace animcomp

#endif /* ANIMCOMP_HPP */
