using System;
using AnimComp.Native;

namespace AnimComp
{
    /// <summary>
    /// A decompression context (AnimcompDecompressor, 16-byte aligned native memory) bound to a
    /// blob. Allocation happens once, here; seeking and sampling allocate nothing.
    /// </summary>
    public sealed unsafe class Decompressor : IDisposable
    {
        readonly NativeBuffer _ctx;
        readonly Blob _blob; // keeps the blob reachable while this context may read it

        /// <summary>
        /// Validates <paramref name="blob"/> and binds to it (animcomp_decompressor_init); throws
        /// AnimCompException when it is refused. To bind many decompressors to one blob, open it
        /// once with <see cref="OpenedBlob"/> and use <see cref="Decompressor(OpenedBlob)"/>.
        /// </summary>
        public Decompressor(Blob blob, float[] bindPose = null, bool verifyChecksum = true)
        {
            _blob = blob;
            _ctx = new NativeBuffer(sizeof(AnimcompDecompressor));
            AnimcompDecompressOptions options = Options(bindPose, verifyChecksum, out _bind);
            var status = NativeMethods.animcomp_decompressor_init(Context, blob.Pointer, new UIntPtr((ulong)blob.Size), &options);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                Dispose();
                throw new AnimCompException(status);
            }
            NumJoints = (int)_blob.Info().num_joints;
        }

