using System;
using AnimComp.Native;

namespace AnimComp
{
    /// <summary>
    /// A blob validated once (animcomp_blob_open), to bind any number of decompressors to in
    /// constant time: open once at load, then <c>new Decompressor(opened)</c> (or
    /// <see cref="Bind"/>) per character or per evaluation. The handle (AnimcompBlob) lives in
    /// 16-byte aligned native memory owned by this object, so it is aligned wherever the object is
    /// used (a C# local AnimcompBlob is not: the runtime does not align stack structs to 16). The
    /// bind pose, if any, is copied to native memory owned here too, with its length given to the
    /// library (<c>bind_pose_len</c>). Keeps the <see cref="Blob"/> reachable; dispose it after
    /// every decompressor bound from it.
    /// </summary>
    public sealed unsafe class OpenedBlob : IDisposable
    {
        readonly NativeBuffer _handle;
        readonly NativeBuffer _bind;

        /// <summary>
        /// Validates <paramref name="blob"/> in full (and <paramref name="bindPose"/>, 10 floats
        /// per joint, when the blob's defaults are the bind pose); throws AnimCompException when
        /// it is refused (a bind pose shorter than the blob needs: ANIMCOMP_STATUS_BUFFER_TOO_SMALL).
        /// </summary>
        public OpenedBlob(Blob blob, float[] bindPose = null, bool verifyChecksum = true)
        {
            Blob = blob;
            _handle = new NativeBuffer(sizeof(AnimcompBlob));
            AnimcompDecompressOptions options = Decompressor.Options(bindPose, verifyChecksum, out _bind);
            var status = NativeMethods.animcomp_blob_open(Handle, blob.Pointer, new UIntPtr((ulong)blob.Size), &options);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                Dispose();
                throw new AnimCompException(status);
            }
            NumJoints = (int)blob.Info().num_joints;
        }

        /// <summary>The blob this handle validated.</summary>
        public Blob Blob { get; private set; }

        /// <summary>Joints per pose.</summary>
        public int NumJoints { get; private set; }

        /// <summary>The C handle (16-byte aligned), for functions this layer does not wrap.</summary>
        public AnimcompBlob* Handle { get { return (AnimcompBlob*)_handle.Pointer; } }

        /// <summary>
        /// Bytes of playback cache a decompressor bound to this blob can use
        /// (animcomp_blob_playback_cache_size); 0 when the blob's codec has none. See
        /// <see cref="Decompressor.AttachPlaybackCache"/>.
        /// </summary>
        public long PlaybackCacheSize
        {
            get
            {
                UIntPtr n;
                AnimCompException.Check(NativeMethods.animcomp_blob_playback_cache_size(Handle, &n));
                return (long)n.ToUInt64();
            }
        }

        /// <summary>A new decompressor bound to this blob at time 0 (constant time, no validation).</summary>
        public Decompressor Bind() { return new Decompressor(this); }

        /// <summary>Frees the handle and the copied bind pose; the blob stays with its owner.</summary>
        public void Dispose()
        {
            _handle.Dispose();
            if (_bind != null) _bind.Dispose();
        }
    }
}
