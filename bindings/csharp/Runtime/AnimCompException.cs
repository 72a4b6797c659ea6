using System;
using System.Runtime.InteropServices;
using AnimComp.Native;

namespace AnimComp
{
    /// <summary>A status other than OK from the native library, with its message.</summary>
    public sealed class AnimCompException : Exception
    {
        /// <summary>Wraps a failed status.</summary>
        public AnimCompException(AnimcompStatus status) : base(MessageOf(status)) { Status = status; }

        /// <summary>The status code.</summary>
        public AnimcompStatus Status { get; private set; }

        /// <summary>The library's static message for a status (animcomp_status_message).</summary>
        public static unsafe string MessageOf(AnimcompStatus status)
        {
            return Marshal.PtrToStringAnsi((IntPtr)NativeMethods.animcomp_status_message((int)status));
        }

        /// <summary>Throws for any status but OK.</summary>
        public static void Check(AnimcompStatus status)
        {
            if (status != AnimcompStatus.ANIMCOMP_STATUS_OK) throw new AnimCompException(status);
        }
    }
}