        /// <summary>
        /// Binds to a blob opened once (animcomp_decompressor_bind): constant time, no validation
        /// repeated. The context lives in 16-byte aligned native memory owned by this object.
        /// </summary>
        public Decompressor(OpenedBlob opened)
        {
            _blob = opened.Blob;
            _opened = opened;
            _ctx = new NativeBuffer(sizeof(AnimcompDecompressor));
            var status = NativeMethods.animcomp_decompressor_bind(Context, opened.Handle);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                Dispose();
                throw new AnimCompException(status);
            }
            NumJoints = opened.NumJoints;
        }

        /// <summary>
        /// Decompression options with the bind pose copied to native memory (the library reads it
        /// while sampling and the GC may move a float[]) and its length given (bind_pose_len).
        /// </summary>
        internal static AnimcompDecompressOptions Options(float[] bindPose, bool verifyChecksum, out NativeBuffer bind)
        {
            AnimcompDecompressOptions options;
            AnimCompException.Check(NativeMethods.animcomp_decompress_options_default(&options));
            options.verify_checksum = verifyChecksum ? 1u : 0u;
            bind = null;
            if (bindPose != null && bindPose.Length > 0)
            {
                bind = new NativeBuffer(bindPose.Length * sizeof(float));
                float* dst = (float*)bind.Pointer;
                for (int i = 0; i < bindPose.Length; ++i) dst[i] = bindPose[i];
                options.bind_pose = dst;
                options.bind_pose_len = (ulong)bindPose.Length;
            }
            return options;
        }

        readonly OpenedBlob _opened; // keeps the handle reachable while this context may read it

        /// <summary>The opened blob this context was bound to (null when made from a Blob).</summary>
        public OpenedBlob Opened { get { return _opened; } }
        readonly NativeBuffer _bind;

        /// <summary>The C context, for functions this layer does not wrap.</summary>
        public AnimcompDecompressor* Context { get { return (AnimcompDecompressor*)_ctx.Pointer; } }

        /// <summary>Joints per pose.</summary>
        public int NumJoints { get; private set; }

        /// <summary>Moves to a time in seconds (animcomp_seek).</summary>
        public AnimcompStatus Seek(float time, AnimcompLooping looping = AnimcompLooping.ANIMCOMP_LOOPING_CLAMP,
                                   AnimcompRounding rounding = AnimcompRounding.ANIMCOMP_ROUNDING_NONE)
        {
            return NativeMethods.animcomp_seek(Context, time, (uint)looping, (uint)rounding);
        }

        /// <summary>Moves to a sample index (animcomp_seek_sample).</summary>
        public AnimcompStatus SeekSample(uint sample) { return NativeMethods.animcomp_seek_sample(Context, sample); }

        /// <summary>10 floats per joint into <paramref name="pose"/>, <paramref name="stride"/> floats apart (0 = 10).</summary>
        public AnimcompStatus SamplePose(float[] pose, int stride = 0)
        {
            fixed (float* p = pose)
                return SamplePose(p, pose.Length, stride);
        }

        /// <summary>
        /// Same, into native memory (a NativeArray&lt;float&gt;'s
        /// NativeArrayUnsafeUtility.GetUnsafePtr in Unity, a Span's pinned pointer).
        /// </summary>
        public AnimcompStatus SamplePose(float* pose, int lengthFloats, int stride = 0)
        {
            if (lengthFloats < 0 || stride < 0) return AnimcompStatus.ANIMCOMP_STATUS_INVALID_ARGUMENT;
            return NativeMethods.animcomp_sample_pose(Context, pose, new UIntPtr((uint)lengthFloats), new UIntPtr((uint)stride));
        }

        /// <summary>A pose layout preset (animcomp_pose_layout_preset, ANIMCOMP_POSE_PRESET_*).</summary>
        public static AnimcompStatus PoseLayoutPreset(uint preset, out AnimcompPoseLayout layout)
        {
            AnimcompPoseLayout l = default(AnimcompPoseLayout);
            AnimcompStatus s = NativeMethods.animcomp_pose_layout_preset(preset, &l);
            layout = l;
            return s;
        }

        /// <summary>
        /// Every joint in <paramref name="layout"/> (animcomp_sample_pose_layout): one buffer for
        /// AoS and SoA4, three (rotations, translations, scales) for SoA, e.g. the unsafe pointers
        /// of three NativeArrays with the ANIMCOMP_POSE_PRESET_UNITY_SEPARATE preset. Sizes in bytes.
        /// </summary>
        public AnimcompStatus SamplePose(AnimcompPoseLayout layout, void* data0, long size0,
                                         void* data1 = null, long size1 = 0, void* data2 = null, long size2 = 0)
        {
            if (size0 < 0 || size1 < 0 || size2 < 0) return AnimcompStatus.ANIMCOMP_STATUS_INVALID_ARGUMENT;
            AnimcompPoseBuffers b = Buffers(data0, size0, data1, size1, data2, size2);
            return NativeMethods.animcomp_sample_pose_layout(Context, &layout, &b);
        }

        /// <summary>
        /// Checks <paramref name="layout"/> once (animcomp_pose_layout_check) for the SamplePose
        /// and SampleJoints overloads that take an AnimcompCheckedPoseLayout: they then check only
        /// the buffers on each call. Keep one per layout (it may be shared between threads).
        /// </summary>
        public static AnimcompStatus CheckPoseLayout(AnimcompPoseLayout layout, out AnimcompCheckedPoseLayout checkedLayout)
        {
            AnimcompCheckedPoseLayout c = default(AnimcompCheckedPoseLayout);
            AnimcompStatus s = NativeMethods.animcomp_pose_layout_check(&layout, &c);
            checkedLayout = c;
            return s;
        }

        /// <summary>
        /// <see cref="SamplePose(AnimcompPoseLayout, void*, long, void*, long, void*, long)"/> into a
        /// layout checked once by <see cref="CheckPoseLayout"/> (animcomp_sample_pose_checked).
        /// </summary>
        public AnimcompStatus SamplePose(AnimcompCheckedPoseLayout layout, void* data0, long size0,
                                         void* data1 = null, long size1 = 0, void* data2 = null, long size2 = 0)
        {
            if (size0 < 0 || size1 < 0 || size2 < 0) return AnimcompStatus.ANIMCOMP_STATUS_INVALID_ARGUMENT;
            AnimcompPoseBuffers b = Buffers(data0, size0, data1, size1, data2, size2);
            return NativeMethods.animcomp_sample_pose_checked(Context, &layout, &b);
        }

        static AnimcompPoseBuffers Buffers(void* data0, long size0, void* data1, long size1, void* data2, long size2)
        {
            AnimcompPoseBuffers b = default(AnimcompPoseBuffers);
            b.data0 = data0;
            b.size0 = new UIntPtr((ulong)size0);
            b.data1 = data1;
            b.size1 = new UIntPtr((ulong)size1);
            b.data2 = data2;
            b.size2 = new UIntPtr((ulong)size2);
            return b;
        }

        /// <summary>
        /// The joints <paramref name="joints"/> (channel mask <paramref name="channels"/>) at
        /// <paramref name="slots"/> (null: slot i) in <paramref name="layout"/>
        /// (animcomp_sample_joints_layout); buffers as <see cref="SamplePose(AnimcompPoseLayout, void*, long, void*, long, void*, long)"/>.
        /// </summary>
        public AnimcompStatus SampleJoints(uint[] joints, uint[] slots, uint channels, AnimcompPoseLayout layout,
                                           void* data0, long size0, void* data1 = null, long size1 = 0,
                                           void* data2 = null, long size2 = 0)
        {
            if (joints == null) return AnimcompStatus.ANIMCOMP_STATUS_NULL_POINTER;
            if (slots != null && slots.Length != joints.Length) return AnimcompStatus.ANIMCOMP_STATUS_INVALID_ARGUMENT;
            if (size0 < 0 || size1 < 0 || size2 < 0) return AnimcompStatus.ANIMCOMP_STATUS_INVALID_ARGUMENT;
            AnimcompPoseBuffers b = Buffers(data0, size0, data1, size1, data2, size2);
            uint dummy = 0;
            fixed (uint* j = joints)
            fixed (uint* s = slots)
                return NativeMethods.animcomp_sample_joints_layout(Context, j != null ? j : &dummy, s,
                    new UIntPtr((uint)joints.Length), channels, &layout, &b);
        }

        /// <summary>One joint's 10 floats into <paramref name="joint10"/> (animcomp_sample_joint).</summary>
        public AnimcompStatus SampleJoint(uint joint, float[] joint10)
        {
            if (joint10 == null || joint10.Length < 10) return AnimcompStatus.ANIMCOMP_STATUS_BUFFER_TOO_SMALL;
            fixed (float* p = joint10)
                return NativeMethods.animcomp_sample_joint(Context, joint, p);
        }

        /// <summary>Every curve's value at the current time into <paramref name="curves"/> (animcomp_sample_curves).</summary>
        public AnimcompStatus SampleCurves(float[] curves)
        {
            if (curves == null) return AnimcompStatus.ANIMCOMP_STATUS_NULL_POINTER;
            fixed (float* p = curves)
                return NativeMethods.animcomp_sample_curves(Context, p, new UIntPtr((uint)curves.Length));
        }

        NativeBuffer _cache; // the attached playback cache, owned here; null when none

        /// <summary>
        /// Bytes of playback cache this context can use
        /// (animcomp_decompressor_playback_cache_size); 0 when the blob's codec has none.
        /// </summary>
        public long PlaybackCacheSize
        {
            get
            {
                UIntPtr n;
                AnimCompException.Check(NativeMethods.animcomp_decompressor_playback_cache_size(Context, &n));
                return (long)n.ToUInt64();
            }
        }

        /// <summary>Whether a playback cache is attached (<see cref="AttachPlaybackCache"/>).</summary>
        public bool HasPlaybackCache { get { return _cache != null; } }

        /// <summary>The attached cache's memory (null when none), for the tests.</summary>
        internal NativeBuffer PlaybackCacheBuffer { get { return _cache; } }

        /// <summary>
        /// Allocates a playback cache (16-byte aligned native memory of
        /// <see cref="PlaybackCacheSize"/> bytes, owned by this object) and attaches it
        /// (animcomp_decompressor_attach_cache): from then on <see cref="SamplePose(float[], int)"/>
        /// keeps in it what makes the next pose of a playing clip cheap, with poses bit for bit
        /// those without it. A context with a cache is used by one thread at a time. A cache already
        /// attached is replaced (and freed); on failure the context keeps the one it had. Freed by
        /// <see cref="DetachPlaybackCache"/> or <see cref="Dispose"/>.
        /// </summary>
        public AnimcompStatus AttachPlaybackCache()
        {
            UIntPtr n;
            var status = NativeMethods.animcomp_decompressor_playback_cache_size(Context, &n);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK) return status;
            var cache = new NativeBuffer((long)n.ToUInt64());
            status = NativeMethods.animcomp_decompressor_attach_cache(Context, cache.Pointer, n);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                cache.Dispose();
                return status;
            }
            if (_cache != null) _cache.Dispose();
            _cache = cache;
            return status;
        }

        /// <summary>
        /// Detaches the playback cache (animcomp_decompressor_attach_cache with NULL) and frees it;
        /// sampling then reads the blob alone. Nothing to do without a cache.
        /// </summary>
        public AnimcompStatus DetachPlaybackCache()
        {
            if (_cache == null) return AnimcompStatus.ANIMCOMP_STATUS_OK;
            var status = NativeMethods.animcomp_decompressor_attach_cache(Context, null, UIntPtr.Zero);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK) return status;
            _cache.Dispose();
            _cache = null;
            return status;
        }

        /// <summary>
        /// Frees the context, its playback cache and the copied bind pose; the blob stays with its
        /// owner.
        /// </summary>
        public void Dispose()
        {
            // The context goes first: nothing can reach the cache afterwards.
            _ctx.Dispose();
            if (_cache != null)
            {
                _cache.Dispose();
                _cache = null;
            }
            if (_bind != null) _bind.Dispose();
        }
    }
}
