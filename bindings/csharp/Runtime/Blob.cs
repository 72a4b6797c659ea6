using System;
using AnimComp.Native;

namespace AnimComp
{
    /// <summary>
    /// A blob in 16-byte aligned native memory, owned by this object (IDisposable). Decompressors
    /// created from it keep it alive; dispose it only when none of them is used any more.
    /// </summary>
    public sealed unsafe class Blob : IDisposable
    {
        readonly NativeBuffer _buffer;

        Blob(NativeBuffer buffer) { _buffer = buffer; }

        /// <summary>An aligned copy of blob bytes (e.g. a TextAsset's bytes), validated in full.</summary>
        public static Blob FromBytes(byte[] bytes)
        {
            var buffer = new NativeBuffer(bytes.Length);
            for (int i = 0; i < bytes.Length; ++i) buffer.Pointer[i] = bytes[i];
            var blob = new Blob(buffer);
            var status = blob.Validate();
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                blob.Dispose();
                throw new AnimCompException(status);
            }
            return blob;
        }

#if !ANIMCOMP_RUNTIME_ONLY
        /// <summary>
        /// Compresses a clip (animcomp_compress_bound, then animcomp_compress); null settings = the
        /// defaults. Needs the full native library. Throws AnimCompException on a bad clip.
        /// </summary>
        public static Blob Compress(AnimcompRawClip clip, AnimcompCompressSettings? settings = null)
        {
            AnimcompCompressSettings s;
            if (settings.HasValue) s = settings.Value;
            else AnimCompException.Check(NativeMethods.animcomp_compress_settings_default(&s));
            UIntPtr bound;
            AnimCompException.Check(NativeMethods.animcomp_compress_bound(&clip, &s, &bound));
            var buffer = new NativeBuffer((long)bound.ToUInt64());
            UIntPtr size;
            var status = NativeMethods.animcomp_compress(&clip, &s, buffer.Pointer, bound, &size);
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK)
            {
                buffer.Dispose();
                throw new AnimCompException(status);
            }
            buffer.Shrink((long)size.ToUInt64());
            return new Blob(buffer);
        }
#endif

        /// <summary>Aligned start of the bytes.</summary>
        public byte* Pointer { get { return _buffer.Pointer; } }

        /// <summary>Size in bytes.</summary>
        public long Size { get { return _buffer.Size; } }

        /// <summary>A copy of the bytes (to save as an asset).</summary>
        public byte[] ToArray() { return _buffer.ToArray(); }

        /// <summary>Full validation (checksum and every offset): the status, never throws.</summary>
        public AnimcompStatus Validate()
        {
            return NativeMethods.animcomp_validate_blob(_buffer.Pointer, new UIntPtr((ulong)_buffer.Size));
        }

        /// <summary>Counts, rate, duration, codec and sizes (animcomp_blob_info).</summary>
        public AnimcompBlobInfo Info()
        {
            AnimcompBlobInfo info;
            AnimCompException.Check(NativeMethods.animcomp_blob_info(_buffer.Pointer, new UIntPtr((ulong)_buffer.Size), &info));
            return info;
        }

        /// <summary>Frees the native memory.</summary>
        public void Dispose() { _buffer.Dispose(); }
    }
}
