#if UNITY_2018_1_OR_NEWER
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using AnimComp.Native;

namespace AnimComp.Unity
{
    /// <summary>
    /// The Unity-only layer, kept to this one file (it cannot be compiled outside Unity): sampling
    /// into a NativeArray&lt;float&gt; without copies, for jobs and Burst-free main-thread code.
    /// </summary>
    public static unsafe class NativeArrayExtensions
    {
        /// <summary>10 floats per joint into <paramref name="pose"/>, <paramref name="stride"/> floats apart (0 = 10).</summary>
        public static AnimcompStatus SamplePose(this Decompressor decompressor, NativeArray<float> pose, int stride = 0)
        {
            return decompressor.SamplePose((float*)NativeArrayUnsafeUtility.GetUnsafePtr(pose), pose.Length, stride);
        }
    }
}
#endif
