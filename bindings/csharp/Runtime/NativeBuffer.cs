using System;
using System.Runtime.InteropServices;

namespace AnimComp
{
    /// <summary>
    /// Unmanaged memory whose start is 16-byte aligned (what blobs and decompressor contexts need:
    /// the garbage collector never moves it). Freed by Dispose or, as a last resort, the finalizer.
    /// </summary>
    public sealed unsafe class NativeBuffer : IDisposable
    {
        IntPtr _raw;

        /// <summary>Allocates <paramref name="size"/> zeroed bytes, 16-byte aligned.</summary>
        public NativeBuffer(long size)
        {
            if (size < 0) throw new ArgumentOutOfRangeException("size");
            _raw = Marshal.AllocHGlobal(new IntPtr(size + 15));
            long start = (_raw.ToInt64() + 15) & ~15L;
            Pointer = (byte*)start;
            Size = size;
            for (long i = 0; i < size; ++i) Pointer[i] = 0;
        }

        /// <summary>Aligned start (never null while not disposed).</summary>
        public byte* Pointer { get; private set; }

        /// <summary>Usable size in bytes.</summary>
        public long Size { get; private set; }

        /// <summary>Keeps the first <paramref name="size"/> bytes (never grows).</summary>
        public void Shrink(long size)
        {
            if (size >= 0 && size < Size) Size = size;
        }

        /// <summary>A copy of the bytes.</summary>
        public byte[] ToArray()
        {
            var bytes = new byte[Size];
            Marshal.Copy((IntPtr)Pointer, bytes, 0, (int)Size);
            return bytes;
        }

        /// <summary>Frees the memory.</summary>
        public void Dispose()
        {
            if (_raw != IntPtr.Zero) Marshal.FreeHGlobal(_raw);
            _raw = IntPtr.Zero;
            Pointer = null;
            Size = 0;
            GC.SuppressFinalize(this);
        }

        /// <summary>Frees the memory if Dispose was never called.</summary>
        ~NativeBuffer()
        {
            if (_raw != IntPtr.Zero) Marshal.FreeHGlobal(_raw);
        }
    }
}
