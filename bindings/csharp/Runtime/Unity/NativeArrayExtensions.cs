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

        /// <summary>
        /// Every joint into three NativeArrays, as jobs keep them: rotations (e.g.
        /// Unity.Mathematics quaternion, 16 bytes), positions and scales (float3, 12 bytes), with
        /// the ANIMCOMP_POSE_PRESET_UNITY_SEPARATE layout (or any SoA layout whose strides are the
        /// element sizes).
        /// </summary>
        public static AnimcompStatus SamplePose<TRotation, TPosition, TScale>(this Decompressor decompressor,
            AnimcompPoseLayout layout, NativeArray<TRotation> rotations, NativeArray<TPosition> positions,
            NativeArray<TScale> scales)
            where TRotation : struct where TPosition : struct where TScale : struct
        {
            return decompressor.SamplePose(layout,
                NativeArrayUnsafeUtility.GetUnsafePtr(rotations), (long)rotations.Length * UnsafeUtility.SizeOf<TRotation>(),
                NativeArrayUnsafeUtility.GetUnsafePtr(positions), (long)positions.Length * UnsafeUtility.SizeOf<TPosition>(),
                NativeArrayUnsafeUtility.GetUnsafePtr(scales), (long)scales.Length * UnsafeUtility.SizeOf<TScale>());
        }

        /// <summary>Every joint into one NativeArray of records (AoS or SoA4 layout).</summary>
        public static AnimcompStatus SamplePose<TRecord>(this Decompressor decompressor, AnimcompPoseLayout layout,
            NativeArray<TRecord> records) where TRecord : struct
        {
            return decompressor.SamplePose(layout, NativeArrayUnsafeUtility.GetUnsafePtr(records),
                (long)records.Length * UnsafeUtility.SizeOf<TRecord>());
        }
    }
}
#endif
