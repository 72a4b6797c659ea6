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

        /// <summary>Binds to <paramref name="blob"/>; throws AnimCompException when it is refused.</summary>
        public Decompressor(Blob blob, float[] bindPose = null, bool verifyChecksum = true)
        {
            _blob = blob;
            _ctx = new NativeBuffer(sizeof(AnimcompDecompressor));
            AnimcompDecompressOptions options;
            AnimCompException.Check(NativeMethods.animcomp_decompress_options_default(&options));
            options.verify_checksum = verifyChecksum ? 1u : 0u;
            AnimcompStatus status;
            // The library reads the bind pose while sampling, so it is copied to native memory
            // owned by this object (the GC may move a float[]).
            if (bindPose != null)
            {
                _bind = new NativeBuffer(bindPose.Length * sizeof(float));
                float* dst = (float*)_bind.Pointer;
                for (int i = 0; i < bindPose.Length; ++i) dst[i] = bindPose[i];
                options.bind_pose = dst;
            }
            status = NativeMethods.animcomp_decompressor_init(Context, blob.Pointer, new UIntPtr((ulong)blob.Size), &options);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                Dispose();
                throw new AnimCompException(status);
            }
            NumJoints = (int)_blob.Info().num_joints;
        }

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

        /// <summary>One joint's 10 floats into <paramref name="joint10"/> (animcomp_sample_joint).</summary>
        public AnimcompStatus SampleJoint(uint joint, float[] joint10)
        {
            if (joint10 == null || joint10.Length < 10) return AnimcompStatus.ANIMCOMP_STATUS_BUFFER_TOO_SMALL;
            fixed (float* p = joint10)
                return NativeMethods.animcomp_sample_joint(Context, joint, p);
        }

        /// <summary>Frees the context (and the copied bind pose); the blob stays with its owner.</summary>
        public void Dispose()
        {
            _ctx.Dispose();
            if (_bind != null) _bind.Dispose();
        }
    }
}
